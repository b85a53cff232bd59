"""The transports one worker uses, sharing one pacer: plain HTTP, and the browser for
sources with `transport: browser` (started only when such a source is polled).
Also the worker's robots.txt cache, whose requests go through the same budget."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypedDict

from pipeline.crawl.browser import BrowserFetcher
from pipeline.crawl.http.fetcher import Fetcher, FetchRequest, FetchResult, ResultStream
from pipeline.crawl.pacing import Pacer
from pipeline.crawl.platforms import host_of
from pipeline.crawl.robots import RobotsCache
from pipeline.db.connect import Database, DictConnection
from pipeline.settings import Settings


class TransportContext(Protocol):
    """What a worker's transports need (pipeline.app.App has it): crawl takes the parts,
    it does not import the composition root above it."""

    @property
    def db(self) -> Database: ...

    @property
    def settings(self) -> Settings: ...


class AttemptValues(TypedDict):
    """One crawl.fetch_attempts row, as INSERT_ATTEMPT names its parameters (and
    pipeline.crawl.scan_store.INSERT_ATTEMPTS its columns)."""

    run_id: int | None
    board_id: int | None
    posting_id: int | None
    url: str
    host: str
    method: str
    transport: str
    status: int | None
    outcome: str
    bytes: int
    elapsed: int
    raw: str | None
    error: str | None


INSERT_ATTEMPT = """
INSERT INTO crawl.fetch_attempts (run_id, board_id, posting_id, url, host, method, transport,
    http_status, outcome, byte_length, elapsed_ms, raw_sha256, error)
VALUES (%(run_id)s, %(board_id)s, %(posting_id)s, %(url)s, %(host)s, %(method)s, %(transport)s,
    %(status)s, %(outcome)s, %(bytes)s, %(elapsed)s, %(raw)s, %(error)s)
"""


def attempt_rows(
    run_id: int | None,
    result: FetchResult,
    outcome: str,
    *,
    board_id: int | None = None,
    posting_id: int | None = None,
    raw: str | None = None,
) -> list[AttemptValues]:
    """Every request behind one result: its redirect hops, itself, and the requests a
    rendered page made on its own."""
    hops = [
        attempt_row(
            run_id,
            result,
            "redirect",
            url=hop.url,
            status=hop.status,
            board_id=board_id,
            posting_id=posting_id,
        )
        for hop in result.hops
    ]
    related = [
        attempt_row(run_id, sub, "subresource", board_id=board_id, posting_id=posting_id)
        for sub in result.related
    ]
    itself = attempt_row(run_id, result, outcome, raw=raw, board_id=board_id, posting_id=posting_id)
    return [*hops, itself, *related]


def attempt_row(
    run_id: int | None,
    result: FetchResult,
    outcome: str,
    *,
    url: str | None = None,
    status: int | None = None,
    board_id: int | None = None,
    posting_id: int | None = None,
    raw: str | None = None,
) -> AttemptValues:
    """One crawl.fetch_attempts row: `url`/`status` default to the result's own (a
    redirect hop passes its own)."""
    url = url or result.final_url
    hop = url != result.final_url
    return {
        "run_id": run_id,
        "board_id": board_id,
        "posting_id": posting_id,
        "url": url,
        "host": host_of(url),
        "method": result.request.method,
        "transport": result.transport,
        "status": status if hop or status is not None else result.status,
        "outcome": outcome,
        "bytes": 0 if hop else len(result.body),
        "elapsed": result.elapsed_ms,
        "raw": raw,
        "error": None if hop else result.error,
    }


class Transports:
    def __init__(self, app: TransportContext, run_id: int | None) -> None:
        self.app = app
        self.run_id = run_id
        self.pacer = Pacer(app.db, max_wait_s=app.settings.pacing_max_wait_s)
        self.http = Fetcher(app.settings, pacer=self.pacer)
        self._browser: BrowserFetcher | None = None
        self.robots = RobotsCache(
            app.db, app.settings.effective_user_agent, fetch=self.http.fetch, record=self.record
        )
        self._conn: DictConnection | None = None

    @property
    def browser(self) -> BrowserFetcher:
        if self._browser is None:
            self._browser = BrowserFetcher(self.app.settings, self.http)
        return self._browser

    def submit(self, stream: ResultStream, requests: Iterable[FetchRequest]) -> None:
        batch = list(requests)
        plain = [r for r in batch if r.transport != "browser"]
        rendered = [r for r in batch if r.transport == "browser"]
        if plain:
            self.http.submit(stream, plain)
        if rendered:
            self.browser.submit(stream, rendered)

    def record(self, result: FetchResult, outcome: str) -> None:
        """A request made outside any board's poll (robots.txt), in crawl.fetch_attempts."""
        if self._conn is None:
            self._conn = self.app.db.connect(autocommit=True)
        self._conn.execute(INSERT_ATTEMPT, attempt_row(self.run_id, result, outcome))

    def __enter__(self) -> Transports:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._browser is not None:
            self._browser.close()
            self._browser = None
        self.http.close()
        self.robots.close()
        self.pacer.close()
        if self._conn is not None:
            self._conn.close()
            self._conn = None
