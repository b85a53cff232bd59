"""The whole path on the sandbox: discover -> parse -> enrich (the demo's step, through
the real SDK and the sandbox's Gemini endpoint) -> enrich.current_values."""

from __future__ import annotations

from pipeline.app import App
from pipeline.enrich.demo import demo_enrichment
from pipeline.phases.discover import discover
from pipeline.phases.parse import parse_source


def test_parsed_sandbox_postings_are_enriched_once(app: App, gemini) -> None:
    assert discover(app, "lever", force=True).status == "succeeded"
    assert parse_source(app, "lever").status == "succeeded"
    with app.db.connect() as conn:
        eligible = conn.execute(
            "SELECT count(*) AS n FROM core.parse_results WHERE is_current "
            "AND coalesce(description_text, '') <> ''"
        ).fetchone()["n"]
    assert eligible > 0
    first = demo_enrichment(app)
    assert f"{eligible} postings extracted" in first[0]
    with app.db.connect() as conn:
        rows = conn.execute("SELECT * FROM enrich.current_values").fetchall()
    assert len(rows) == eligible
    # the sandbox's descriptions name three skills each ("You will work with A, B, C")
    assert all(len(r["skills_required"]) >= 1 for r in rows)
    again = demo_enrichment(app)
    assert again[0].startswith("enrichment (sandbox Gemini endpoint, group size 3): 0 requests")
    assert sum(len(e["postings"]) for e in gemini.log()) == eligible
