"""The second provider: an OpenAI-compatible server behind the same parsing, checks,
queue and budgets (the sandbox serves /v1/chat/completions over a real socket)."""

from __future__ import annotations

import pytest

from pipeline.enrich.openai_compat import OpenAICompatProvider
from pipeline.enrich.runner import Runner
from pipeline.errors import ConfigError
from tests.enrich.conftest import seed_postings

TEXT = "Requirements: 2-4 years of experience with Python and Django. Fully remote."


@pytest.fixture
def openai_settings(llm_settings, sandbox):
    return llm_settings.model_copy(
        update={"provider": "openai", "base_url": f"{sandbox.url}/v1", "model": "local-model"}
    )


def runner(databases, settings) -> Runner:
    return Runner(databases.db, OpenAICompatProvider(settings), settings, sleep=lambda s: None)


def result(databases, pid: int) -> dict | None:
    with databases.db.connect() as conn:
        return conn.execute(
            "SELECT * FROM enrich.results WHERE posting_id = %s AND is_current", (pid,)
        ).fetchone()


def test_good_output_through_the_same_checks(databases, gemini, openai_settings) -> None:
    (pid,) = seed_postings(databases.db, [TEXT])
    stats = runner(databases, openai_settings).run()
    assert (stats.sent, stats.valid) == (1, 1)
    row = result(databases, pid)
    assert (row["provider"], row["model"]) == ("openai", "local-model")
    assert row["fields"]["experience_max"]["value"] == 4
    assert {s["key"] for s in row["skills_required"]} == {"python", "django"}
    assert row["usage"]["thoughts"] == 3  # reasoning tokens are counted apart
    assert gemini.log()[0]["schema_ids"] == [str(pid)]


def test_adversarial_answers_are_refused_alike(databases, gemini, openai_settings) -> None:
    (pid,) = seed_postings(databases.db, [TEXT])
    gemini.answer("hallucinated_excerpt")
    runner(databases, openai_settings).run()
    assert {r["reason"] for r in result(databases, pid)["rejected"]} == {"excerpt_not_found"}


def test_429_retry_after_and_length_cutoff_follow_the_error_table(
    databases, gemini, openai_settings
) -> None:
    seed_postings(databases.db, [TEXT])
    gemini.answer(script=[{"mode": "max_tokens"}, {"status": 429, "retry_delay": "20s"}])
    first = runner(databases, openai_settings).run(max_requests=2)
    assert first.sent == 2
    assert first.cooled_down.startswith("rate_limited")
    with databases.db.connect() as conn:
        row = conn.execute("SELECT reasks, attempts, last_error_class FROM enrich.queue").fetchone()
        cooling = conn.execute(
            "SELECT cooldown_until - now() AS left FROM enrich.budgets"
        ).fetchone()
    # the cut-off answer was one attempt (and its one re-ask); the 429 counts against nobody
    assert (row["reasks"], row["attempts"], row["last_error_class"]) == (1, 1, "rate_limited")
    assert 15 <= cooling["left"].total_seconds() <= 21


def test_the_server_address_is_required(llm_settings) -> None:
    with pytest.raises(ConfigError, match="JOBHARBOR_LLM_BASE_URL"):
        OpenAICompatProvider(llm_settings.model_copy(update={"base_url": None}))
