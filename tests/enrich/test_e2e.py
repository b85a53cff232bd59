"""The whole path on the sandbox: discover -> parse -> enrich (the demo's step, through
the real SDK and the sandbox's Gemini endpoint) -> enrich.current_values."""

from __future__ import annotations

import pytest

from pipeline.app import App
from pipeline.commands.enrich_demo import demo_enrichment
from pipeline.enrich.adversarial import VALUE_MODES
from pipeline.phases.discover import discover
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving
from serving_sync import search
from serving_sync.evidence import holds
from web import present


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


def test_enriched_sandbox_postings_are_published_with_skills_and_filterable(
    app: App, gemini
) -> None:
    """discover -> parse -> enrich -> sync: the serving copy holds the skill keys, the
    demo's published-skills line counts them, and a skill filter finds the postings."""
    from pipeline.commands.enrich_demo import published_skills
    from pipeline.phases.sync import sync_serving
    from serving_sync import search

    assert discover(app, "lever", force=True).status == "succeeded"
    assert parse_source(app, "lever").status == "succeeded"
    demo_enrichment(app)
    sync_serving(app)
    with app.serving_db.connect() as conn:
        jobs = conn.execute("SELECT id, skills_required, enriched_at FROM serving.jobs").fetchall()
        assert jobs
        assert all(j["enriched_at"] is not None and j["skills_required"] for j in jobs)
        key = jobs[0]["skills_required"][0]
        found = search.search(conn, search.parse_request({"skill": [key], "limit": ["50"]}))
    expected = {j["id"] for j in jobs if key in j["skills_required"]}
    # Duplicate listings of one job come back as one result naming the others.
    listed = {i for item in found.items for i in (item["id"], *item["other_ids"])}
    assert listed == expected
    assert found.listed == len(expected)
    line = published_skills(app)
    assert line.startswith(f"published skills: {len(jobs)} of {len(jobs)} serving jobs have skills")


@pytest.mark.parametrize("mode", ["truthful", "adversarial", "one_invalid"])
def test_every_value_the_api_serves_is_cut_from_the_field_it_names(
    app: App, gemini, mode: str
) -> None:
    """Whatever the model answers (truthful, each adversarial mode in turn, one invalid
    value), what survives the checker and is published reads back as job[field][start:end]
    == evidence, from the job body GET /api/jobs/{id} serves."""
    assert discover(app, "lever", force=True).status == "succeeded"
    assert parse_source(app, "lever").status == "succeeded"
    gemini.answer(mode)
    demo_enrichment(app)
    sync_serving(app)
    values = []
    with app.serving_db.connect() as conn:
        ids = [r["id"] for r in conn.execute("SELECT id FROM serving.jobs").fetchall()]
        for job_id in ids:
            job = search.job(conn, job_id)
            body = present.job_body(job)["enrichment"]
            values += [(job, v) for v in _values(body)]
    if mode == "adversarial":  # every adversarial mode got at least one posting
        assert len(ids) >= len(VALUE_MODES)
    assert values, "no value was published"
    for job, value in values:
        assert value["field"] in ("title", "location_text", "description"), value
        assert holds(job, value), value
        assert " ".join(value["evidence"].split()) in value["context"], value


def _values(body: dict) -> list[dict]:
    single = [body[name] for name in present.ENRICHED_FIELDS if body.get(name)]
    return single + [
        v for name in ("skills_required", "skills_preferred") for v in body.get(name) or []
    ]
