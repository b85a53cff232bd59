"""A connection's stream with a cheap idle check.

Before every request httpcore's pool asks each idle keep-alive connection whether
the server has closed it (`get_extra_info("is_readable")`). Through anyio that
builds the socket's whole attribute table (a `getpeername` call and enum
conversions) just to reach the raw socket, then polls it: per idle connection, per
request. With a pool of eight on a 304 poll pass it was a tenth of the fetcher's
time. The raw socket never changes for a connection (TLS wraps the same one), so
it is looked up and registered for polling once, and the check is one `poll(0)`.
"""

from __future__ import annotations

import select
import socket
import ssl
from typing import Any

import httpcore


class IdleCheckedStream(httpcore.AsyncNetworkStream):
    """`inner` with its raw socket looked up once for the pool's idle check."""

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner
        self._socket: socket.socket | None = inner.get_extra_info("socket")
        self._poller = select.poll()  # registered once: the check is one poll(0) call
        if self._socket is not None and self._socket.fileno() >= 0:
            self._poller.register(self._socket.fileno(), select.POLLIN)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        wrapped = await self._inner.start_tls(ssl_context, server_hostname, timeout)
        return IdleCheckedStream(wrapped)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            if self._socket is None or self._socket.fileno() < 0:
                return True  # closed: the pool drops it, as with httpcore's own check
            return bool(self._poller.poll(0))
        return self._inner.get_extra_info(info)
