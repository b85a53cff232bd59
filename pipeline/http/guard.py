"""SSRF guard: refuse connections to private, loopback, link-local, CGNAT and
cloud-metadata addresses.

The check runs where the socket is opened (a wrapped httpcore network backend),
after DNS resolution and for every connection, so redirects and DNS tricks
cannot route around it: the address we vet is the address we connect to.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from typing import Any

import httpcore

from pipeline.errors import BlockedAddressError

_EXTRA_BLOCKED = tuple(
    ipaddress.ip_network(net)
    for net in (
        "100.64.0.0/10",  # CGNAT shared address space (not flagged private by ipaddress)
        "169.254.169.254/32",  # cloud metadata (also link-local; listed to be explicit)
        "192.0.0.0/24",
        "198.18.0.0/15",  # benchmarking
        "fd00:ec2::254/128",  # AWS metadata over IPv6
    )
)


def refusal_reason(address: str) -> str | None:
    """Why connecting to this IP is refused, or None if it is a public address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    checks = (
        (ip.is_unspecified, "unspecified"),
        (ip.is_loopback, "loopback"),
        (ip.is_link_local, "link-local"),
        (ip.is_private, "private"),
        (ip.is_multicast, "multicast"),
        (ip.is_reserved, "reserved"),
    )
    for flagged, reason in checks:
        if flagged:
            return reason
    for net in _EXTRA_BLOCKED:
        if ip.version == net.version and ip in net:
            return "cgnat/metadata/special"
    return None


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """Resolves the host itself, vets every address, connects only to a vetted one."""

    def __init__(self, inner: httpcore.AsyncNetworkBackend, *, allow_private: bool) -> None:
        self.inner = inner
        self.allow_private = allow_private

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        if self.allow_private:
            return await self.inner.connect_tcp(host, port, timeout, local_address, socket_options)
        addresses = await _resolve(host, port)
        for address in addresses:
            reason = refusal_reason(address)
            if reason:
                raise BlockedAddressError(
                    f"refused to connect to a {reason} address", host=host, address=address
                )
        return await self.inner.connect_tcp(
            addresses[0], port, timeout, local_address, socket_options
        )

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        raise BlockedAddressError("unix sockets are not crawl targets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


async def _resolve(host: str, port: int) -> list[str]:
    try:
        ipaddress.ip_address(host.strip("[]"))
        return [host.strip("[]")]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    # Every address the name resolves to must be public: one private answer is enough
    # to refuse, since we cannot know which one a retry would get.
    return list(dict.fromkeys(info[4][0] for info in infos))
