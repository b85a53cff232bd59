"""Browser fetch for sources marked `transport: browser`: pages that build their job
list with JavaScript.

Headless Chromium (Debian's /usr/bin/chromium, through Playwright) renders the
page, but never touches the network itself: every request the page makes is
answered by `route.fulfill` with a response fetched through our own HTTP fetcher.
So the browser path draws from the same per-host budget and cooldowns as plain
requests, every hop passes the SSRF guard, and every request is recorded. As a
second wall, Chromium is pointed at a dead proxy: anything that escaped
interception (a redirect the browser follows itself, a websocket) fails instead
of reaching the network.

Bounded: at most `settings.browser_pages` pages render at once, each within the
HTTP timeout. Images, fonts, media and stylesheets are not fetched (they cost the
host and tell us nothing). The browser starts on first use and is closed with the
fetcher; its user-data directory is a fresh temporary one each run.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

import psutil

from pipeline.crawl.http.fetcher import Fetcher, FetchRequest, FetchResult, ResultStream, drain
from pipeline.settings import Settings

CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    # Nothing leaves the browser on its own: requests we do not fulfill go to a proxy
    # that does not exist (and loopback is not exempt from it).
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
)
SKIPPED_RESOURCES = frozenset({"image", "media", "font", "stylesheet", "manifest", "texttrack"})
# Response headers that describe the transfer, not the content: httpx already decoded
# the body, so passing them on would make Chromium decode it twice.
_TRANSFER_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
MAX_RENDERED_BYTES = 20 * 1024 * 1024


class BrowserUnavailable(RuntimeError):
    pass


class BrowserFetcher:
    """Renders pages with Chromium on the HTTP fetcher's event loop."""

    transport = "browser"

    def __init__(self, settings: Settings, http: Fetcher) -> None:
        self.settings = settings
        self.http = http
        self._pages = http.run(_semaphore(max(1, settings.browser_pages)))
        self._playwright: Any = None
        self._context: Any = None
        self._before: set[int] = set()  # our child processes before the browser started
        self._profile: str | None = None
        self._start_lock = http.run(_lock())

    # ------------------------------------------------------------ public API

    def submit(self, stream: ResultStream, requests: Iterable[FetchRequest]) -> None:
        """Render the pages; results (the rendered DOM as the body) arrive on `stream`.
        A page's slot in its host's budget is taken when the browser asks for it (not
        when submitted: starting the browser or waiting for a page takes a while)."""
        work = []
        for request in requests:
            stream.expect()
            work.append(self._gated(request))
        self.http.deliver(stream, work)

    async def _gated(self, request: FetchRequest) -> FetchResult:
        async with self._pages:
            return await self._render(request)

    def fetch_all(self, requests: Iterable[FetchRequest]) -> Iterator[FetchResult]:
        return drain(self.submit, requests)

    def fetch(self, request: FetchRequest) -> FetchResult:
        return next(self.fetch_all([request]))

    def close(self) -> None:
        if self._context is not None or self._playwright is not None:
            spawned = [p for p in _descendants() if p.pid not in self._before]
            self.http.run(self._shutdown())
            _reap(spawned)
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    def __enter__(self) -> BrowserFetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ browser lifecycle

    async def _browser(self) -> Any:
        async with self._start_lock:
            if self._context is None:
                try:
                    from playwright.async_api import async_playwright
                except ImportError as exc:  # pragma: no cover - installed with the package
                    raise BrowserUnavailable("playwright is not installed") from exc
                self._profile = tempfile.mkdtemp(prefix="jobharbor-chromium-")
                self._before = {p.pid for p in _descendants()}
                self._playwright = await async_playwright().start()
                try:
                    self._context = await self._playwright.chromium.launch_persistent_context(
                        self._profile,
                        executable_path=self.settings.browser_executable,
                        headless=True,
                        args=list(CHROMIUM_ARGS),
                        user_agent=self.settings.effective_user_agent,
                        service_workers="block",
                        java_script_enabled=True,
                    )
                except Exception:
                    await self._playwright.stop()
                    self._playwright = None
                    raise
            return self._context

    async def _shutdown(self) -> None:
        with contextlib.suppress(Exception):
            if self._context is not None:
                await self._context.close()
        self._context = None
        with contextlib.suppress(Exception):
            if self._playwright is not None:
                await self._playwright.stop()
        self._playwright = None

    # ------------------------------------------------------------ rendering

    async def _render(self, request: FetchRequest) -> FetchResult:
        started = time.monotonic()
        refused = self.http.guard.preflight(request.url)
        if refused is not None:  # refused before a browser starts or a request leaves
            return replace(_failed(request, started, str(refused)), blocked_address=True)
        try:
            context = await self._browser()
        except Exception as exc:
            return _failed(request, started, f"browser did not start: {type(exc).__name__}: {exc}")
        page = await context.new_page()
        exchanges: list[FetchResult] = []
        document: list[FetchResult] = []

        async def fulfill(route: Any) -> None:
            await self._fulfill(route, request, document, exchanges)

        try:
            await page.route("**/*", fulfill)
            failed = await self._load(page, request, started, document, exchanges)
            if failed is not None:
                return failed
            main = document[0]
            body = (
                (await page.content()).encode("utf-8")[:MAX_RENDERED_BYTES]
                if main.ok
                else main.body
            )
            return replace(
                main,
                request=request,
                body=body,
                elapsed_ms=int((time.monotonic() - started) * 1000),
                transport="browser",
                related=tuple(exchanges),
            )
        finally:
            with contextlib.suppress(Exception):
                await page.close()

    async def _fulfill(
        self,
        route: Any,
        request: FetchRequest,
        document: list[FetchResult],
        exchanges: list[FetchResult],
    ) -> None:
        """Answer one of the page's requests through our own paced, guarded fetcher."""
        seen = route.request
        if seen.resource_type in SKIPPED_RESOURCES:
            await route.abort("blockedbyclient")
            return
        sub = replace(
            request,
            url=seen.url,
            method=seen.method,
            headers={k: v for k, v in seen.headers.items() if not k.startswith(":")},
            body=seen.post_data_buffer,
            tag=None,
        )
        if seen.is_navigation_request() and not document:
            result = await self.http.paced(sub)
            document.append(result)
        else:
            # The page's own requests spend the same budget as any other request; a
            # third-party host gets the cautious default budget.
            if sub.pacing_key != request.pacing_key:
                sub = replace(sub, budget=None, host_key=None)
            result = await self.http.paced(sub)
            exchanges.append(replace(result, transport="browser"))
        if result.status is None:
            await route.abort("blockedbyclient" if result.blocked_address else "failed")
            return
        headers = {k: v for k, v in result.headers.items() if k not in _TRANSFER_HEADERS}
        await route.fulfill(status=result.status, headers=headers, body=result.body)

    async def _load(
        self,
        page: Any,
        request: FetchRequest,
        started: float,
        document: list[FetchResult],
        exchanges: list[FetchResult],
    ) -> FetchResult | None:
        """Navigate and wait for the selectors: the result if the render failed, else None."""
        timeout_ms = self.settings.http_timeout_s * 1000
        try:
            await page.goto(request.url, wait_until="networkidle", timeout=timeout_ms)
            selectors = ",".join(request.wait_for)
            if selectors:
                await page.wait_for_selector(selectors, timeout=timeout_ms)
        except Exception as exc:
            if document and document[0].deferred:
                return replace(document[0], request=request, transport="browser")
            if not document or document[0].status is None:
                reason = document[0].error if document else f"{type(exc).__name__}: {exc}"
                return _failed(request, started, reason, exchanges, document)
            if document[0].ok:
                return _failed(request, started, f"render: {exc}", exchanges, document)
        return None


def _descendants() -> list[psutil.Process]:
    return psutil.Process().children(recursive=True)


def _reap(processes: list[psutil.Process], timeout_s: float = 10.0) -> None:
    """Wait for the browser's processes to exit; kill any that do not (a run must not
    leave Chromium behind, even when Playwright's own shutdown was cut short)."""
    _, alive = psutil.wait_procs(processes, timeout=timeout_s)
    for proc in alive:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    psutil.wait_procs(alive, timeout=timeout_s)


def _failed(
    request: FetchRequest,
    started: float,
    error: str | None,
    exchanges: list[FetchResult] | None = None,
    document: list[FetchResult] | None = None,
) -> FetchResult:
    main = document[0] if document else None
    return FetchResult(
        request=request,
        final_url=main.final_url if main else request.url,
        status=None,
        headers={},
        body=b"",
        elapsed_ms=int((time.monotonic() - started) * 1000),
        error=error,
        blocked_address=bool(main and main.blocked_address),
        transport="browser",
        related=tuple(exchanges or ()),
    )


async def _semaphore(size: int) -> asyncio.Semaphore:
    return asyncio.Semaphore(size)


async def _lock() -> asyncio.Lock:
    return asyncio.Lock()
