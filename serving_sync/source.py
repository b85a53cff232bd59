"""The authoritative side of a sync: one repeatable-read snapshot, read in streams.

Every stream is a server-side cursor fetched `batch` rows at a time, so memory
does not grow with the number of published postings. An incremental read
selects postings whose change stamp (`publish_xid`, `liveness_xid`, kept by
triggers: migration 0011) belongs to a transaction the base snapshot (that of
the last applied sync) did not see; a full read selects everything.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pipeline.db.connect import DictConnection

PUBLISHED_STATUSES = ("active", "missing")  # missing is not a verdict: it stays listed
CLOSED_STATUSES = ("expired", "not_found", "filtered")  # closed on evidence

# The parse-result fields a posting publishes; a retained posting takes them all from
# its last good result, never a mix of two parses.
RESULT_FIELDS = (
    "title", "company", "legal_entity", "department", "location_text", "location", "remote",
    "employment_type", "job_type", "posted_at", "posted_precision", "salary_min",
    "salary_max", "salary_currency", "salary_period", "apply_url",
)  # fmt: skip
# Losing one of these in a partial parse is losing content, not an edit.
GUARDED_FIELDS = ("title", "description_text", "location_text")
# The enrichment a posting publishes (its current result in enrich.current_values;
# migration 0017 stamps a posting whose result changes). No result: "not extracted".
ENRICHMENT_FIELDS = """e.experience_min, e.experience_max, e.seniority, e.work_mode, e.education,
       e.employment_type AS extracted_employment_type,
       COALESCE(e.skills_required, '{}') AS skills_required,
       COALESCE(e.skills_preferred, '{}') AS skills_preferred,
       (e.evidence || jsonb_build_object('skills_required', e.skills_required_evidence,
                                         'skills_preferred', e.skills_preferred_evidence))::text
           AS enrichment,
       e.enriched_at"""


@dataclass(frozen=True)
class Base:
    """The snapshot of the last applied sync: what serving already reflects."""

    snapshot: str
    xmin: int


def _candidate(column: str) -> str:
    return (
        f"(p.{column} >= %(base_xmin)s AND NOT "
        f"pg_visible_in_snapshot((p.{column}::text)::xid8, %(base)s::pg_snapshot))"
    )


def _lost(field: str) -> str:
    return f"(nullif(btrim(r.{field}), '') IS NULL AND nullif(btrim(g.{field}), '') IS NOT NULL)"


def _chosen(field: str) -> str:
    return f"CASE WHEN k.retained THEN g.{field} ELSE r.{field} END"


# How often each role was posted: distinct openings first seen in the last year.
_OPENINGS = """COALESCE((
    SELECT count(DISTINCT o.opening_key) FROM core.postings AS o
    WHERE o.repost_key = p.repost_key AND o.first_seen_at > now() - interval '365 days'
    GROUP BY o.repost_key), 1)"""
_OPENINGS_CTE = """WITH openings AS (
    SELECT repost_key, count(DISTINCT opening_key) AS n FROM core.postings
    WHERE repost_key IS NOT NULL AND first_seen_at > now() - interval '365 days'
    GROUP BY repost_key
)
"""


def content_query(incremental: bool) -> str:
    """Published postings with the content they publish (their last good one)."""
    fields = ",\n       ".join(f"{_chosen(f)} AS {f}" for f in RESULT_FIELDS)
    lost = " OR ".join(_lost(f) for f in GUARDED_FIELDS)
    openings = _OPENINGS if incremental else "COALESCE(o.n, 1)"
    return f"""{"" if incremental else _OPENINGS_CTE}
SELECT p.id, p.source_id AS source, s.platform, p.external_id, p.status,
       {fields},
       p.first_seen_at, p.age_known, COALESCE({_chosen("url")}, p.url) AS url,
       {_chosen("description_text")} AS description,
       {_chosen("description_html")} AS description_html,
       {openings} AS openings_12m, p.duplicate_group, k.retained,
       b.company AS board_company, b.company_source AS board_company_source,
       {ENRICHMENT_FIELDS}
FROM core.postings AS p
JOIN ref.sources AS s ON s.id = p.source_id AND s.enabled
-- The board names the employer of postings that state none (pipeline.normalize.company).
JOIN crawl.boards AS b ON b.id = p.board_id
JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current
-- A partial parse that lost content: the latest accepted result stands in for it.
LEFT JOIN LATERAL (
    SELECT g.* FROM core.parse_results AS g
    WHERE r.quality = 'partial' AND g.posting_id = p.id AND g.quality = 'accepted' AND g.id <> r.id
    ORDER BY g.id DESC LIMIT 1
) AS g ON true
CROSS JOIN LATERAL (SELECT g.id IS NOT NULL AND ({lost}) AS retained) AS k
LEFT JOIN enrich.current_values AS e ON e.posting_id = p.id
{"" if incremental else "LEFT JOIN openings AS o ON o.repost_key = p.repost_key"}
WHERE p.status = ANY(%(published)s) {"AND " + _candidate("publish_xid") if incremental else ""}
"""


_IS_PUBLISHED = """(p.status = ANY(%(published)s) AND s.enabled AND EXISTS (
    SELECT 1 FROM core.parse_results AS r WHERE r.posting_id = p.id AND r.is_current))"""

GONE = f"""
SELECT p.id FROM core.postings AS p JOIN ref.sources AS s ON s.id = p.source_id
WHERE {_candidate("publish_xid")} AND NOT {_IS_PUBLISHED}
"""


def closures_query(incremental: bool) -> str:
    """Postings closed on evidence within the retention window."""
    return f"""
SELECT p.id, p.source_id AS source, COALESCE(r.title, p.title) AS title,
       COALESCE(nullif(btrim(r.company), ''), b.company) AS company,
       COALESCE(p.closed_at, p.status_changed_at) AS closed_at, p.status AS reason
FROM core.postings AS p
JOIN crawl.boards AS b ON b.id = p.board_id
LEFT JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current
WHERE p.status = ANY(%(closed)s) AND COALESCE(r.title, p.title) IS NOT NULL
  AND COALESCE(p.closed_at, p.status_changed_at) > now() - make_interval(days => %(retention)s)
  {"AND " + _candidate("publish_xid") if incremental else ""}
"""


def liveness_query(incremental: bool) -> str:
    changed = (
        f"AND ({_candidate('liveness_xid')} OR {_candidate('publish_xid')})" if incremental else ""
    )
    return f"""
SELECT p.id, (p.last_seen_at AT TIME ZONE 'UTC')::date AS last_seen_on
FROM core.postings AS p JOIN ref.sources AS s ON s.id = p.source_id
WHERE {_IS_PUBLISHED} {changed}
"""


PUBLISHED_TOTAL = f"""
SELECT count(*) AS n FROM core.postings AS p JOIN ref.sources AS s ON s.id = p.source_id
WHERE {_IS_PUBLISHED}
"""

# Which database this is: a snapshot is only meaningful in the cluster (system
# identifier) and database (oid) it was taken in.
IDENTITY = """
SELECT (SELECT system_identifier FROM pg_control_system())::text || '/' || d.oid::text AS identity
FROM pg_database AS d WHERE d.datname = current_database()
"""


@dataclass(frozen=True)
class SourceRead:
    """The open snapshot: its id for the next sync, and the streams read from it."""

    conn: DictConnection
    snapshot: str
    identity: str
    base: Base | None
    retention_days: int
    batch: int

    @property
    def incremental(self) -> bool:
        return self.base is not None

    def _params(self) -> dict[str, Any]:
        return {
            "published": list(PUBLISHED_STATUSES),
            "closed": list(CLOSED_STATUSES),
            "retention": self.retention_days,
            "base": self.base.snapshot if self.base else None,
            "base_xmin": self.base.xmin if self.base else None,
        }

    def stream(self, name: str, query: str) -> Iterator[dict[str, Any]]:
        with self.conn.cursor(name=f"sync_{name}") as cursor:
            cursor.itersize = self.batch
            cursor.execute(query, self._params())
            yield from cursor

    def content(self) -> Iterator[dict[str, Any]]:
        return self.stream("content", content_query(self.incremental))

    def gone(self) -> Iterator[dict[str, Any]]:
        return self.stream("gone", GONE) if self.incremental else iter(())

    def closures(self) -> Iterator[dict[str, Any]]:
        return self.stream("closures", closures_query(self.incremental))

    def liveness(self) -> Iterator[dict[str, Any]]:
        return self.stream("liveness", liveness_query(self.incremental))

    def published_total(self) -> int:
        row = self.conn.execute(PUBLISHED_TOTAL, self._params()).fetchone()
        assert row is not None
        return int(row["n"])


def open_snapshot(conn: DictConnection) -> tuple[str, str]:
    """Start the repeatable-read snapshot on `conn` (inside its transaction): (snapshot, identity)."""
    row = conn.execute("SELECT pg_current_snapshot()::text AS snapshot").fetchone()
    ident = conn.execute(IDENTITY).fetchone()
    assert row is not None
    assert ident is not None
    return row["snapshot"], ident["identity"]


def snapshot_xmin(snapshot: str) -> int:
    """The xmin of a pg_snapshot's text form `xmin:xmax:xip,...`."""
    return int(snapshot.split(":", 1)[0])
