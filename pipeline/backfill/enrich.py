"""Enrich backfill: the DAG and CLI shape for re-enriching a selection (by first-seen
date, source, posting ids). The selection and its estimate (postings, description
characters, ~tokens at 4 characters a token) need only the authoritative database; the
apply calls the enrichment entry point (`pipeline.phases.enrich.enrich`) for exactly
the manifest's postings.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from pipeline.app import App
from pipeline.backfill.manifest import (
    MAX_REQUESTS,
    SAMPLE_SIZE,
    Item,
    Manifest,
    load_manifest,
    refuse_changes,
    write_manifest,
)
from pipeline.backfill.readonly import read_only
from pipeline.phases.enrich import enrich

CHARS_PER_TOKEN = 4

_SELECT = """
SELECT p.id, p.source_id, pr.content_hash, length(coalesce(pr.description_text, '')) AS chars,
       pr.title
FROM core.postings AS p
JOIN core.parse_results AS pr ON pr.posting_id = p.id AND pr.is_current
WHERE (%(source)s::text IS NULL OR p.source_id = %(source)s)
  AND (cardinality(%(ids)s::bigint[]) = 0 OR p.id = ANY(%(ids)s::bigint[]))
  AND (%(day)s::date IS NULL OR p.first_seen_at::date = %(day)s::date)
ORDER BY p.id
LIMIT %(limit)s
"""


@dataclass(frozen=True)
class EnrichSelection:
    limit: int
    max_requests: int = MAX_REQUESTS
    source: str | None = None
    day: date | None = None
    posting_ids: tuple[int, ...] = ()


def plan_enrich(app: App, selection: EnrichSelection, directory: Path) -> tuple[Manifest, Path]:
    query = {
        "source": selection.source,
        "ids": list(selection.posting_ids),
        "day": selection.day,
        "limit": selection.limit + 1,
    }
    with read_only(app.db) as conn:
        rows = conn.execute(_SELECT, query).fetchall()
    truncated = len(rows) > selection.limit
    rows = rows[: selection.limit]
    chars = sum(r["chars"] for r in rows)
    manifest = Manifest(
        kind="enrich",
        params={
            "source": selection.source,
            "date": selection.day.isoformat() if selection.day else None,
            "posting_ids": list(selection.posting_ids),
            "limit": selection.limit,
            "max_requests": selection.max_requests,
        },
        items=tuple(Item(r["id"], r["content_hash"]) for r in rows),
        counts={"postings": len(rows), "limit_reached": truncated},
        bytes=chars,
        estimated_requests=len(rows),
        estimated_tokens=chars // CHARS_PER_TOKEN,
        sample=tuple({"posting_id": r["id"], "title": r["title"]} for r in rows[:SAMPLE_SIZE]),
    )
    return manifest, write_manifest(manifest, directory)


def apply_enrich(app: App, manifest_path: Path) -> Any:
    """Enrich exactly the manifest's postings through the enrichment entry point (its
    queue, provider budgets and `max_requests`; results it already has are free)."""
    manifest = load_manifest(manifest_path, "enrich")
    with app.db.connect() as conn:
        rows = conn.execute(
            "SELECT posting_id AS id, content_hash FROM core.parse_results WHERE is_current AND posting_id = ANY(%s)",
            ([i.id for i in manifest.items],),
        ).fetchall()
    refuse_changes(manifest, {r["id"]: r["content_hash"] for r in rows}, set())
    return enrich(
        app,
        manifest.params.get("source"),
        limit=len(manifest.items),
        max_requests=int(manifest.params.get("max_requests") or MAX_REQUESTS),
        posting_ids=tuple(i.id for i in manifest.items),
    )
