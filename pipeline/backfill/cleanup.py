"""Raw cleanup: delete raw objects nothing needs any more, dry-run by default.

Protected, whatever their age:
- raw objects of `active` or `missing` postings (their content or listing: the input of
  their current parse) and the input of any current result of such a posting;
- anything unparsed (a posting's content with no result on it yet), `pending` uploads
  (only `ready` objects are considered) and every object of a source whose parse is
  running right now (a `running` row whose parse lock is held: a parse killed mid-run
  leaves its row `running`, and the lock went with its connection);
- anything fetched less than `raw_retention_days` ago;
- the newest listing raw of each board (its latest scan's response).
What is left is eligible, with a reason: `closed_posting` (the content or listing of
postings that are closed now), `superseded` (an older content some result was parsed
from) or `unreferenced` (nothing points at it, e.g. an old listing page).

Deleting one object: record the intent (state_reason `deleting: ...`, committed, and
only while the object is still eligible: the UPDATE re-checks it), verify length and
SHA-256, delete through the RawStore, mark `deleted` with the reason.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from pipeline.app import App
from pipeline.backfill.readonly import read_only
from pipeline.db.connect import DictConnection, lock_key
from pipeline.phases.common import PhaseReport, run_phase
from pipeline.progress import Progress
from pipeline.rawstore.base import RawStore
from pipeline.testhooks import kill_point

BATCH = 200
_MISSING = "object is missing from the store"
_OPEN = "('active', 'missing')"
_ELIGIBLE = f"""
ro.state = 'ready'
AND ro.fetched_at < now() - make_interval(secs => %(retention_s)s)
AND (%(source)s::text IS NULL OR ro.source_id = %(source)s)
AND NOT EXISTS (SELECT 1 FROM crawl.runs AS run WHERE run.phase = 'parse'
                AND run.status = 'running' AND run.source_id = ro.source_id
                AND EXISTS (SELECT 1 FROM pg_locks AS l WHERE l.locktype = 'advisory'
                            AND l.granted AND l.objsubid = 1
                            AND ((l.classid::bigint << 32) | l.objid::bigint)
                                = hashtextextended(%(parse_lock)s || ro.source_id, 0)))
AND NOT EXISTS (SELECT 1 FROM core.postings AS p WHERE p.status IN {_OPEN}
                AND (p.content_raw_sha256 = ro.sha256 OR p.listing_raw_sha256 = ro.sha256))
AND NOT EXISTS (SELECT 1 FROM core.parse_results AS r JOIN core.postings AS p ON p.id = r.posting_id
                WHERE r.is_current AND r.raw_sha256 = ro.sha256 AND p.status IN {_OPEN})
AND NOT EXISTS (SELECT 1 FROM core.postings AS p WHERE p.content_raw_sha256 = ro.sha256
                AND NOT EXISTS (SELECT 1 FROM core.parse_results AS r
                                WHERE r.posting_id = p.id AND r.raw_sha256 = ro.sha256))
AND NOT EXISTS (SELECT 1 FROM (SELECT DISTINCT ON (s.board_id) s.raw_sha256 FROM crawl.scans AS s
                               WHERE s.raw_sha256 IS NOT NULL ORDER BY s.board_id, s.id DESC) AS n
                WHERE n.raw_sha256 = ro.sha256)
"""
_REASON = """
CASE WHEN EXISTS (SELECT 1 FROM core.postings AS p
                  WHERE p.content_raw_sha256 = ro.sha256 OR p.listing_raw_sha256 = ro.sha256)
     THEN 'closed_posting'
     WHEN EXISTS (SELECT 1 FROM core.parse_results AS r WHERE r.raw_sha256 = ro.sha256)
     THEN 'superseded'
     ELSE 'unreferenced' END
"""
_SELECT = f"""
SELECT ro.sha256, ro.object_key, ro.byte_length, ro.source_id, ro.state_reason,
       {_REASON} AS reason
FROM crawl.raw_objects AS ro WHERE {_ELIGIBLE}
ORDER BY ro.source_id, ro.fetched_at, ro.sha256
LIMIT %(limit)s
"""
_INTENT = f"""
UPDATE crawl.raw_objects AS ro SET state_reason = 'deleting: ' || %(reason)s, updated_at = now()
WHERE ro.sha256 = %(sha256)s AND {_ELIGIBLE}
RETURNING ro.sha256
"""
_MARK = """
UPDATE crawl.raw_objects SET state = %(state)s, state_reason = %(reason)s, updated_at = now()
WHERE sha256 = %(sha256)s
"""


@dataclass(frozen=True)
class CleanupReport:
    dry_run: bool
    by_source: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    by_reason: Mapping[str, int] = field(default_factory=dict)
    skipped: Mapping[str, int] = field(default_factory=dict)  # not deleted after all, why

    @property
    def objects(self) -> int:
        return sum(v["objects"] for v in self.by_source.values())

    @property
    def bytes(self) -> int:
        return sum(v["bytes"] for v in self.by_source.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "objects": self.objects,
            "bytes": self.bytes,
            "by_source": {k: dict(v) for k, v in self.by_source.items()},
            "by_reason": dict(self.by_reason),
            "skipped": dict(self.skipped),
        }

    def summary(self) -> str:
        verb = "would free" if self.dry_run else "freed"
        lines = [f"raw cleanup {verb} {self.objects} objects, {self.bytes} bytes"]
        lines += [
            f"  {source:<20} {v['objects']:>7} objects {v['bytes']:>12} bytes"
            for source, v in sorted(self.by_source.items())
        ]
        if self.skipped:
            lines.append("  not deleted: " + ", ".join(f"{k}={v}" for k, v in self.skipped.items()))
        return "\n".join(lines)


def _params(app: App, source: str | None, limit: int) -> dict[str, Any]:
    return {
        "retention_s": app.settings.raw_retention_days * 86400,
        "source": source,
        "limit": limit,
        "parse_lock": lock_key("parse", ""),  # the parse lock's key, less the source
    }


def plan_cleanup(app: App, *, source: str | None = None, limit: int = 1_000_000) -> CleanupReport:
    """What a cleanup would delete, read-only."""
    with read_only(app.db) as conn:
        rows = conn.execute(_SELECT, _params(app, source, limit)).fetchall()
    return _report(True, rows, {})


def _report(
    dry_run: bool, rows: list[Mapping[str, Any]], skipped: Mapping[str, int]
) -> CleanupReport:
    by_source: dict[str, dict[str, int]] = defaultdict(lambda: {"objects": 0, "bytes": 0})
    by_reason: dict[str, int] = defaultdict(int)
    for row in rows:
        by_source[row["source_id"]]["objects"] += 1
        by_source[row["source_id"]]["bytes"] += row["byte_length"]
        by_reason[row["reason"]] += 1
    return CleanupReport(dry_run, dict(by_source), dict(by_reason), dict(skipped))


def run_cleanup(
    app: App, *, source: str | None = None, limit: int = 1_000_000, stream: TextIO | None = None
) -> PhaseReport:
    """Delete what `plan_cleanup` lists, one verified object at a time, under the
    cleanup lock (one cleanup at a time)."""

    def work(run_id: int) -> Mapping[str, Any]:
        params = _params(app, source, limit)
        store = app.raw_store
        with app.db.connect(autocommit=True) as conn:
            rows = conn.execute(_SELECT, params).fetchall()
            progress = Progress("raw cleanup", len(rows), stream=stream)
            deleted: list[Mapping[str, Any]] = []
            skipped: dict[str, int] = defaultdict(int)
            for row in rows:
                outcome = _delete_one(conn, store, row, params)
                if outcome == "deleted":
                    deleted.append(row)
                else:
                    skipped[outcome] += 1
                progress.advance()
        return _report(False, deleted, skipped).as_dict()

    return run_phase(app.db, "raw_cleanup", None, work)


def _delete_one(
    conn: DictConnection, store: RawStore, row: Mapping[str, Any], params: Mapping[str, Any]
) -> str:
    """`deleted`, or why not: `no_longer_eligible` (needed again since the selection) or
    `failed_verification` (the stored object is not what was recorded: marked lost)."""
    sha = row["sha256"]
    if conn.execute(_INTENT, {**params, "sha256": sha, "reason": row["reason"]}).fetchone() is None:
        return "no_longer_eligible"
    kill_point("cleanup:after_intent")
    problem = _verify(store, row["object_key"], row["byte_length"], sha)
    if problem == _MISSING and (row["state_reason"] or "").startswith("deleting: "):
        # An earlier cleanup recorded its intent, deleted, and died before marking
        # the row: the object is gone as intended, not lost.
        reason = f"cleanup: {row['reason']} (finishing an interrupted delete)"
        conn.execute(_MARK, {"state": "deleted", "reason": reason, "sha256": sha})
        return "deleted"
    if problem:
        conn.execute(_MARK, {"state": "lost", "reason": problem, "sha256": sha})
        return "failed_verification"
    store.delete(row["object_key"])
    kill_point("cleanup:after_delete")
    conn.execute(_MARK, {"state": "deleted", "reason": f"cleanup: {row['reason']}", "sha256": sha})
    return "deleted"


def _verify(store: RawStore, key: str, length: int, sha256: str) -> str | None:
    try:
        data = store.get(key)
    except KeyError:
        return _MISSING
    if len(data) != length:
        return f"object has {len(data)} bytes, expected {length}"
    if hashlib.sha256(data).hexdigest() != sha256:
        return "object content does not match its SHA-256"
    return None
