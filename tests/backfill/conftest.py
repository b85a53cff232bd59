"""Backfill helpers: a second version of lever's parser (`parsed_lever` is in tests/apps.py)."""

from __future__ import annotations

from dataclasses import replace

from parsers.registry import Parser
from parsers.types import ParseOutcome, RawDocument
from pipeline.app import App


def bump_lever(app: App) -> None:
    """Register lever@2 (titles upper-cased) on a test-local copy of the registry."""
    current = app.registry.get("lever")

    def shouting(doc: RawDocument) -> ParseOutcome:
        outcome = current.parse(doc)
        return replace(
            outcome, postings=tuple(replace(p, title=p.title.upper()) for p in outcome.postings)
        )

    registry = app.registry.copy()
    registry.add(Parser("lever", "2", shouting))
    app.registry = registry


def lever_versions(app: App) -> dict[str, int]:
    """Lever's current parse results by parser version: {version: postings}."""
    with app.db.connect() as conn:
        rows = conn.execute(
            """SELECT pr.parser_version AS v, count(*) AS n FROM core.parse_results pr
               JOIN core.postings p ON p.id = pr.posting_id
               WHERE p.source_id = 'lever' AND pr.is_current GROUP BY 1"""
        ).fetchall()
    return {r["v"]: r["n"] for r in rows}
