"""Re-parse backfill: re-parse a selection of postings from their stored raw objects with
the source's current parser, never fetching.

Selection: one source, optionally posting ids, the content object's fetched-at date
range, and the parser name@version whose current results should be replaced. Postings
that already have a result of the current parser for their present content are never
selected (nothing to do). The preview's sample shows, for up to 20 postings, the
field-level diff between the current result and what the current parser produces,
computed on a READ ONLY connection without storing anything.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from itertools import groupby
from pathlib import Path
from typing import Any, TextIO

from parsers.registry import Parser
from pipeline.app import App
from pipeline.backfill.manifest import (
    SAMPLE_SIZE,
    BackfillRefused,
    Item,
    Journal,
    Manifest,
    load_manifest,
    refuse_changes,
    write_manifest,
)
from pipeline.backfill.readonly import PreviewArchive, read_only
from pipeline.db.connect import DictConnection
from pipeline.db.rows import Unparsed
from pipeline.lifecycle.identity_store import refresh_identity
from pipeline.phases.common import PhaseReport, run_phase
from pipeline.phases.parse import Documents, posting_for, result_values, store_result
from pipeline.progress import Progress
from pipeline.testhooks import kill_point

BATCH = 200
NEEDS_FETCH = (
    "{n} selected postings have no stored raw object (deleted by raw cleanup, or lost): "
    "re-parsing them needs a fetch first (`jobharbor discover --source {source} --force`, "
    "then `jobharbor fetch --source {source}`)"
)
_DIFF_FIELDS = (
    "title", "company", "department", "url", "apply_url", "location_text", "remote",
    "employment_type", "job_type", "posted_at", "posted_precision", "salary_raw", "salary_min",
    "salary_max", "salary_currency", "salary_period", "description_text",
)  # fmt: skip


@dataclass(frozen=True)
class ReparseSelection:
    source: str
    limit: int
    posting_ids: tuple[int, ...] = ()
    fetched_from: date | None = None
    fetched_to: date | None = None  # inclusive
    parser: str | None = None  # name@version (or name) of the current results to replace

    def as_params(self, target: Parser) -> dict[str, Any]:
        return {
            "source": self.source,
            "limit": self.limit,
            "posting_ids": list(self.posting_ids),
            "fetched_from": self.fetched_from.isoformat() if self.fetched_from else None,
            "fetched_to": self.fetched_to.isoformat() if self.fetched_to else None,
            "parser": self.parser,
            "target_parser": target.ref,
        }


# The columns `posting_for` reads (an Unparsed row), the current result and the raw
# object's state.
_COLUMNS = """
p.id, p.external_id, p.board_id, p.content_raw_sha256 AS raw_sha256, p.listing_raw_sha256,
(SELECT b.board_key FROM crawl.boards AS b WHERE b.id = p.board_id) AS board_key,
(p.detail_url IS NOT NULL AND p.content_raw_sha256 IS DISTINCT FROM p.listing_raw_sha256)
    AS is_detail,
ro.state AS raw_state, ro.byte_length,
cr.parser_name || '@' || cr.parser_version AS current_parser
"""
_FROM = """
FROM core.postings AS p
JOIN crawl.raw_objects AS ro ON ro.sha256 = p.content_raw_sha256
LEFT JOIN core.parse_results AS cr ON cr.posting_id = p.id AND cr.is_current
"""
# What the selection's filters match, before leaving out what the target parser already
# made from the same bytes.
_MATCHES = """
WHERE p.source_id = %(source)s
  AND (cardinality(%(ids)s::bigint[]) = 0 OR p.id = ANY(%(ids)s::bigint[]))
  AND (%(from)s::date IS NULL OR ro.fetched_at >= %(from)s::date)
  AND (%(to)s::date IS NULL OR ro.fetched_at < %(to)s::date + 1)
  AND (%(pname)s::text IS NULL OR (cr.parser_name = %(pname)s
       AND (%(pversion)s::text IS NULL OR cr.parser_version = %(pversion)s)))
"""
_SELECT = (
    "SELECT "
    + _COLUMNS
    + _FROM
    + _MATCHES
    + """  AND NOT EXISTS (
      SELECT 1 FROM core.parse_results AS r
      WHERE r.posting_id = p.id AND r.raw_sha256 = p.content_raw_sha256
        AND r.parser_name = %(name)s AND r.parser_version = %(version)s)
ORDER BY p.id
LIMIT %(limit)s
"""
)
_COUNT_MATCHES = "SELECT count(*) AS n" + _FROM + _MATCHES
_BY_IDS = "SELECT " + _COLUMNS + _FROM + "WHERE p.id = ANY(%s) ORDER BY p.content_raw_sha256, p.id"


def _query(selection: ReparseSelection, target: Parser) -> dict[str, Any]:
    name, _, version = (selection.parser or "").partition("@")
    return {
        "source": selection.source,
        "ids": list(selection.posting_ids),
        "from": selection.fetched_from,
        "to": selection.fetched_to,
        "pname": name or None,
        "pversion": version or None,
        "name": target.name,
        "version": target.version,
        "limit": selection.limit + 1,  # one more, to say the limit cut the selection
    }


def plan_reparse(app: App, selection: ReparseSelection, directory: Path) -> tuple[Manifest, Path]:
    """Select, diff a sample and write the manifest; reads only."""
    target = app.parser_for(selection.source)
    with read_only(app.db) as conn:
        rows = conn.execute(_SELECT, _query(selection, target)).fetchall()
        truncated = len(rows) > selection.limit
        rows = rows[: selection.limit]
        available = [r for r in rows if r["raw_state"] == "ready"]
        sample = _sample(app, conn, target, available[:SAMPLE_SIZE])
        why_empty = None if rows else _why_empty(conn, selection, target)
    unavailable = len(rows) - len(available)
    sizes = {r["raw_sha256"]: r["byte_length"] for r in rows}
    manifest = Manifest(
        kind="reparse",
        params=selection.as_params(target),
        items=tuple(Item(r["id"], r["raw_sha256"]) for r in rows),
        counts={
            "postings": len(rows),
            "raw_objects": len(sizes),
            "limit_reached": truncated,
            "raw_unavailable": unavailable,
            "by_current_parser": dict(Counter(r["current_parser"] or "none" for r in rows)),
        },
        bytes=sum(sizes.values()),
        sample=tuple(sample),
        notes=(NEEDS_FETCH.format(n=unavailable, source=selection.source),) if unavailable else (),
        why_empty=why_empty,
    )
    return manifest, write_manifest(manifest, directory)


def _why_empty(conn: DictConnection, selection: ReparseSelection, target: Parser) -> str:
    matched = conn.execute(_COUNT_MATCHES, _query(selection, target)).fetchone()["n"]
    return why_nothing_to_reparse(matched, selection.source, target.ref)


def why_nothing_to_reparse(matched: int, source: str, target_ref: str) -> str:
    """Why a re-parse preview selected nothing: the filters matched no posting, or every
    posting they matched already has the target parser's result for its current bytes."""
    if not matched:
        return f"0 postings to re-parse: no posting of {source} with stored content matches"
    every = "the 1 matching posting is" if matched == 1 else f"all {matched} matching postings are"
    return f"0 postings to re-parse: {every} already at parser {target_ref}"


def _sample(
    app: App, conn: DictConnection, target: Parser, rows: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    documents = Documents(PreviewArchive(conn, app.raw_store), target)  # type: ignore[arg-type]
    current = {
        r["posting_id"]: r
        for r in conn.execute(
            "SELECT * FROM core.parse_results WHERE is_current AND posting_id = ANY(%s)",
            ([r["id"] for r in rows],),
        ).fetchall()
    }
    sample = []
    for row in rows:
        picked = posting_for(documents, Unparsed.from_row(row))
        if picked is None:
            continue
        posting, quality, issues = picked
        old = current.get(row["id"]) or {}
        new = result_values(posting, old.get("location"))
        changes = {
            f: [_shown(old.get(f)), _shown(new.get(f))]
            for f in _DIFF_FIELDS
            if _plain(old.get(f)) != _plain(new.get(f))
        }
        if old.get("quality") != quality.value:
            changes["quality"] = [old.get("quality"), quality.value]
        sample.append(
            {
                "posting_id": row["id"],
                "external_id": row["external_id"],
                "from": row["current_parser"],
                "to": target.ref,
                "changes": changes,
                "issues": [i.to_dict() for i in issues],
            }
        )
    return sample


def _plain(value: Any) -> Any:
    """Comparable across DB and parser types (Decimal vs float, datetime vs str)."""
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return float(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def _shown(value: Any, width: int = 160) -> Any:
    value = _plain(value)
    if isinstance(value, str) and len(value) > width:
        return value[:width] + f"... ({len(value)} chars)"
    return value


def apply_reparse(app: App, manifest_path: Path, *, stream: TextIO | None = None) -> PhaseReport:
    """Re-parse exactly the manifest's postings; refused when any changed since the preview.
    Holds the source's parse lock, so it never overlaps a parse of the same source."""
    manifest = load_manifest(manifest_path, "reparse")
    source = str(manifest.params["source"])
    target = app.parser_for(source)
    if target.ref != manifest.params["target_parser"]:
        raise BackfillRefused(
            f"the preview was for {manifest.params['target_parser']}, the current parser of "
            f"{source} is {target.ref}: preview again"
        )
    journal = Journal(manifest_path)

    def work(run_id: int) -> Mapping[str, Any]:
        done = journal.done()
        ids = [i.id for i in manifest.items]
        with app.archive() as archive, app.db.connect() as conn:
            rows = conn.execute(_BY_IDS, (ids,)).fetchall()
            conn.commit()
            refuse_changes(manifest, {r["id"]: r["raw_sha256"] for r in rows}, done)
            todo = [r for r in rows if r["id"] not in done]
            progress = Progress(f"reparse {source}", len(todo), stream=stream)
            stats = _apply_rows(conn, Documents(archive, target), target, todo, journal, progress)
        stats["already_done"] = len(done)
        if stats["needs_fetch"]:
            stats["message"] = NEEDS_FETCH.format(n=stats["needs_fetch"], source=source)
        return {"manifest": str(manifest_path), "parser": target.ref, **stats}

    return run_phase(app.db, "parse", source, work)


def _apply_rows(
    conn: DictConnection,
    documents: Documents,
    target: Parser,
    rows: Sequence[Mapping[str, Any]],
    journal: Journal,
    progress: Progress,
) -> dict[str, Any]:
    qualities: Counter[str] = Counter()
    needs_fetch = 0
    for start in range(0, len(rows), BATCH):
        batch = rows[start : start + BATCH]
        with conn.transaction():
            became_current = []
            for _, group in groupby(batch, key=lambda r: r["raw_sha256"]):
                for row in group:
                    unparsed = Unparsed.from_row(row)
                    picked = posting_for(documents, unparsed)
                    if picked is None:
                        needs_fetch += 1
                        continue
                    quality, current = store_result(conn, target, unparsed, *picked)
                    qualities[quality] += 1
                    if current:
                        became_current.append(row["id"])
            refresh_identity(conn, became_current)
        # Committed, then journaled: a kill between the two redoes a batch whose
        # inserts are idempotent (ON CONFLICT DO NOTHING), never skips one.
        kill_point("backfill:mid_apply")
        journal.record(r["id"] for r in batch)
        documents.clear()
        progress.advance(len(batch))
    return {
        "reparsed": sum(qualities.values()),
        "quality": dict(qualities),
        "needs_fetch": needs_fetch,
    }
