"""Reading a response body within a cap: streamed, decoded by us, stopped at the limit.

httpx would decode the whole body (every listed content-coding, each layer without
an output bound) before we could look at its size: a 50 KB gzip bomb, or gzip
stacked three times, becomes gigabytes in memory. So the fetcher reads the raw
stream and decodes it here with an output bound per step (zlib's max_length):
reading stops as soon as the decoded body passes `settings.http_max_body_bytes`.

Only what we ask for is accepted (Accept-Encoding: gzip, deflate): one coding at
most; anything else (br, zstd, gzip twice) is refused unread, a recorded failure.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator

import httpx

CHUNK_OUT = 256 * 1024  # decoded bytes per step: the most one step may add in memory


class BodyRejected(Exception):
    """The body was not read whole: too large, an unsupported coding, or undecodable."""


def codings(headers: httpx.Headers) -> list[str]:
    raw = headers.get("content-encoding", "")
    return [c.strip().lower() for c in raw.split(",") if c.strip().lower() not in ("", "identity")]


async def read_capped(response: httpx.Response, cap: int) -> bytes:
    """The decoded body, or BodyRejected once it passes `cap` bytes (reading stops)."""
    found = codings(response.headers)
    if len(found) > 1 or (found and found[0] not in ("gzip", "x-gzip", "deflate")):
        raise BodyRejected(f"unsupported content encoding {', '.join(found)!r}")
    # Most answers carry no coding (every 304 among them): their chunks are the body.
    pieces = _decoded(response.aiter_raw(), _Decoder(found[0])) if found else response.aiter_raw()
    body = bytearray()
    async for piece in pieces:
        body += piece
        if len(body) > cap:
            raise BodyRejected(f"response body exceeds the size limit ({cap} bytes)")
    return bytes(body)


async def _decoded(raw: AsyncIterator[bytes], decoder: _Decoder) -> AsyncIterator[bytes]:
    async for chunk in raw:
        for piece in decoder.feed(chunk):
            yield piece
    for piece in decoder.flush():
        yield piece


class _Decoder:
    def __init__(self, coding: str | None) -> None:
        self.coding = coding
        self._z: zlib._Decompress | None = None
        if coding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif coding == "deflate":
            self._z = zlib.decompressobj()
        self._first = True

    def feed(self, chunk: bytes) -> list[bytes]:
        if self._z is None:
            return [chunk]
        try:
            return list(self._steps(chunk))
        except zlib.error as exc:
            if self.coding == "deflate" and self._first:  # raw deflate, no zlib header
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                self._first = False
                return self.feed(chunk)
            raise BodyRejected(f"undecodable {self.coding} body: {exc}") from exc

    def _steps(self, data: bytes) -> Iterator[bytes]:
        assert self._z is not None
        while data:
            out = self._z.decompress(data, CHUNK_OUT)
            self._first = False
            if out:
                yield out
            data = self._z.unconsumed_tail
            if self._z.eof:
                return

    def flush(self) -> list[bytes]:
        if self._z is None:
            return []
        tail = self._z.flush()
        if not self._z.eof:  # the stream's end marker never came: a cut-off body
            raise BodyRejected(f"truncated {self.coding} body")
        return [tail] if tail else []
