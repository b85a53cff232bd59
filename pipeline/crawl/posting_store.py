"""What a listing stores in core.postings: new rows, changed rows, and rows seen again."""

from __future__ import annotations

from typing import TypedDict


class PostingValues(TypedDict):
    """A listed posting, as INSERT_POSTING and UPDATE_CHANGED name their parameters."""

    source: str
    external_id: str
    board: int
    url: str
    title: str
    row_hash: str
    listing_raw: str
    content_raw: str | None  # None: the posting's own page is its content (fetch phase)
    detail_url: str | None
    detail_state: str
    scan: int


class ChangedPosting(PostingValues):
    id: int


class SeenPosting(TypedDict):
    """An unchanged posting and the newest listing page that holds it (UPDATE_SEEN)."""

    id: int
    raw: str


EXISTING = """
SELECT id, external_id, row_hash, status, missing_count, board_id
FROM core.postings
WHERE source_id = %(source)s AND (board_id = %(board)s OR external_id = ANY(%(ids)s))
"""

# A posting new on a board that an earlier scan read completely was posted since that
# scan: its first-seen time estimates its age (age_known). New on the board's first
# complete read, it may have been listed for years.
INSERT_POSTING = """
INSERT INTO core.postings (source_id, external_id, board_id, url, title, row_hash,
    listing_raw_sha256, content_raw_sha256, detail_url, detail_state, last_seen_scan_id,
    age_known)
VALUES (%(source)s, %(external_id)s, %(board)s, %(url)s, %(title)s, %(row_hash)s,
    %(listing_raw)s, %(content_raw)s, %(detail_url)s, %(detail_state)s, %(scan)s,
    EXISTS (SELECT 1 FROM crawl.scans AS s
            WHERE s.board_id = %(board)s AND s.complete AND s.id <> %(scan)s))
ON CONFLICT (source_id, external_id) DO NOTHING
"""

UPDATE_CHANGED = """
UPDATE core.postings SET url = %(url)s, title = %(title)s, row_hash = %(row_hash)s,
    board_id = %(board)s, listing_raw_sha256 = %(listing_raw)s,
    content_raw_sha256 = COALESCE(%(content_raw)s, content_raw_sha256),
    detail_url = %(detail_url)s, detail_state = %(detail_state)s, detail_attempts = 0,
    last_seen_at = now(), last_seen_scan_id = %(scan)s, missing_count = 0, updated_at = now()
WHERE id = %(id)s
"""

# An unchanged row keeps its content pointer (so it is not parsed again) unless the
# object it points at is gone: then the fresh listing, same row, replaces it.
UPDATE_SEEN = """
UPDATE core.postings AS p SET last_seen_at = now(), last_seen_scan_id = %(scan)s,
    missing_count = 0, listing_raw_sha256 = t.raw,
    content_raw_sha256 = CASE
        WHEN p.detail_url IS NULL AND NOT EXISTS (
            SELECT 1 FROM crawl.raw_objects AS r WHERE r.sha256 = p.content_raw_sha256 AND r.state = 'ready')
        THEN t.raw ELSE p.content_raw_sha256 END
FROM unnest(%(id)s::bigint[], %(raw)s::text[]) AS t(id, raw)
WHERE p.id = t.id
"""
