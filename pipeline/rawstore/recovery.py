"""After a crash: resolve `pending` raw objects and queue again the work that lost one.

A worker that dies between recording a raw object as `pending` and marking it
`ready` leaves the row behind. The next run checks the store: the object is there
with the right length and SHA-256 -> `ready`; otherwise -> `lost`, and whatever
referenced it is redone:

- the boards whose postings or scans came from it are polled again now, without
  validators (a 304 would never send the lost bytes again), and their rows are
  rewritten on that poll (row hash cleared);
- postings whose own page it was are fetched again (detail_state = needed).
"""

from __future__ import annotations

from pipeline.db.connect import DictConnection
from pipeline.rawstore.archive import RawArchive, RecoveryReport

# Older than any upload in flight: a live worker's pending row is never judged.
RECOVER_AFTER_S = 300.0

_FORGET_ROWS = """
UPDATE core.postings SET row_hash = NULL, updated_at = now()
WHERE listing_raw_sha256 = ANY(%(lost)s)
   OR (detail_url IS NULL AND content_raw_sha256 = ANY(%(lost)s))
"""

_REFETCH_DETAILS = """
UPDATE core.postings SET detail_state = 'needed', detail_attempts = 0, updated_at = now()
WHERE detail_url IS NOT NULL AND content_raw_sha256 = ANY(%(lost)s)
"""

_REPOLL_BOARDS = """
UPDATE crawl.boards SET due_at = now(), etag = NULL, last_modified = NULL, body_hash = NULL,
    listing_hash = NULL, updated_at = now()
WHERE id IN (
    SELECT board_id FROM core.postings
    WHERE listing_raw_sha256 = ANY(%(lost)s) OR content_raw_sha256 = ANY(%(lost)s)
    UNION
    SELECT board_id FROM crawl.scans WHERE raw_sha256 = ANY(%(lost)s)
)
"""


def requeue_lost(conn: DictConnection, lost: tuple[str, ...]) -> int:
    """Queue again the work that depended on lost raw objects; returns boards requeued."""
    if not lost:
        return 0
    params = {"lost": list(lost)}
    with conn.transaction():
        conn.execute(_FORGET_ROWS, params)
        conn.execute(_REFETCH_DETAILS, params)
        return conn.execute(_REPOLL_BOARDS, params).rowcount


def recover_and_requeue(
    archive: RawArchive, conn: DictConnection, older_than_s: float = RECOVER_AFTER_S
) -> RecoveryReport:
    report = archive.recover_pending(older_than_s=older_than_s)
    requeue_lost(conn, report.lost_sha256)
    return report
