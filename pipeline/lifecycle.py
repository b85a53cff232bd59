"""Evidence rules that move a posting's status. Nothing is ever deleted.

Absence is not evidence: only complete scans count, a posting must be absent
from two consecutive complete scans to become `missing`, and closing needs a
direct check of the posting itself (the check phase). A posting seen again in
any scan returns to `active`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pipeline.db.connect import DictConnection

MISSING_AFTER_SCANS = 2
OPEN_STATUSES = ("active", "missing")

_EVENT = """
INSERT INTO core.posting_events (posting_id, from_status, to_status, reason, evidence, run_id, scan_id)
VALUES (%(posting_id)s, %(from_status)s, %(to_status)s, %(reason)s, %(evidence)s::jsonb, %(run_id)s, %(scan_id)s)
"""


def record_events(conn: DictConnection, events: Iterable[Mapping[str, Any]]) -> int:
    rows = [{**e, "evidence": json.dumps(e.get("evidence") or {}, default=str)} for e in events]
    if rows:
        with conn.cursor() as cur:
            cur.executemany(_EVENT, rows)
    return len(rows)


def reopen(
    conn: DictConnection, postings: list[Mapping[str, Any]], *, run_id: int, scan_id: int
) -> int:
    """Postings not active but seen again in a listing: active again, recorded."""
    reopened = [p for p in postings if p["status"] != "active"]
    if not reopened:
        return 0
    conn.execute(
        """UPDATE core.postings SET status = 'active', missing_count = 0, closed_at = NULL,
               close_reason = NULL, status_changed_at = now(), updated_at = now()
           WHERE id = ANY(%s)""",
        ([p["id"] for p in reopened],),
    )
    return record_events(
        conn,
        (
            {
                "posting_id": p["id"],
                "from_status": p["status"],
                "to_status": "active",
                "reason": "seen_again",
                "evidence": {"scan_id": scan_id},
                "run_id": run_id,
                "scan_id": scan_id,
            }
            for p in reopened
        ),
    )


def count_absences(
    conn: DictConnection,
    absent: list[Mapping[str, Any]],
    *,
    run_id: int,
    scan_id: int,
) -> int:
    """One more complete scan without these postings; the second one marks them missing.

    Returns how many became `missing`. Call only for complete, non-empty scans.
    """
    if not absent:
        return 0
    conn.execute(
        "UPDATE core.postings SET missing_count = missing_count + 1, updated_at = now() WHERE id = ANY(%s)",
        ([p["id"] for p in absent],),
    )
    now_missing = [
        p
        for p in absent
        if p["status"] == "active" and p["missing_count"] + 1 >= MISSING_AFTER_SCANS
    ]
    if not now_missing:
        return 0
    conn.execute(
        """UPDATE core.postings SET status = 'missing', status_changed_at = now(), updated_at = now()
           WHERE id = ANY(%s)""",
        ([p["id"] for p in now_missing],),
    )
    return record_events(
        conn,
        (
            {
                "posting_id": p["id"],
                "from_status": "active",
                "to_status": "missing",
                "reason": f"absent_from_{MISSING_AFTER_SCANS}_complete_scans",
                "evidence": {"scan_id": scan_id, "missing_count": p["missing_count"] + 1},
                "run_id": run_id,
                "scan_id": scan_id,
            }
            for p in now_missing
        ),
    )
