"""The HTTP fetcher: concurrent, paced requests behind a synchronous API.

An asyncio loop runs in a background thread with one shared httpx client (a
persistent keep-alive connection pool); callers submit requests and consume
results as they complete. Every request first gets a slot from the shared
per-host budget (pipeline.crawl.pacing); a request the budget cannot place within the
wait limit comes back `deferred` without having been sent. Redirects are followed
by hand so every hop is vetted by the SSRF guard and recorded. Database
bookkeeping stays in the caller's thread.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from pipeline.crawl.http.body import BodyRejected, read_capped
from pipeline.crawl.http.guard import GuardedBackend
from pipeline.crawl.pacing import DEFAULT_BUDGET, Budget, LocalBucket, Pacer, parse_retry_after
from pipeline.errors import BlockedAddressError
from pipeline.settings import Settings

log = logging.getLogger(__name__)
MAX_REDIRECTS = 5
MAX_BODY_BYTES = 50 * 1024 * 1024  # the default of settings.http_max_body_bytes
DEFAULT_CONCURRENCY = 16
# Statuses that mean "slow down" for the whole host (a 503 is often an overloaded
# origin or a rate limiter in front of it; either way, backing off is the polite answer).
COOLDOWN_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class FetchRequest:
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    tag: Any = None  # the caller's handle (a board, a posting) carried to the result
    method: str = "GET"
    body: bytes | None = None
    budget: Budget | None = None  # the host's pacing; None: the cautious default
    host_key: str | None = None  # whose budget this spends; None: the URL's host
    transport: str = "http"  # "browser": render the page (sources with transport: browser)
    wait_for: tuple[str, ...] = ()  # browser: CSS selectors that mean "rendered"

    @property
    def pacing_key(self) -> str:
        if self.host_key:
            return self.host_key
        try:
            return urlsplit(self.url).netloc.lower()
        except ValueError:  # unparsable (hostile data): its own key; the request fails
            return self.url.lower()


@dataclass(frozen=True)
class Hop:
    """One redirect answered on the way to the final URL."""

    url: str
    status: int


@dataclass(frozen=True)
class FetchResult:
    request: FetchRequest
    final_url: str
    status: int | None  # None: no HTTP response (network error, refused address, deferred)
    headers: Mapping[str, str]
    body: bytes
    elapsed_ms: int
    error: str | None = None
    blocked_address: bool = False
    redirects: tuple[str, ...] = ()
    hops: tuple[Hop, ...] = ()
    # Set when our own limiter refused to send the request: the host's budget has no
    # slot within the wait limit. Nothing was sent; retry in about this many seconds.
    deferred_s: float | None = None
    transport: str = "http"
    # Requests made on this one's behalf (a rendered page's scripts and API calls).
    related: tuple[FetchResult, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def deferred(self) -> bool:
        return self.deferred_s is not None

    @property
    def content_type(self) -> str | None:
        return self.headers.get("content-type")


def deferred_result(
    request: FetchRequest, retry_in_s: float, transport: str = "http"
) -> FetchResult:
    return FetchResult(
        request=request,
        final_url=request.url,
        status=None,
        headers={},
        body=b"",
        elapsed_ms=0,
        error=f"deferred by our own rate limiter: next slot in {retry_in_s:.0f}s",
        deferred_s=retry_in_s,
        transport=transport,
    )


class ResultStream:
    """Results of requests submitted to one or more fetchers, in completion order.
    Submit and consume from one thread; fetchers deliver from theirs.

    A fetcher hands over what its loop finished in one pass as one batch
    (`put_many`): waking the consumer is a futex call and a hand-over of the GIL, and
    one wake per response cost the 304 poll pass about a tenth of its time."""

    def __init__(self) -> None:
        self._ready = threading.Condition(threading.Lock())
        self._items: deque[FetchResult | BaseException] = deque()
        self.pending = 0

    def expect(self) -> None:
        self.pending += 1

    def put(self, item: FetchResult | BaseException) -> None:
        self.put_many((item,))

    def put_many(self, items: Iterable[FetchResult | BaseException]) -> None:
        with self._ready:
            self._items.extend(items)
            self._ready.notify()

    def next(self, timeout: float | None = None) -> FetchResult | None:
        """The next finished result, or None if none finished within `timeout`."""
        with self._ready:
            if not self._items and not self._ready.wait_for(lambda: self._items, timeout):
                return None
            item = self._items.popleft()
        self.pending -= 1
        return _unwrap(item)


def drain(
    submit: Callable[[ResultStream, Iterable[FetchRequest]], None],
    requests: Iterable[FetchRequest],
) -> Iterator[FetchResult]:
    """Submit the requests on a fresh stream and yield every result as it completes."""
    stream = ResultStream()
    submit(stream, requests)
    while stream.pending:
        result = stream.next()
        assert result is not None
        yield result


class Fetcher:
    transport = "http"

    def __init__(
        self,
        settings: Settings,
        *,
        pacer: Pacer | None = None,
        max_connections: int | None = None,
        owns_pacer: bool = False,
    ) -> None:
        self.settings = settings
        max_connections = max_connections or settings.http_connections
        self.pacer = pacer
        self._owns_pacer = owns_pacer
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fetcher", daemon=True)
        self._thread.start()
        self._client: httpx.AsyncClient = self.run(self._make_client(max_connections))
        self._sending = self.run(_make_semaphore(max_connections))
        self._local: dict[str, LocalBucket] = {}
        self._tasks: set[asyncio.Task[FetchResult]] = set()
        self._outbox: dict[ResultStream, list[FetchResult | BaseException]] = {}

    async def _make_client(self, max_connections: int) -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(
            limits=httpx.Limits(
                max_connections=max_connections, max_keepalive_connections=max_connections
            ),
            retries=0,
        )
        pool = transport._pool
        self.guard = GuardedBackend(
            pool._network_backend,
            allow_private=self.settings.allow_private_networks,
            allowed_networks=self.settings.allowed_networks,
            egress_allowlist=self.settings.egress_hosts,
        )
        pool._network_backend = self.guard
        self._transport = transport
        return httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(self.settings.http_timeout_s),
            follow_redirects=False,
            # No proxies from the environment: the guard vets the address we connect to,
            # and through a proxy that would be the proxy, not the target.
            trust_env=False,
            headers={
                "User-Agent": self.settings.effective_user_agent,
                "Accept-Encoding": "gzip, deflate",
            },
        )

    # ------------------------------------------------------------ public API

    def fetch(self, request: FetchRequest) -> FetchResult:
        return next(self.fetch_all([request]))

    def fetch_all(self, requests: Iterable[FetchRequest]) -> Iterator[FetchResult]:
        """Results in completion order. Each request waits for its host's slot; the
        ones the budget cannot place within the wait limit come back deferred first."""
        return drain(self.submit, requests)

    def submit(self, stream: ResultStream, requests: Iterable[FetchRequest]) -> None:
        """Start the requests; their results arrive on `stream` as they complete."""
        started: list[Coroutine[Any, Any, FetchResult]] = []
        for request, delay, reserved_at in self._schedule(list(requests)):
            stream.expect()
            if isinstance(delay, FetchResult):
                stream.put(delay)
            else:
                started.append(self._paced(request, delay, reserved_at))
        self.deliver(stream, started)

    def deliver(self, stream: ResultStream, work: list[Coroutine[Any, Any, FetchResult]]) -> None:
        """Run `work` on the loop, each result (or its exception) going to `stream`,
        whose caller has `expect`ed them: one wake-up of the loop for the batch."""
        if work:
            self._loop.call_soon_threadsafe(self._start, stream, work)

    def _start(self, stream: ResultStream, work: list[Coroutine[Any, Any, FetchResult]]) -> None:
        """(In the loop.) A task per coroutine, delivering to `stream` when done."""
        for coroutine in work:
            task = self._loop.create_task(coroutine)
            self._tasks.add(task)  # the loop holds its tasks weakly
            task.add_done_callback(partial(self._done, stream))

    def _done(self, stream: ResultStream, task: asyncio.Task[FetchResult]) -> None:
        """(In the loop.) A finished request joins its stream's batch; the batch is
        handed over once the loop has run everything else that was ready."""
        self._tasks.discard(task)
        item: FetchResult | BaseException
        if task.cancelled():
            item = asyncio.CancelledError("the fetcher closed before the request finished")
        else:
            item = task.exception() or task.result()
        batch = self._outbox.get(stream)
        if batch is None:
            batch = self._outbox[stream] = []
            self._loop.call_soon(self._hand_over, stream)
        batch.append(item)

    def _hand_over(self, stream: ResultStream) -> None:
        stream.put_many(self._outbox.pop(stream))

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def run(self, coro: Any) -> Any:
        """Run a coroutine on the fetcher's loop and wait for it."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def close(self) -> None:
        if self._loop.is_closed():
            return
        self.run(self._client.aclose())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()
        if self.pacer is not None and self._owns_pacer:
            self.pacer.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ pacing

    def _schedule(
        self, requests: list[FetchRequest]
    ) -> Iterator[tuple[FetchRequest, float | FetchResult, float]]:
        """Each request with its send delay (or its deferred result): one reservation
        per host for the whole batch."""
        if self.pacer is None:
            now = time.monotonic()
            for request in requests:
                yield request, 0.0, now
            return
        by_host: dict[str, list[FetchRequest]] = defaultdict(list)
        for request in requests:
            by_host[request.pacing_key].append(request)
        for key, group in by_host.items():
            grant = self.pacer.reserve(key, group[0].budget or DEFAULT_BUDGET, len(group))
            for request, delay in zip(group, grant.delays, strict=False):
                yield request, delay, grant.reserved_at
            for request in group[len(grant.delays) :]:
                deferred = deferred_result(request, grant.retry_in_s, request.transport)
                yield request, deferred, grant.reserved_at

    async def paced(self, request: FetchRequest) -> FetchResult:
        """One request from inside the loop (a browser's subrequest): reserve, wait, send."""
        if self.pacer is None:
            return await self._fetch(request)
        grant = self.pacer.reserve(request.pacing_key, request.budget or DEFAULT_BUDGET, 1)
        if not grant.delays:
            return deferred_result(request, grant.retry_in_s, request.transport)
        return await self._paced(request, grant.delays[0], grant.reserved_at)

    async def _paced(self, request: FetchRequest, delay: float, reserved_at: float) -> FetchResult:
        """Wait for the granted slot and a connection, then send."""
        send_at = reserved_at + delay
        key, budget = request.pacing_key, request.budget or DEFAULT_BUDGET
        while True:
            wait = send_at - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            async with self._sending:
                local_wait = self._local_wait(key, budget)
                if local_wait > 0:  # sleep(0) would still cost the request a loop pass
                    await asyncio.sleep(local_wait)
                # A cooldown another request (or worker) started after our slot was
                # granted wins over the slot: re-reserve behind it, or defer.
                if self.pacer is None or not self.pacer.cooldown_remaining(
                    key, known_at=reserved_at
                ):
                    return await self._fetch(request)
            assert self.pacer is not None
            grant = self.pacer.reserve(key, budget, 1)
            if not grant.delays:
                return deferred_result(request, grant.retry_in_s, request.transport)
            send_at, reserved_at = grant.reserved_at + grant.delays[0], grant.reserved_at

    def _local_wait(self, key: str, budget: Budget) -> float:
        bucket = self._local.get(key)
        if bucket is None or bucket.budget != budget:
            bucket = self._local[key] = LocalBucket(budget)
        return bucket.take() if self.pacer is not None else 0.0

    def _after_response(self, request: FetchRequest, status: int, headers: httpx.Headers) -> None:
        if self.pacer is None:
            return
        key = request.pacing_key
        if status in COOLDOWN_STATUSES:
            seconds = parse_retry_after(headers.get("retry-after"))
            self.pacer.cool_down(
                key,
                request.budget or DEFAULT_BUDGET,
                seconds,
                f"HTTP {status}"
                + (f", Retry-After: {headers['retry-after']}" if seconds is not None else ""),
            )
        elif status < 400:
            self.pacer.calm(key)

    # ------------------------------------------------------------ internals

    async def _fetch(self, request: FetchRequest) -> FetchResult:
        started = time.monotonic()
        url = request.url
        hops: list[Hop] = []
        method, body = request.method, request.body
        try:
            for _ in range(MAX_REDIRECTS + 1):
                if urlsplit(url).scheme not in ("http", "https"):
                    return _failure(
                        request, url, started, f"unsupported URL scheme in {url!r}", hops
                    )
                refused = self.guard.preflight(url)
                if refused is not None:  # nothing is sent: not a request, not a DNS query
                    log.error("%s (url %s)", refused, url)
                    return _failure(request, url, started, str(refused), hops, blocked=True)
                # A redirect answered after the host asked us to wait is followed only
                # after the wait: the hop is a request to the host like any other. A wait
                # longer than a slot may take fails the request, its hops recorded
                # (every request sent is).
                if hops and self.pacer is not None:
                    cooling = self.pacer.cooldown_remaining(request.pacing_key)
                    if cooling > self.pacer.max_wait_s:
                        # The redirect answered is the request's last, not followed.
                        reason = f"redirect not followed: the host asked for a {cooling:.0f}s wait"
                        return _failure(request, hops[-1].url, started, reason, hops[:-1])
                    if cooling > 0:
                        await asyncio.sleep(cooling)
                outgoing = self._client.build_request(
                    method, url, headers=dict(request.headers), content=body
                )
                response = await self._send(outgoing)
                self._after_response(request, response.status_code, response.headers)
                if response.is_redirect and "location" in response.headers:
                    await response.aclose()
                    hops.append(Hop(url, response.status_code))
                    url = urljoin(url, response.headers["location"])
                    if response.status_code in (301, 302, 303):
                        method, body = "GET", None
                    continue
                return await self._read_body(request, url, started, hops, response)
            return _failure(request, url, started, f"more than {MAX_REDIRECTS} redirects", hops)
        except BlockedAddressError as exc:
            return _failure(request, url, started, str(exc), hops, blocked=True)
        except (httpx.InvalidURL, ValueError) as exc:
            # A URL httpx or urljoin cannot parse (an octal IPv4 form, a broken IPv6
            # literal in a Location header): a failed request, never a crashed phase.
            return _failure(request, url, started, f"invalid URL: {exc}", hops)
        except OSError as exc:
            # The guard resolves names itself (outside httpcore's exception mapping): a
            # name that does not resolve is a network failure of this request.
            return _failure(request, url, started, f"{type(exc).__name__}: {exc}", hops)
        except httpx.HTTPError as exc:
            cause = exc.__cause__ or exc.__context__
            if isinstance(cause, BlockedAddressError):
                return _failure(request, url, started, str(cause), hops, blocked=True)
            return _failure(request, url, started, f"{type(exc).__name__}: {_said(exc)}", hops)

    async def _send(self, outgoing: httpx.Request) -> httpx.Response:
        """One request through the pool, its body left to stream. Not through
        `client.send`: its redirect, auth and event-hook layers are ones we do not use
        (redirects are followed by hand, above), and they cost a pass of 304s a tenth
        of its time. Cookies are kept as the client keeps them (`build_request` sends
        them back), read only from a response that sets one: httpx's store wraps every
        response and its request in urllib's shapes to look, a twentieth of the pass."""
        response = await self._transport.handle_async_request(outgoing)
        response.request = outgoing
        if "set-cookie" in response.headers:
            try:
                self._client.cookies.extract_cookies(response)
            except BaseException:
                await response.aclose()
                raise
        return response

    async def _read_body(
        self,
        request: FetchRequest,
        url: str,
        started: float,
        hops: list[Hop],
        response: httpx.Response,
    ) -> FetchResult:
        """The body, streamed up to the size cap and within the total time limit."""
        try:
            async with asyncio.timeout(self.settings.http_total_timeout_s):
                content = await read_capped(response, self.settings.http_max_body_bytes)
        except BodyRejected as exc:
            return _failure(request, url, started, str(exc), hops)
        except TimeoutError:
            limit = self.settings.http_total_timeout_s
            return _failure(request, url, started, f"body not complete within {limit:.0f}s", hops)
        finally:
            await response.aclose()
        return FetchResult(
            request=request,
            final_url=url,
            status=response.status_code,
            headers=dict(response.headers.items()),  # httpx gives the names lowercased
            body=content,
            elapsed_ms=_ms(started),
            redirects=tuple(h.url for h in hops),
            hops=tuple(hops),
        )


def _said(exc: BaseException) -> str:
    """The first message down the exception's causes: a reset mid-body is an httpx
    ReadError with no text, over an httpcore one with none, over the OSError that says
    "Connection reset by peer"."""
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            break
        if str(seen):
            return str(seen)
        seen = seen.__cause__ or seen.__context__
    return "connection failed"


async def _make_semaphore(size: int) -> asyncio.Semaphore:
    return asyncio.Semaphore(size)


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def _failure(
    request: FetchRequest,
    url: str,
    started: float,
    error: str,
    hops: list[Hop],
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
        redirects=tuple(h.url for h in hops),
        hops=tuple(hops),
    )


def _unwrap(item: FetchResult | BaseException) -> FetchResult:
    if isinstance(item, BaseException):
        raise item
    return item
