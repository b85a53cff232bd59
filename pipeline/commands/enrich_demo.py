"""The demo's enrichment step: one pass against the sandbox's Gemini endpoint (the real
SDK over a socket, answered by the rules baseline), then what was extracted."""

from __future__ import annotations

from pydantic import SecretStr

from pipeline.app import App
from pipeline.enrich.settings import load_enrich_settings
from pipeline.phases.enrich import enrich


def demo_enrichment(app: App) -> list[str]:
    settings = load_enrich_settings(
        base_url=app.settings.sandbox_url,
        api_key=SecretStr("sandbox-demo"),  # the sandbox endpoint is local; not a secret
        group_size=3,
        rpm=10_000,
        tpm=10**9,
        rpd=10**6,
    )
    report = enrich(app, settings=settings, provider="gemini")
    s = report.stats
    with app.db.connect() as conn:
        top = conn.execute(
            "SELECT skill, count(*) AS n FROM enrich.current_values, unnest(skills_required) AS skill "
            "GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 6"
        ).fetchall()
        covered = conn.execute(
            "SELECT count(*) AS n, count(experience_min) AS exp, count(seniority) AS sen "
            "FROM enrich.current_values"
        ).fetchone()
    refused = ", ".join(f"{k} {v}" for k, v in (s.get("rejected") or {}).items()) or "none"
    return [
        f"enrichment (sandbox Gemini endpoint, group size 3): {s.get('sent', 0)} requests, "
        f"{s.get('valid', 0)} postings extracted ({s.get('eligible', 0)} eligible, "
        f"{s.get('enqueued', 0)} new or changed); refused values: {refused}",
        f"  extracted: {covered['n']} postings; experience stated in {covered['exp']}, "
        f"seniority in {covered['sen']}; top required skills: "
        + ", ".join(f"{r['skill']} {r['n']}" for r in top),
    ]


def published_skills(app: App) -> str:
    """What the sync published of it: serving.jobs rows with skills, and the top keys."""
    with app.serving_db.connect() as conn:
        row = conn.execute(
            "SELECT count(*) AS n, count(enriched_at) AS extracted, "
            "count(*) FILTER (WHERE skills_required <> '{}' OR skills_preferred <> '{}') AS skilled, "
            "coalesce(sum(cardinality(skills_required)), 0) AS required, "
            "coalesce(sum(cardinality(skills_preferred)), 0) AS preferred FROM serving.jobs"
        ).fetchone()
        top = conn.execute(
            "SELECT skill, count(*) AS n FROM serving.jobs, unnest(skills_required) AS skill "
            "GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5"
        ).fetchall()
    assert row is not None
    return (
        f"published skills: {row['skilled']} of {row['n']} serving jobs have skills "
        f"({row['extracted']} extracted, {row['n'] - row['extracted']} not extracted); "
        f"{row['required']} required and {row['preferred']} preferred skill keys; top: "
        + (", ".join(f"{r['skill']} {r['n']}" for r in top) or "none")
        + "  (filter: /?skill=KEY, /api/jobs?skill=KEY)"
    )
