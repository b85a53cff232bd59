"""What a board's poll stores in crawl.*: the board's schedule and validators (which
also releases its lease), its scan, and every request it made (fetch attempts).

Statements are built once at import from constant column lists only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TypedDict

from pipeline.crawl.http.transports import AttemptValues
from pipeline.db.connect import DictConnection
from pipeline.lifecycle.rules import EMPTY_SCANS_BEFORE_SUSPECT


class ScanValues(TypedDict):
    """A poll's crawl.scans row, as INSERT_SCAN (and RECORD_QUIET) name its parameters."""

    board_id: int
    outcome: str
    complete: bool
    truncated: bool
    pages: int
    items: int
    total: int | None
    status: int | None
    raw: str | None
    error: str | None
    issues: str  # JSON text
    probe: bool
    confirm: bool  # a repeat of the last complete listing: its postings are seen again
    scope: str | None


class BoardValues(ScanValues):
    """What a poll moves on its board (RELEASE_BOARD, RECORD_QUIET), with its scan."""

    id: int
    due_at: datetime
    interval_s: int
    quiet: int
    state: str
    reason: str | None
    failures: int
    not_found: int
    rate_polls: float
    rate_changes: float
    rate_seen_s: float
    etag: str | None
    last_modified: str | None
    body_hash: str | None
    listing_hash: str | None
    item_count: int | None
    changed: bool
    full_pass: bool


def as_columns(
    rows: Sequence[Mapping[str, object]], columns: tuple[str, ...]
) -> dict[str, list[object]]:
    """Rows of named values as one list per column (for unnest): any TypedDict above."""
    return {name: [row[name] for row in rows] for name in columns}


def as_json(rows: Sequence[BoardValues] | Sequence[AttemptValues]) -> str:
    """Rows of named values as one JSON array, for jsonb_to_recordset. A batch goes
    over as one text value: psycopg would dump one array per column element by
    element in Python, which on a pass of quiet boards was most of a worker's time
    spent writing."""
    return json.dumps(rows, default=_json_value, separators=(",", ":"))


def _json_value(value: object) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"no JSON form for {type(value).__name__} in a crawl row")


def insert_attempts(conn: DictConnection, run_id: int, rows: Sequence[AttemptValues]) -> None:
    if rows:
        conn.execute(INSERT_ATTEMPTS, {"run_id": run_id, "attempts": as_json(rows)})


# The requests of a batch (%(attempts)s, AttemptValues rows as JSON; the keys the
# columns do not name are ignored), each as a crawl.fetch_attempts row of %(run_id)s.
ATTEMPTS_FROM = """
SELECT %(run_id)s::bigint, t.* FROM jsonb_to_recordset(%(attempts)s::jsonb) AS t(
    board_id bigint, url text, host text, method text, transport text, status int,
    outcome text, bytes bigint, elapsed int, raw text, error text)
"""

ATTEMPT_TARGET = """crawl.fetch_attempts (run_id, board_id, url, host, method, transport,
    http_status, outcome, byte_length, elapsed_ms, raw_sha256, error)"""

INSERT_ATTEMPTS = f"INSERT INTO {ATTEMPT_TARGET} {ATTEMPTS_FROM}"


# Many boards that wrote no postings, each still atomic: its lease release, next due
# time, scan and (for 304 / unchanged) the confirmation of its postings land together
# in one statement, and a board whose lease another worker took over writes nothing
# but the requests it made.
def lifecycle_board_set(value: Callable[[str], str]) -> str:
    """Board columns a scan moves for lifecycle: complete empty listings in a row (a
    streak flags the board `suspect` for the operator; nothing is retired) and the
    scope a complete listing covered (a new scope is a new baseline). `value` names
    the scan's input (a column of the batch, or a query parameter)."""
    empty = f"{value('complete')} AND {value('outcome')} = 'empty'"
    listed = f"{value('outcome')} IN ('changed', 'unchanged', 'not_modified')"
    return f"""empty_streak = CASE WHEN {empty} THEN empty_streak + 1
                        WHEN {listed} THEN 0 ELSE empty_streak END,
    suspect_since = CASE
        WHEN {empty} AND empty_streak + 1 >= {EMPTY_SCANS_BEFORE_SUSPECT}
            THEN COALESCE(suspect_since, now())
        WHEN {listed} THEN NULL ELSE suspect_since END,
    scope_hash = CASE WHEN {value("full_pass")} THEN {value("scope")} ELSE scope_hash END"""


RECORD_QUIET = f"""
WITH input AS (
    -- %(boards)s: the batch's BoardValues rows as JSON.
    SELECT * FROM jsonb_to_recordset(%(boards)s::jsonb) AS t(
        id bigint, due_at timestamptz, interval_s int, quiet int, state text, reason text,
        failures int, not_found int, etag text, last_modified text, body_hash text,
        listing_hash text, item_count int, changed bool, full_pass bool, outcome text,
        complete bool, truncated bool, pages int, items int, total int, status int, raw text,
        error text, issues text, probe bool, confirm bool, scope text, rate_polls float8,
        rate_changes float8, rate_seen_s float8)
), released AS (
    UPDATE crawl.boards AS b SET
        lease_owner = NULL, lease_expires_at = NULL, last_polled_at = now(), updated_at = now(),
        due_at = i.due_at, interval_s = i.interval_s, quiet_passes = i.quiet, state = i.state,
        state_reason = i.reason, consecutive_failures = i.failures, consecutive_404s = i.not_found,
        etag = i.etag, last_modified = i.last_modified, body_hash = i.body_hash,
        listing_hash = i.listing_hash, item_count = i.item_count, rate_polls = i.rate_polls,
        rate_changes = i.rate_changes, rate_seen_s = i.rate_seen_s,
        last_changed_at = CASE WHEN i.changed THEN now() ELSE b.last_changed_at END,
        last_full_pass_at = CASE WHEN i.full_pass THEN now() ELSE b.last_full_pass_at END,
        {lifecycle_board_set(lambda name: f"i.{name}")}
    FROM input AS i
    WHERE b.id = i.id AND b.lease_owner = %(owner)s
    RETURNING b.id, b.suspect_since
), scans AS (
    INSERT INTO crawl.scans (run_id, board_id, outcome, complete, truncated, pages, items_seen,
        total_reported, http_status, raw_sha256, error, issues, probe, scope_hash, finished_at)
    SELECT %(run_id)s, i.id, i.outcome, i.complete, i.truncated, i.pages, i.items, i.total,
        i.status, i.raw, i.error, i.issues::jsonb, i.probe, i.scope, now()
    FROM input AS i JOIN released AS r ON r.id = i.id
    RETURNING id, board_id
), seen AS (
    -- A 304 (or an unchanged body) says the listing is exactly as last read: its
    -- postings are still there.
    UPDATE core.postings AS p SET last_seen_at = now(), last_seen_scan_id = s.id
    FROM scans AS s JOIN input AS i ON i.id = s.board_id
    WHERE i.confirm AND p.board_id = s.board_id AND p.status = 'active' AND p.missing_count = 0
    RETURNING p.id
), attempts AS (
    INSERT INTO {ATTEMPT_TARGET} {ATTEMPTS_FROM}
    RETURNING id
)
SELECT (SELECT count(*) FROM released) AS released, (SELECT count(*) FROM seen) AS seen,
       (SELECT count(*) FROM released WHERE suspect_since IS NOT NULL) AS suspect,
       (SELECT count(*) FROM attempts) AS attempts
"""

RELEASE_BOARD = f"""
UPDATE crawl.boards SET
    lease_owner = NULL, lease_expires_at = NULL, last_polled_at = now(), updated_at = now(),
    due_at = %(due_at)s, interval_s = %(interval_s)s, quiet_passes = %(quiet)s, state = %(state)s,
    state_reason = %(reason)s, consecutive_failures = %(failures)s,
    consecutive_404s = %(not_found)s, etag = %(etag)s, last_modified = %(last_modified)s,
    body_hash = %(body_hash)s, listing_hash = %(listing_hash)s, item_count = %(item_count)s,
    rate_polls = %(rate_polls)s, rate_changes = %(rate_changes)s, rate_seen_s = %(rate_seen_s)s,
    last_changed_at = CASE WHEN %(changed)s THEN now() ELSE last_changed_at END,
    last_full_pass_at = CASE WHEN %(full_pass)s THEN now() ELSE last_full_pass_at END,
    {lifecycle_board_set(lambda name: f"%({name})s")}
WHERE id = %(id)s AND lease_owner = %(owner)s
RETURNING suspect_since
"""

INSERT_SCAN = """
INSERT INTO crawl.scans (run_id, board_id, outcome, complete, truncated, pages, items_seen,
    total_reported, http_status, raw_sha256, error, issues, probe, scope_hash, finished_at)
VALUES (%(run_id)s, %(board_id)s, %(outcome)s, %(complete)s, %(truncated)s, %(pages)s, %(items)s,
    %(total)s, %(status)s, %(raw)s, %(error)s, %(issues)s::jsonb, %(probe)s, %(scope)s, now())
RETURNING id
"""

# The board's stored listing is gone or corrupt: its next poll reads it in full again.
FORGET_VALIDATORS = """
UPDATE crawl.boards SET etag = NULL, last_modified = NULL, body_hash = NULL WHERE id = %s
"""


# A board whose format fell back, or returned to a better one (pipeline.phases.fallback),
# and answered in the new one: it is read there from now on, and its return probe is a
# week away again. Only while this worker still holds its lease.
SWITCH_FORMAT = """
UPDATE crawl.boards
SET url = %(url)s, host = %(host)s, lane = %(lane)s, format = %(format)s,
    format_chosen_at = now(), updated_at = now()
WHERE id = %(id)s AND lease_owner = %(owner)s
"""

# A return probe found no listing in the better format: the board keeps its format, and
# its next probe is a week away (a failure that may pass is asked again then, not on
# every poll).
KEEP_FORMAT = """
UPDATE crawl.boards SET format_chosen_at = now() WHERE id = %(id)s AND lease_owner = %(owner)s
"""
