"""What the lifecycle rules store: posting statuses and core.posting_events.

Nothing is ever deleted. The decisions (what counts as absence, when a posting
becomes `missing`, which title rules filter) are pure functions in
pipeline.lifecycle.rules; this module reads the rows they need and records
their verdicts.

`missing_count = 0` on an open posting means "in its board's last complete
listing": a 304 (or an unchanged listing) repeats that listing, so it confirms
exactly those postings, and reopens the `missing` ones among them (a board that
left sources.yaml and came back unchanged).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict

from pipeline.db.connect import DictConnection
from pipeline.db.rows import Json, Orphan, PostingState, fetch_all
from pipeline.lifecycle.check_rules import CheckVerdict
from pipeline.lifecycle.rules import (
    NEW_BASELINE,
    OPEN_STATUSES,
    PROVES_NOTHING,
    LifecycleCounts,
    PostingEvent,
    ScanFacts,
    absence_event,
    absence_verdict,
    becomes_missing,
    check_event,
    filter_event,
    open_on_board,
    orphan_event,
    reopen_event,
    sort_present,
)

_EVENT = """
INSERT INTO core.posting_events (posting_id, from_status, to_status, reason, evidence, run_id, scan_id)
VALUES (%(posting_id)s, %(from_status)s, %(to_status)s, %(reason)s, %(evidence)s::jsonb, %(run_id)s, %(scan_id)s)
"""

_REOPEN = """UPDATE core.postings SET status = 'active', missing_count = 0, closed_at = NULL,
               close_reason = NULL, status_changed_at = now(), updated_at = now()
           WHERE id = ANY(%s)"""
_COUNT_ABSENCE = "UPDATE core.postings SET missing_count = missing_count + 1, updated_at = now() WHERE id = ANY(%s)"
_MARK_MISSING = """UPDATE core.postings SET status = 'missing', status_changed_at = now(), updated_at = now()
           WHERE id = ANY(%s)"""
_MARK_FILTERED = """UPDATE core.postings SET status = 'filtered', status_changed_at = now(), updated_at = now()
           WHERE id = ANY(%s)"""
# Active ones start the new baseline; a missing one absent from it is not listed.
_NEW_BASELINE = """UPDATE core.postings SET missing_count = CASE WHEN status = 'active' THEN 0
                   WHEN external_id = ANY(%s) THEN 0 ELSE GREATEST(missing_count, 1) END
               WHERE id = ANY(%s)"""
_SEEN_AGAIN = """UPDATE core.postings SET last_seen_at = now(), last_seen_scan_id = %s
           WHERE board_id = %s AND status = ANY(%s) AND missing_count = 0"""
_LISTED_MISSING = """SELECT id, external_id, status, missing_count, board_id FROM core.postings
           WHERE board_id = %s AND status = 'missing' AND missing_count = 0"""
_STILL_ABSENT = """SELECT id, external_id, status, missing_count, board_id FROM core.postings
           WHERE board_id = %s AND status = ANY(%s) AND missing_count > 0"""
# Postings a repeat of the board's last complete listing must move: active ones absent
# from it (one more absence) and missing ones in it (reopened).
_PENDING = """(SELECT count(*) FROM core.postings AS p
    WHERE p.board_id = crawl.boards.id AND ((p.status = 'active' AND p.missing_count > 0)
        OR (p.status = 'missing' AND p.missing_count = 0)))"""
_PENDING_ABSENCES = (
    "UPDATE crawl.boards SET pending_absences = " + _PENDING + " WHERE id = %(board)s"
)
_PENDING_ABSENCES_OF = (
    "UPDATE crawl.boards SET pending_absences = " + _PENDING + " WHERE id = ANY(%s)"
)

# A direct check's verdict: conclusive evidence closes a posting still missing;
# anything else only notes that it was checked.
_CLOSE = """
UPDATE core.postings SET status = %(status)s, closed_at = now(), close_reason = %(reason)s,
    close_evidence = %(evidence)s::jsonb, status_changed_at = now(), last_checked_at = now(),
    check_outcome = %(outcome)s, check_count = check_count + 1, updated_at = now()
WHERE id = %(id)s AND status = %(from_status)s
RETURNING id
"""

_NOTE = """
UPDATE core.postings SET last_checked_at = now(), check_outcome = %(outcome)s,
    check_count = check_count + 1, updated_at = now()
WHERE id = %(id)s
"""


def record_events(conn: DictConnection, events: Iterable[PostingEvent]) -> int:
    rows = [{**asdict(e), "evidence": json.dumps(e.evidence, default=str)} for e in events]
    if rows:
        with conn.cursor() as cur:
            cur.executemany(_EVENT, rows)
    return len(rows)


def reopen(
    conn: DictConnection,
    postings: Sequence[PostingState],
    *,
    run_id: int,
    scan_id: int,
    via: str = "listing",
) -> int:
    """Postings not active but seen again in a listing (`via` a fresh one, or a 304 /
    unchanged body repeating the last complete one): active again, recorded."""
    reopened = [p for p in postings if p.status != "active"]
    if not reopened:
        return 0
    conn.execute(_REOPEN, ([p.id for p in reopened],))
    return record_events(
        conn, (reopen_event(p, run_id=run_id, scan_id=scan_id, via=via) for p in reopened)
    )


def _count_absences(
    conn: DictConnection,
    absent: Sequence[PostingState],
    *,
    run_id: int,
    scan_id: int,
) -> int:
    """One more complete scan without these postings; the second one marks them missing.

    Returns how many became `missing`. Call only for complete, non-empty scans.
    """
    if not absent:
        return 0
    conn.execute(_COUNT_ABSENCE, ([p.id for p in absent],))
    now_missing = [p for p in absent if becomes_missing(p)]
    if not now_missing:
        return 0
    conn.execute(_MARK_MISSING, ([p.id for p in now_missing],))
    return record_events(
        conn, (absence_event(p, run_id=run_id, scan_id=scan_id) for p in now_missing)
    )


_PRESENT_AND_BOARD = """
SELECT id, external_id, status, missing_count, board_id
FROM core.postings
WHERE source_id = %(source)s AND (board_id = %(board)s OR external_id = ANY(%(ids)s))
"""


def apply_listing(conn: DictConnection, facts: ScanFacts) -> LifecycleCounts:
    counts = _apply_listing(conn, facts)
    refresh_pending_absences(conn, facts.board_id)
    return counts


def _apply_listing(conn: DictConnection, facts: ScanFacts) -> LifecycleCounts:
    """Move statuses on the evidence of one listing read (call after the upsert).

    Present postings are active again (or `filtered` when a title rule excludes
    them). Absences count only for complete, untruncated scans of an unchanged
    scope; a changed scope sets a new baseline instead of retiring anything.
    """
    rows = fetch_all(
        conn,
        PostingState,
        _PRESENT_AND_BOARD,
        {"source": facts.source_id, "board": facts.board_id, "ids": list(facts.present)},
    )
    present = [r for r in rows if r.external_id in facts.present]
    to_filter, to_reopen = sort_present(present, facts)
    filtered = _filter(conn, to_filter, facts)
    reopened = reopen(conn, to_reopen, run_id=facts.run_id, scan_id=facts.scan_id)
    verdict = absence_verdict(facts)
    if verdict == PROVES_NOTHING:
        return LifecycleCounts(reopened, 0, filtered)
    on_board = open_on_board(rows, facts.board_id)
    if verdict == NEW_BASELINE:
        conn.execute(_NEW_BASELINE, (list(facts.present), [r.id for r in on_board]))
        return LifecycleCounts(reopened, 0, filtered, new_baseline=True)
    absent = [r for r in on_board if r.external_id not in facts.present]
    missing = _count_absences(conn, absent, run_id=facts.run_id, scan_id=facts.scan_id)
    return LifecycleCounts(reopened, missing, filtered)


def _filter(conn: DictConnection, rows: list[tuple[PostingState, str]], facts: ScanFacts) -> int:
    if not rows:
        return 0
    conn.execute(_MARK_FILTERED, ([row.id for row, _ in rows],))
    return record_events(conn, (filter_event(row, pattern, facts) for row, pattern in rows))


def apply_not_modified(
    conn: DictConnection, board_id: int, *, scan_id: int, run_id: int, count_absences: bool = True
) -> int:
    """A 304 repeats the last complete listing: its postings are seen again, and
    those absent from it (missing_count >= 1) count one more absence (unless the
    board's scope changed since: then the 304 answers another question). Returns
    how many became `missing`."""
    conn.execute(_SEEN_AGAIN, (scan_id, board_id, list(OPEN_STATUSES)))
    listed_missing = fetch_all(conn, PostingState, _LISTED_MISSING, (board_id,))
    reopen(conn, listed_missing, run_id=run_id, scan_id=scan_id, via="not_modified")
    if not count_absences:
        refresh_pending_absences(conn, board_id)
        return 0
    absent = fetch_all(conn, PostingState, _STILL_ABSENT, (board_id, list(OPEN_STATUSES)))
    missing = _count_absences(conn, absent, run_id=run_id, scan_id=scan_id)
    refresh_pending_absences(conn, board_id)
    return missing


def refresh_pending_absences(conn: DictConnection, board_id: int) -> None:
    """How many postings of the board a repeat of its last complete listing must move
    (see `_PENDING`). Discover reads it from the claimed board to know, for free,
    whether a 304 must take the per-board path or can be recorded in a batch."""
    conn.execute(_PENDING_ABSENCES, {"board": board_id})


_ORPHANS = """
WITH orphans AS (
    SELECT p.id, CASE WHEN b.state = 'retired' THEN 'board_retired' ELSE 'board_disabled' END AS reason,
           b.board_key, b.state_reason
    FROM core.postings AS p
    JOIN crawl.boards AS b ON b.id = p.board_id
    WHERE p.status = 'active' AND (b.state = 'retired' OR NOT b.enabled)
      AND (%(source)s::text IS NULL OR p.source_id = %(source)s)
    FOR UPDATE OF p
)
UPDATE core.postings AS p
SET status = 'missing', status_changed_at = now(), updated_at = now()
FROM orphans AS o
WHERE p.id = o.id
RETURNING p.id, p.board_id, o.reason, o.board_key, o.state_reason
"""


def strand_orphans(conn: DictConnection, source_id: str | None, *, run_id: int) -> int:
    """Active postings of boards that are retired (the listing answers 404) or no longer
    configured are never scanned again, so no scan can ever show them gone or present:
    they become `missing`, and the direct check decides each one on its own evidence
    (or the board, configured again, lists them again)."""
    # missing_count is left alone: it still says whether each posting was in the board's
    # last complete listing, so a board that comes back answering 304 reopens them.
    rows = fetch_all(conn, Orphan, _ORPHANS, {"source": source_id})
    boards = sorted({row.board_id for row in rows})
    if boards:
        conn.execute(_PENDING_ABSENCES_OF, (boards,))
    return record_events(conn, (orphan_event(row, run_id=run_id) for row in rows))


def record_check(
    conn: DictConnection,
    posting_id: int,
    verdict: CheckVerdict,
    evidence: Mapping[str, Json],
    *,
    run_id: int,
    from_status: str = "missing",
) -> bool:
    """Record a direct check of a posting (`missing`, or one a check backfill selected);
    True when its evidence closed it. The close is guarded by the status it was read
    with: a posting that moved meanwhile keeps the newer evidence."""
    if not verdict.conclusive:
        conn.execute(_NOTE, {"id": posting_id, "outcome": verdict.outcome})
        return False
    closed = conn.execute(
        _CLOSE,
        {
            "id": posting_id,
            "from_status": from_status,
            "status": verdict.outcome,
            "reason": verdict.reason,
            "evidence": json.dumps(evidence, default=str),
            "outcome": verdict.outcome,
        },
    ).fetchone()
    if closed is None:  # seen again meanwhile: the newer evidence stands
        return False
    record_events(
        conn,
        [check_event(posting_id, verdict, evidence, run_id=run_id, from_status=from_status)],
    )
    return True
