"""Bumping a parser's version re-parses stored raw objects without fetching: the old
results stay, the new ones become current."""

from __future__ import annotations

from dataclasses import replace

from parsers.registry import Parser
from parsers.types import ParseOutcome, RawDocument
from pipeline.app import App
from pipeline.phases.discover import discover
from pipeline.phases.parse import parse_source


def test_reparse_keeps_old_results_and_makes_the_new_current(app: App) -> None:
    assert discover(app, "lever", force=True).status == "succeeded"
    first = parse_source(app, "lever")
    assert first.stats["parser"] == "lever@1"
    postings = first.stats["postings"]
    assert postings > 0

    current = app.registry.get("lever")

    def shouting(doc: RawDocument) -> ParseOutcome:
        outcome = current.parse(doc)
        return replace(
            outcome, postings=tuple(replace(p, title=p.title.upper()) for p in outcome.postings)
        )

    registry = app.registry.copy()  # a test-local copy: the shipped registry is untouched
    registry.add(Parser("lever", "2", shouting))
    app.registry = registry
    with app.db.connect() as conn:
        attempts_before = conn.execute("SELECT count(*) AS n FROM crawl.fetch_attempts").fetchone()[
            "n"
        ]
        closed = conn.execute(
            """UPDATE core.postings SET status = 'expired' WHERE id = (
                   SELECT min(id) FROM core.postings WHERE source_id = 'lever') RETURNING id"""
        ).fetchone()["id"]
        conn.commit()

    second = parse_source(app, "lever", reparse=True)
    assert second.stats["parser"] == "lever@2"
    assert second.stats["postings"] == postings  # closed postings too: --reparse rewrites history

    with app.db.connect() as conn:
        rows = conn.execute(
            """SELECT pr.parser_version, pr.is_current, pr.title, pr.posting_id FROM core.parse_results AS pr
               JOIN core.postings AS p ON p.id = pr.posting_id WHERE p.source_id = 'lever'"""
        ).fetchall()
        attempts_after = conn.execute("SELECT count(*) AS n FROM crawl.fetch_attempts").fetchone()[
            "n"
        ]
    assert attempts_after == attempts_before  # nothing was fetched
    old = [r for r in rows if r["parser_version"] == "1"]
    new = [r for r in rows if r["parser_version"] == "2"]
    assert len(old) == len(new) == postings
    assert not any(r["is_current"] for r in old)
    assert all(r["is_current"] and r["title"] == r["title"].upper() for r in new)
    assert closed in {r["posting_id"] for r in new}

    third = parse_source(app, "lever", reparse=True)
    assert third.stats["postings"] == 0  # idempotent: every posting has its lever@2 result
