"""What identity stores on core.postings: repost and opening keys, duplicate groups.

The keys and the similarity rule are pure functions in pipeline.lifecycle.identity.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from pipeline.db.connect import DictConnection
from pipeline.db.rows import DuplicateCandidate, PostingIdentity, fetch_all, fetch_value
from pipeline.lifecycle.identity import (
    SIMILAR_DESCRIPTIONS,
    merged_group,
    posting_keys,
    shingles,
    similarity,
)


@dataclass(frozen=True)
class IdentityReport:
    keyed: int
    grouped: int


_CURRENT = """
SELECT p.id, p.source_id, p.board_id, p.duplicate_group, p.grouped_content_hash, b.board_key,
       s.platform, r.company, r.title, r.location, r.location_text, r.posted_at,
       r.posted_precision, r.content_hash, r.description_text
FROM core.postings AS p
JOIN crawl.boards AS b ON b.id = p.board_id
JOIN ref.sources AS s ON s.id = p.source_id
JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current
WHERE p.id = ANY(%s)
"""

_CANDIDATES = """
SELECT p.id, p.duplicate_group, r.description_text
FROM core.postings AS p
JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current
WHERE p.repost_key = %(key)s AND p.id <> %(id)s AND p.status IN ('active', 'missing')
ORDER BY p.id
LIMIT 200
"""

_SET_KEYS = "UPDATE core.postings SET repost_key = %s, opening_key = %s WHERE id = %s"
_MERGE_GROUPS = (
    "UPDATE core.postings SET duplicate_group = %s WHERE id = ANY(%s) OR duplicate_group = ANY(%s)"
)
_GROUPED = "UPDATE core.postings SET grouped_content_hash = %s WHERE id = %s"


def refresh_identity(conn: DictConnection, posting_ids: Iterable[int]) -> IdentityReport:
    """Recompute keys and duplicate groups for these postings (whose content changed)."""
    rows = fetch_all(conn, PostingIdentity, _CURRENT, (list(posting_ids),))
    keyed = grouped = 0
    for row in rows:
        role, opening = posting_keys(row)
        conn.execute(_SET_KEYS, (role, opening, row.id))
        keyed += 1
        if role and row.grouped_content_hash != row.content_hash:
            grouped += _group(conn, row, role)
    return IdentityReport(keyed, grouped)


def _group(conn: DictConnection, row: PostingIdentity, role: str) -> int:
    """Join the duplicate group of near-identical postings of the same role."""
    mine = shingles(row.description_text)
    candidates = fetch_all(conn, DuplicateCandidate, _CANDIDATES, {"key": role, "id": row.id})
    matches = [
        c
        for c in candidates
        if similarity(mine, shingles(c.description_text)) >= SIMILAR_DESCRIPTIONS
    ]
    group = None
    if matches:
        group, ids, groups = merged_group(row.id, row.duplicate_group, matches)
        conn.execute(_MERGE_GROUPS, (group, ids, groups or [0]))
    conn.execute(_GROUPED, (row.content_hash, row.id))
    return int(group is not None)


_REPOSTS = """
SELECT count(DISTINCT other.opening_key) AS openings
FROM core.postings AS p
JOIN core.postings AS other ON other.repost_key = p.repost_key
WHERE p.id = %(id)s AND other.first_seen_at >= %(since)s
"""


def openings_since(conn: DictConnection, posting_id: int, since: datetime) -> int:
    """How many distinct openings of this posting's role were first seen since `since`."""
    openings = fetch_value(conn, _REPOSTS, {"id": posting_id, "since": since})
    return int(openings or 0)
