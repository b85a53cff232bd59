"""check: the direct check that is the only way a posting closes.

Postings `missing` from two consecutive complete scans are requested one by one
(through the same fetcher and politeness as every other request). A conclusive
answer closes the posting with its evidence (`not_found` or `expired`); anything
ambiguous leaves it exactly as it was, to be checked again later.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import parsers
from parsers.types import DocumentKind, ParseOutcome, RawDocument
from pipeline.app import App
from pipeline.config import SourceConfig
from pipeline.crawl.http.fetcher import FetchRequest, FetchResult, ResultStream
from pipeline.crawl.http.transports import INSERT_ATTEMPT, Transports, attempt_rows
from pipeline.crawl.platforms import Platform, platform_of
from pipeline.db.connect import DictConnection
from pipeline.db.rows import DueCheck, Json, fetch_all
from pipeline.lifecycle.check_rules import CheckedResponse, CheckVerdict, judge
from pipeline.lifecycle.check_store import DUE_CHECKS
from pipeline.lifecycle.store import record_check
from pipeline.phases.common import PhaseReport, run_phase
from pipeline.phases.page_requests import paced, sort_by_robots
from pipeline.progress import Progress
from pipeline.rawstore import RawArchive
from pipeline.testhooks import kill_point

BATCH = 100
RECHECK_AFTER_S = 6 * 60 * 60
# Postings of boards whose listing went empty, asked per source and run at most: an
# outage that empties a large board must not become a run of thousands of checks (the
# oldest checked first; the rest come with the next runs).
EMPTIED_PER_RUN = 200


def check_postings(
    app: App,
    source_name: str,
    *,
    limit: int | None = None,
    recheck_after_s: float = RECHECK_AFTER_S,
    wait_s: float = 0.0,
    ids: Sequence[int] = (),
    statuses: Sequence[str] = ("missing",),
    emptied_per_run: int = EMPTIED_PER_RUN,
    progress_lines: bool = True,
) -> PhaseReport:
    """`ids` and `statuses` narrow the work to a backfill's selection (by default: every
    missing posting due for a check). `progress_lines` False: the caller reports progress."""
    source = app.sources.get(source_name)
    platform = platform_of(source)
    parser = app.parser_for(source_name)

    def work(run_id: int) -> Mapping[str, Json]:
        outcomes: Counter[str] = Counter()
        reasons: Counter[str] = Counter()
        done: list[int] = []
        emptied = 0  # postings asked because their board's listing went empty
        with (
            app.archive() as archive,
            Transports(app, run_id) as transports,
            app.db.connect() as conn,
            Progress(f"check {source_name}", limit, enabled=progress_lines) as progress,
        ):
            while limit is None or len(done) < limit:
                batch, more = _batch(limit, len(done), 0 if ids else emptied_per_run - emptied)
                todo = _due(conn, source_name, done, ids, statuses, recheck_after_s, batch, more)
                conn.commit()
                if not todo:
                    break
                done.extend(row.id for row in todo)
                emptied += sum(1 for row in todo if row.status not in statuses)
                requests = [paced(source, platform, platform.check_request(row)) for row in todo]
                stream = ResultStream()
                transports.submit(
                    stream, _allowed(requests, source, platform, transports, outcomes)
                )
                while stream.pending:
                    result = stream.next()
                    assert result is not None
                    if result.deferred:
                        outcomes["deferred"] += 1  # our own limiter: checked on a later run
                        continue
                    verdict = _judge(archive, source_name, parser, platform, result)
                    closed = _record(conn, run_id, result, verdict)
                    kill_point("check:mid_batch")
                    outcomes["closed" if closed else verdict.outcome] += 1
                    reasons[verdict.reason] += 1
                    progress.advance()
        return {"checked": len(done), "outcomes": dict(outcomes), "reasons": dict(reasons)}

    return run_phase(app.db, "check", source_name, work, wait_s=wait_s)


def _allowed(
    requests: list[FetchRequest],
    source: SourceConfig,
    platform: Platform,
    transports: Transports,
    outcomes: Counter[str],
) -> list[FetchRequest]:
    """The requests robots.txt allows; the others are counted, never judged: robots.txt
    forbidding (or not yet answering) proves nothing about a posting."""
    sorted_ = sort_by_robots(requests, source, platform, transports)
    if sorted_.deferred:
        outcomes["deferred"] += sorted_.deferred
    if sorted_.disallowed:
        outcomes["disallowed"] += len(sorted_.disallowed)
    return sorted_.allowed


def _batch(limit: int | None, done: int, emptied_room: int) -> tuple[int, bool]:
    """The next batch's size (BATCH, within the run's limit) and whether emptied boards'
    postings may join it: while they may, no more than the room left for them, so their
    bound is exact."""
    batch = BATCH if limit is None else min(BATCH, limit - done)
    return (min(batch, emptied_room), True) if emptied_room > 0 else (batch, False)


def _due(
    conn: DictConnection,
    source_name: str,
    done: list[int],
    ids: Sequence[int],
    statuses: Sequence[str],
    recheck_after_s: float,
    batch: int,
    emptied: bool,
) -> list[DueCheck]:
    """The next postings due a direct check (not yet done in this run); with `emptied`,
    the active postings of boards whose listing went empty too."""
    params = {
        "source": source_name,
        "done": done,
        "ids": list(ids),
        "statuses": list(statuses),
        "recheck_s": recheck_after_s,
        # A selection of ids (a backfill) is exactly that; otherwise the active postings
        # of boards whose listing went empty are asked too (check_store.DUE_CHECKS), up
        # to the run's bound.
        "emptied": emptied and not ids,
        "limit": batch,
    }
    return fetch_all(conn, DueCheck, DUE_CHECKS, params)


def _judge(
    archive: RawArchive,
    source_name: str,
    parser: parsers.Parser,
    platform: Any,
    result: FetchResult,
) -> CheckVerdict:
    row: DueCheck = result.request.tag
    raw = _keep_body(archive, source_name, result)
    verdict = judge(
        CheckedResponse(
            result.request.url,
            result.final_url,
            result.status,
            result.body,
            result.redirects,
            result.error,
        ),
        external_id=row.external_id,
        title=row.title,
        parsed=_parse(parser, result) if result.ok else None,
        closed_flag=platform.closed_flag,
    )
    return CheckVerdict(verdict.outcome, verdict.reason, {**verdict.evidence, "raw_sha256": raw})


def _keep_body(archive: RawArchive, source_name: str, result: FetchResult) -> str | None:
    """The checked page is evidence: stored raw like every other response."""
    if result.status is None or not result.body:
        return None
    return archive.save(
        source_id=source_name,
        body=result.body,
        url=result.final_url,
        content_type=result.content_type,
        http_status=result.status,
    ).sha256


def _parse(parser: parsers.Parser, result: FetchResult) -> ParseOutcome | None:
    doc = RawDocument(
        body=result.body,
        url=result.final_url,
        kind=DocumentKind.DETAIL,
        content_type=result.content_type,
        status=result.status,
    )
    for candidate in (parser, parsers.REGISTRY.get("jsonld")):
        try:
            outcome = candidate.parse(doc)
        except Exception:  # a parser bug must not turn into a verdict
            continue
        if outcome.postings or outcome.signal.value != "normal":
            return outcome
    return None


def _record(conn: DictConnection, run_id: int, result: FetchResult, verdict: CheckVerdict) -> bool:
    """Write the check and every request behind it; True when it closed the posting."""
    row: DueCheck = result.request.tag
    evidence = {**verdict.evidence, "reason": verdict.reason, "run_id": run_id}
    with conn.transaction():
        with conn.cursor() as cur:
            cur.executemany(
                INSERT_ATTEMPT,
                attempt_rows(
                    run_id,
                    result,
                    f"check_{verdict.outcome}",
                    board_id=row.board_id,
                    posting_id=row.id,
                    raw=verdict.evidence.get("raw_sha256"),
                ),
            )
        return record_check(conn, row.id, verdict, evidence, run_id=run_id, from_status=row.status)
