"""fetch: get each posting's own page where the listing is not enough.

Postings that are new, or whose listing row changed, are marked `needed` by
discover. Each page goes through the same per-host budget as listings (and the
browser for `transport: browser` sources), robots.txt where the source obeys it,
is validated (a block page is `blocked`, never content), stored raw, and becomes
the posting's content for the parse phase. A page our own limiter could not place
stays `needed` with nothing recorded against it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pipeline.app import App
from pipeline.config import SourceConfig
from pipeline.crawl import detail_store
from pipeline.crawl.http.fetcher import FetchRequest, FetchResult, ResultStream
from pipeline.crawl.http.transports import INSERT_ATTEMPT, Transports, attempt_rows
from pipeline.crawl.platforms import host_of, platform_of
from pipeline.crawl.validation import validate_body
from pipeline.db.connect import DictConnection
from pipeline.db.rows import DueDetail, Json, fetch_all
from pipeline.phases.common import PhaseReport, run_phase
from pipeline.phases.page_requests import paced, sort_by_robots
from pipeline.progress import Progress
from pipeline.rawstore import RawArchive

BATCH = 100
MAX_ATTEMPTS = 3


def fetch_details(
    app: App, source_name: str, *, limit: int | None = None, wait_s: float = 0.0
) -> PhaseReport:
    source = app.sources.get(source_name)
    platform = platform_of(source)

    def work(run_id: int) -> Mapping[str, Json]:
        outcomes: Counter[str] = Counter()
        done: list[int] = []
        with (
            app.archive() as archive,
            Transports(app, run_id) as transports,
            app.db.connect() as conn,
            Progress(f"fetch {source_name}", limit) as progress,
        ):
            while limit is None or len(done) < limit:
                batch_limit = BATCH if limit is None else min(BATCH, limit - len(done))
                todo = fetch_all(
                    conn,
                    DueDetail,
                    detail_store.DUE_DETAILS,
                    {
                        "source": source_name,
                        "done": done,
                        "max_attempts": MAX_ATTEMPTS,
                        "limit": batch_limit,
                    },
                )
                conn.commit()
                if not todo:
                    break
                done.extend(row.id for row in todo)
                stream = ResultStream()
                transports.submit(
                    stream, _allowed(todo, source, platform, transports, conn, outcomes)
                )
                while stream.pending:
                    result = stream.next()
                    assert result is not None
                    if result.deferred:
                        # Our own limiter: the posting stays `needed`, nothing is recorded.
                        outcomes["deferred"] += 1
                        continue
                    state, raw = _store(archive, source_name, source, result)
                    outcomes[state] += 1
                    _record(conn, run_id, result, state, raw)
                    progress.advance()
        return {"postings": len(done), "outcomes": dict(outcomes)}

    return run_phase(app.db, "fetch", source_name, work, wait_s=wait_s)


def _allowed(
    todo: list[DueDetail],
    source: SourceConfig,
    platform: Any,
    transports: Transports,
    conn: DictConnection,
    outcomes: Counter[str],
) -> list[FetchRequest]:
    """The requests robots.txt lets us send; disallowed pages are marked so, and pages
    whose robots.txt must wait stay `needed`."""
    requests = [paced(source, platform, FetchRequest(row.detail_url, tag=row)) for row in todo]
    sorted_ = sort_by_robots(requests, source, platform, transports)
    if sorted_.deferred:
        outcomes["deferred"] += sorted_.deferred
    for request, _ in sorted_.disallowed:
        outcomes["disallowed"] += 1
        with conn.transaction():
            conn.execute(detail_store.RECORD_DETAIL, _done(request.tag, "disallowed", None))
    return sorted_.allowed


def _record(
    conn: DictConnection, run_id: int, result: FetchResult, state: str, raw: str | None
) -> None:
    """The posting's detail state and every request behind it, together."""
    row: DueDetail = result.request.tag
    with conn.transaction():
        conn.execute(detail_store.RECORD_DETAIL, _done(row, state, raw))
        with conn.cursor() as cur:
            cur.executemany(
                INSERT_ATTEMPT,
                attempt_rows(
                    run_id, result, state, board_id=row.board_id, posting_id=row.id, raw=raw
                ),
            )


def _done(row: DueDetail, state: str, raw: str | None) -> dict[str, str | int | None]:
    return {
        "state": state,
        "raw": raw,
        "id": row.id,
        "row_hash": row.row_hash,
        "url": row.detail_url,
    }


def _store(
    archive: RawArchive, source_name: str, source: SourceConfig, result: FetchResult
) -> tuple[str, str | None]:
    """The posting's new detail state, and its stored page when there is one."""
    if result.status is None:
        return "failed", None
    row: DueDetail = result.request.tag
    if result.redirects and row.external_id not in result.final_url:
        # Sent to another page (a similar job, a search): not this posting's content.
        return "failed", None
    verdict = validate_body(result, source.validation, frozenset({host_of(result.request.url)}))
    if not verdict.ok:
        return ("blocked" if verdict.outcome == "blocked" else "failed"), None
    raw = archive.save(
        source_id=source_name,
        body=result.body,
        url=result.final_url,
        content_type=result.content_type,
        http_status=result.status,
    )
    return "fetched", raw.sha256
