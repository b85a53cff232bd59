"""What identity stores on core.postings: repost and opening keys, duplicate groups,
and renamed external ids.

The keys, the similarity rule and which ids are renamed are pure functions in
pipeline.lifecycle.identity.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from psycopg.errors import UniqueViolation

from pipeline.db.connect import DictConnection
from pipeline.db.rows import DuplicateCandidate, PostingIdentity, fetch_all, fetch_value
from pipeline.lifecycle.identity import (
    SIMILAR_DESCRIPTIONS,
    IdRename,
    merged_group,
    posting_keys,
    rename_event,
    shingles,
    similarity,
)
from pipeline.lifecycle.store import record_events

log = logging.getLogger(__name__)


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


# The row keeps its id, so its history, raw objects, parse results and events follow
# it. The checks repeat what the rule saw, as the row is now: a concurrent worker may
# have renamed it, or stored the new id, since this listing's rows were read.
_RENAME = """
UPDATE core.postings AS p SET external_id = %(to_id)s, updated_at = now()
WHERE p.id = %(id)s AND p.external_id = %(from_id)s
  AND NOT EXISTS (SELECT 1 FROM core.postings AS other
                  WHERE other.source_id = p.source_id AND other.external_id = %(to_id)s)
RETURNING p.id
"""


def rename_postings(
    conn: DictConnection,
    renames: Sequence[IdRename],
    parser_ref: str,
    *,
    run_id: int,
    scan_id: int,
) -> list[IdRename]:
    """Give stored postings the ids their listing rows now have, each recorded as an
    event; in the caller's transaction. Returns the renames made."""
    done = [rename for rename in renames if _rename(conn, rename)]
    record_events(conn, (rename_event(r, parser_ref, run_id=run_id, scan_id=scan_id) for r in done))
    for rename in done:
        log.info(
            "posting %s: external id renamed from %s to %s by parser %s",
            rename.posting.id,
            rename.from_id,
            rename.to_id,
            parser_ref,
        )
    return done


def _rename(conn: DictConnection, rename: IdRename) -> bool:
    """One rename in a savepoint: another worker inserting the new id between the check
    and the update breaks the (source_id, external_id) unique constraint, and the
    savepoint turns that into "not renamed" instead of failing the board's transaction
    (the two rows are then the lifecycle's to handle, as without a rename)."""
    params = {"id": rename.posting.id, "from_id": rename.from_id, "to_id": rename.to_id}
    try:
        with conn.transaction():
            return fetch_value(conn, _RENAME, params) is not None
    except UniqueViolation:
        return False
