"""The HTTP fetcher: concurrent requests behind a synchronous API.

An asyncio loop runs in a background thread with one shared httpx client (a
persistent connection pool); callers submit requests and consume results as
they complete. Redirects are followed by hand so every hop is vetted and
recorded. Database bookkeeping stays in the caller's thread.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from pipeline.errors import BlockedAddressError
from pipeline.http.guard import GuardedBackend
from pipeline.settings import Settings

MAX_REDIRECTS = 5
MAX_BODY_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True)
class FetchRequest:
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    tag: Any = None  # the caller's handle (a board, a posting) carried to the result
    method: str = "GET"
    body: bytes | None = None


@dataclass(frozen=True)
class FetchResult:
    request: FetchRequest
    final_url: str
    status: int | None  # None: no HTTP response (network error, refused address)
    headers: Mapping[str, str]
    body: bytes
    elapsed_ms: int
    error: str | None = None
    blocked_address: bool = False
    redirects: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def content_type(self) -> str | None:
        return self.headers.get("content-type")


class Fetcher:
    def __init__(self, settings: Settings, *, max_connections: int = 64) -> None:
        self.settings = settings
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fetcher", daemon=True)
        self._thread.start()
        self._client: httpx.AsyncClient = self._call(self._make_client(max_connections))

    async def _make_client(self, max_connections: int) -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(
            limits=httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_connections
            ),
            retries=0,
        )
        pool = transport._pool
        pool._network_backend = GuardedBackend(  # type: ignore[attr-defined]
            pool._network_backend,  # type: ignore[attr-defined]
            allow_private=self.settings.allow_private_networks,
        )
        return httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(self.settings.http_timeout_s),
            follow_redirects=False,
            headers={
                "User-Agent": self.settings.effective_user_agent,
                "Accept-Encoding": "gzip, deflate",
            },
        )

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    # ------------------------------------------------------------ public API

    def fetch(self, request: FetchRequest) -> FetchResult:
        return self._call(self._fetch(request))

    def fetch_all(
        self, requests: Iterable[FetchRequest], concurrency: int = 16
    ) -> Iterator[FetchResult]:
        """Results in completion order; at most `concurrency` requests in flight."""
        done: queue.Queue[FetchResult | BaseException] = queue.Queue()
        pending = 0
        slots = threading.Semaphore(concurrency)
        for request in requests:
            slots.acquire()
            future: Future[FetchResult] = asyncio.run_coroutine_threadsafe(
                self._fetch(request), self._loop
            )
            future.add_done_callback(
                lambda f: (done.put(f.exception() or f.result()), slots.release())
            )
            pending += 1
            while not done.empty():
                pending -= 1
                yield _unwrap(done.get())
        while pending:
            pending -= 1
            yield _unwrap(done.get())

    def close(self) -> None:
        if self._loop.is_closed():
            return
        self._call(self._client.aclose())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ internals

    async def _fetch(self, request: FetchRequest) -> FetchResult:
        started = time.monotonic()
        url = request.url
        redirects: list[str] = []
        method, body = request.method, request.body
        try:
            for _ in range(MAX_REDIRECTS + 1):
                if urlsplit(url).scheme not in ("http", "https"):
                    return _failure(
                        request, url, started, f"unsupported URL scheme in {url!r}", redirects
                    )
                response = await self._client.request(
                    method, url, headers=dict(request.headers), content=body
                )
                if response.is_redirect and "location" in response.headers:
                    await response.aclose()
                    redirects.append(url)
                    url = urljoin(url, response.headers["location"])
                    if response.status_code in (301, 302, 303):
                        method, body = "GET", None
                    continue
                content = response.content[: MAX_BODY_BYTES + 1]
                if len(content) > MAX_BODY_BYTES:
                    return _failure(
                        request, url, started, "response body exceeds the size limit", redirects
                    )
                return FetchResult(
                    request=request,
                    final_url=url,
                    status=response.status_code,
                    headers={k.lower(): v for k, v in response.headers.items()},
                    body=content,
                    elapsed_ms=_ms(started),
                    redirects=tuple(redirects),
                )
            return _failure(
                request, url, started, f"more than {MAX_REDIRECTS} redirects", redirects
            )
        except BlockedAddressError as exc:
            return _failure(request, url, started, str(exc), redirects, blocked=True)
        except httpx.HTTPError as exc:
            cause = exc.__cause__ or exc.__context__
            if isinstance(cause, BlockedAddressError):
                return _failure(request, url, started, str(cause), redirects, blocked=True)
            return _failure(request, url, started, f"{type(exc).__name__}: {exc}", redirects)


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def _failure(
    request: FetchRequest,
    url: str,
    started: float,
    error: str,
    redirects: list[str],
    *,
    blocked: bool = False,
) -> FetchResult:
    return FetchResult(
        request=request,
        final_url=url,
        status=None,
        headers={},
        body=b"",
        elapsed_ms=_ms(started),
        error=error,
        blocked_address=blocked,
        redirects=tuple(redirects),
    )


def _unwrap(item: FetchResult | BaseException) -> FetchResult:
    if isinstance(item, BaseException):
        raise item
    return item
