"""Enrichment end to end with the real google-genai SDK against the sandbox's Gemini
endpoint over a real socket, a real PostgreSQL queue and budgets."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import pytest

from pipeline.db.connect import Database
from pipeline.enrich.gemini import GeminiProvider
from pipeline.enrich.policy import next_midnight_la
from pipeline.enrich.runner import Runner
from pipeline.enrich.settings import EnrichSettings
from tests.enrich.conftest import change_text, seed_postings

GOOD = (
    "Requirements:\n- 3-5 years of experience with Python and PostgreSQL\n"
    "- Bachelor's degree in Computer Science\nThis is a full-time, remote role.\n"
    "Nice to have: Kubernetes"
)
OTHER = "We build with Go and Kafka. At least 2 years of experience. Hybrid, Berlin office."
THIRD = "Junior role. You will write TypeScript and React every day. Part-time contract."


def runner(databases, settings: EnrichSettings, **overrides) -> Runner:
    llm = settings.model_copy(update=overrides)
    return Runner(databases.db, GeminiProvider(llm), llm, sleep=lambda s: None)


def queue_row(db: Database, posting_id: int) -> dict:
    with db.connect() as conn:
        return conn.execute(
            "SELECT * FROM enrich.queue WHERE posting_id = %s", (posting_id,)
        ).fetchone()


def result(db: Database, posting_id: int) -> dict | None:
    with db.connect() as conn:
        return conn.execute(
            "SELECT * FROM enrich.results WHERE posting_id = %s AND is_current", (posting_id,)
        ).fetchone()


def reasons(row: dict) -> dict[str, str]:
    return {r["field"]: r["reason"] for r in row["rejected"]}


def test_good_output_is_stored_with_excerpts_and_offsets(databases, gemini, llm_settings) -> None:
    (pid,) = seed_postings(databases.db, [GOOD])
    stats = runner(databases, llm_settings).run()
    assert (stats.sent, stats.valid, stats.with_rejections) == (1, 1, 0)
    row = result(databases.db, pid)
    assert row["fields"]["experience_min"]["value"] == 3
    assert row["fields"]["work_mode"]["evidence"] == "remote"
    assert row["provider"] == "gemini"
    with databases.db.connect() as conn:
        view = conn.execute(
            "SELECT * FROM enrich.current_values WHERE posting_id = %s", (pid,)
        ).fetchone()
    assert view["skills_required"] == ["postgresql", "python"]
    assert view["skills_preferred"] == ["kubernetes"]
    assert (view["experience_min"], view["experience_max"], view["education"]) == (3, 5, "bachelor")
    # the schema sent: posting_id is an enum of exactly the ids sent
    assert gemini.log()[0]["schema_ids"] == [str(pid)]
    assert queue_row(databases.db, pid)["state"] == "done"


def test_unchanged_text_never_pays_twice_and_changed_text_requeues(
    databases, gemini, llm_settings
) -> None:
    (pid,) = seed_postings(databases.db, [GOOD])
    assert runner(databases, llm_settings).run().sent == 1
    assert runner(databases, llm_settings).run().sent == 0
    change_text(databases.db, pid, OTHER)
    again = runner(databases, llm_settings).run()
    assert (again.enqueued, again.sent, again.valid) == (1, 1, 1)
    assert result(databases.db, pid)["fields"]["work_mode"]["value"] == "hybrid"
    change_text(databases.db, pid, GOOD)  # reverted: the earlier result is current again, free
    reverted = runner(databases, llm_settings).run()
    assert (reverted.already_done, reverted.sent) == (1, 0)
    assert result(databases.db, pid)["fields"]["work_mode"]["value"] == "remote"
    assert len(gemini.log()) == 2


@pytest.mark.parametrize(
    ("mode", "field", "reason"),
    [
        ("hallucinated_excerpt", "experience_min", "excerpt_not_found"),
        ("unsupported_value", "seniority", "excerpt_does_not_support"),
        ("out_of_range", "experience_max", "out_of_range"),
        ("enum_outside_schema", "work_mode", "value_outside_schema"),
        ("unsupported_skill", "skills_required", "excerpt_does_not_support"),
    ],
)
def test_wrong_values_are_rejected_with_a_stored_reason(
    databases, gemini, llm_settings, mode, field, reason
) -> None:
    (pid,) = seed_postings(databases.db, [GOOD])
    gemini.answer(mode)
    stats = runner(databases, llm_settings).run()
    assert (stats.valid, stats.with_rejections) == (1, 1)
    row = result(databases.db, pid)
    assert reasons(row)[field] == reason
    truthful = {"experience_min": 3, "work_mode": "remote"}
    for name, value in truthful.items():
        if name != field:
            assert row["fields"][name]["value"] == value  # the rest of the answer stands


def scripted(pid: int, **fields) -> str:
    entry = {"posting_id": str(pid)} | fields
    return json.dumps({"postings": [entry]})


def test_min_above_max_rejects_both_bounds(databases, gemini, llm_settings) -> None:
    (pid,) = seed_postings(
        databases.db, ["Minimum 5 years of experience; up to 3 years as a lead."]
    )
    text = scripted(
        pid,
        experience_min={"evidence": "Minimum 5 years", "value": 5},
        experience_max={"evidence": "up to 3 years", "value": 3},
    )
    gemini.answer(script=[{"text": text}])
    runner(databases, llm_settings).run()
    row = result(databases.db, pid)
    assert [r["reason"] for r in row["rejected"]] == ["min_greater_than_max"] * 2
    assert "experience_min" not in row["fields"]


@pytest.mark.parametrize("mode", ["malformed_json", "empty_candidate", "max_tokens"])
def test_bad_output_is_reasked_once_with_the_error_then_kept(
    databases, gemini, llm_settings, mode
) -> None:
    (pid,) = seed_postings(databases.db, [GOOD])
    gemini.answer(script=[{"mode": mode}])
    first = runner(databases, llm_settings).run(max_requests=1)
    assert (first.sent, first.valid, first.requeued) == (1, 0, 1)
    row = queue_row(databases.db, pid)
    assert (row["state"], row["reasks"], row["last_error_class"]) == ("queued", 1, "bad_output")
    second = runner(databases, llm_settings).run()
    assert (second.sent, second.valid) == (1, 1)
    assert [e["reask"] for e in gemini.log()] == [False, True]


def test_bad_output_twice_fails_permanently(databases, gemini, llm_settings) -> None:
    (pid,) = seed_postings(databases.db, [GOOD])
    gemini.answer("malformed_json")
    stats = runner(databases, llm_settings).run()
    assert (stats.sent, stats.failed) == (2, 1)
    row = queue_row(databases.db, pid)
    assert (row["state"], row["last_error_class"]) == ("failed", "bad_output")
    assert runner(databases, llm_settings).run().sent == 0


def budget(db: Database) -> dict:
    with db.connect() as conn:
        return conn.execute("SELECT *, now() AS now FROM enrich.budgets").fetchone()


def test_429_with_retry_info_cools_the_model_down_for_the_delay(
    databases, gemini, llm_settings
) -> None:
    (pid,) = seed_postings(databases.db, [GOOD])
    gemini.answer(script=[{"status": 429, "retry_delay": "30s"}])
    stats = runner(databases, llm_settings).run()
    assert stats.sent == 1
    assert stats.cooled_down.startswith("rate_limited")
    row, b = queue_row(databases.db, pid), budget(databases.db)
    assert (row["state"], row["attempts"], row["last_error_class"]) == ("queued", 0, "rate_limited")
    assert 25 <= (b["cooldown_until"] - b["now"]).total_seconds() <= 31
    # every worker sees the cooldown: the next pass sends nothing
    assert runner(databases, llm_settings).run().sent == 0


def waiting_runner(databases, settings: EnrichSettings, slept: list[float], **overrides) -> Runner:
    """A runner that really sleeps (the queue and the cooldown are on the database's
    clock) and records how long."""
    import time

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        time.sleep(seconds)

    llm = settings.model_copy(update=overrides)
    return Runner(databases.db, GeminiProvider(llm), llm, sleep=sleep)


def test_a_short_429_is_waited_out_and_the_pass_finishes_its_batch(
    databases, gemini, llm_settings
) -> None:
    pids = seed_postings(databases.db, [GOOD, OTHER, THIRD])
    gemini.answer(script=[{"status": 429, "retry_delay": "1s"}])
    slept: list[float] = []
    stats = waiting_runner(databases, llm_settings, slept, group_size=3).run()
    assert slept == [1.0]
    assert (stats.sent, stats.valid, stats.requeued) == (2, 3, 0)
    assert (stats.rate_limit_waits, stats.cooled_down) == (1, None)
    for pid in pids:
        row = queue_row(databases.db, pid)
        assert (row["state"], row["attempts"]) == ("done", 0)
        assert result(databases.db, pid) is not None


def test_rate_limit_waits_beyond_the_budget_wait_end_the_pass(
    databases, gemini, llm_settings
) -> None:
    (pid,) = seed_postings(databases.db, [GOOD])
    gemini.answer(script=[{"status": 429, "retry_delay": "1s"}] * 3)
    slept: list[float] = []
    stats = waiting_runner(databases, llm_settings, slept, budget_wait_s=1.5).run()
    # the first second fits in the 1.5 s budget wait, a second one would not
    assert slept == [1.0]
    assert (stats.sent, stats.valid, stats.requeued, stats.rate_limit_waits) == (2, 0, 1, 1)
    assert stats.cooled_down.startswith("rate_limited")
    row = queue_row(databases.db, pid)
    assert (row["state"], row["attempts"], row["last_error_class"]) == ("queued", 0, "rate_limited")


def test_429_per_day_cools_down_to_midnight_pacific(databases, gemini, llm_settings) -> None:
    seed_postings(databases.db, [GOOD, OTHER])
    gemini.answer(script=[{"status": 429, "per_day": True}])
    stats = runner(databases, llm_settings).run()
    assert stats.sent == 1
    b = budget(databases.db)
    assert b["cooldown_reason"] == "quota_day"
    assert b["cooldown_until"] == next_midnight_la(datetime.now(UTC))
    assert runner(databases, llm_settings).run().sent == 0


def test_500_then_success_backs_off_then_keeps_the_answer(databases, gemini, llm_settings) -> None:
    (pid,) = seed_postings(databases.db, [GOOD])
    gemini.answer(script=[{"status": 500}])
    first = runner(databases, llm_settings, backoff_base_s=0.0).run(max_requests=1)
    assert (first.sent, first.requeued) == (1, 1)
    row = queue_row(databases.db, pid)
    assert (row["attempts"], row["last_error_class"]) == (1, "transient")
    second = runner(databases, llm_settings, backoff_base_s=0.0).run()
    assert (second.sent, second.valid) == (1, 1)


def test_400_is_permanent(databases, gemini, llm_settings) -> None:
    (pid,) = seed_postings(databases.db, [GOOD])
    gemini.answer(script=[{"status": 400}])
    stats = runner(databases, llm_settings).run()
    assert (stats.sent, stats.failed) == (1, 1)
    assert queue_row(databases.db, pid)["last_error_class"] == "permanent"


@pytest.mark.parametrize(
    ("mode", "redo_index", "reask"),
    [("wrong_id", 0, False), ("missing_id", 2, False), ("one_invalid", 0, True)],
)
def test_a_group_keeps_valid_members_and_requeues_the_others_alone(
    databases, gemini, llm_settings, mode, redo_index, reask
) -> None:
    ids = seed_postings(databases.db, [GOOD, OTHER, THIRD])
    gemini.answer(script=[{"mode": mode}])
    stats = runner(databases, llm_settings, group_size=3).run(max_requests=1)
    assert (stats.sent, stats.valid, stats.requeued) == (1, 2, 1)
    redo = ids[redo_index]
    assert queue_row(databases.db, redo)["alone"] is True
    assert result(databases.db, redo) is None
    assert all(result(databases.db, i) is not None for i in ids if i != redo)
    again = runner(databases, llm_settings, group_size=3).run()
    assert (again.sent, again.valid) == (1, 1)
    log = gemini.log()
    assert log[0]["schema_ids"] == [str(i) for i in ids]
    assert log[1]["postings"] == [str(redo)]
    assert log[1]["reask"] is reask


def test_each_group_member_is_checked_against_its_own_text(databases, gemini, llm_settings) -> None:
    ids = seed_postings(databases.db, [GOOD, OTHER])
    # the model puts posting 1's excerpt on posting 2: refused there
    text = json.dumps(
        {
            "postings": [
                {"posting_id": str(ids[0]), "work_mode": {"evidence": "remote", "value": "remote"}},
                {
                    "posting_id": str(ids[1]),
                    "work_mode": {"evidence": "remote role", "value": "remote"},
                },
            ]
        }
    )
    gemini.answer(script=[{"text": text}])
    runner(databases, llm_settings, group_size=2).run()
    assert result(databases.db, ids[0])["fields"]["work_mode"]["value"] == "remote"
    assert reasons(result(databases.db, ids[1])) == {"work_mode": "excerpt_not_found"}


def test_the_api_key_reaches_the_endpoint_and_never_the_log(
    databases, gemini, llm_settings, caplog
) -> None:
    seed_postings(databases.db, [GOOD])
    with caplog.at_level(logging.DEBUG):
        runner(databases, llm_settings).run()
    assert gemini.log()[0]["status"] == 200  # the stub refuses calls without a key
    assert "sandbox-test-key" not in caplog.text
    assert "sandbox-test-key" not in repr(llm_settings)


def test_partial_parses_are_eligible_and_rejected_parses_closed_postings_are_not(
    databases, gemini, llm_settings
) -> None:
    (partial,) = seed_postings(databases.db, [GOOD], quality="partial")
    (closed,) = seed_postings(databases.db, [OTHER], source="t")
    (empty,) = seed_postings(databases.db, ["   "], source="u")
    with databases.db.connect() as conn:
        conn.execute("UPDATE core.postings SET status = 'expired' WHERE id = %s", (closed,))
        conn.commit()
    stats = runner(databases, llm_settings).run()
    assert stats.enqueued == 1
    assert result(databases.db, partial) is not None
    assert result(databases.db, closed) is None
    assert result(databases.db, empty) is None


def test_another_model_re_keys_unchanged_text_and_pays_once_more(
    databases, gemini, llm_settings
) -> None:
    (pid,) = seed_postings(databases.db, [GOOD])
    assert runner(databases, llm_settings).run().sent == 1
    other = runner(databases, llm_settings, model="gemini-2.5-pro").run()
    assert (other.enqueued, other.sent, other.valid) == (1, 1, 1)
    assert result(databases.db, pid)["model"] == "gemini-2.5-pro"
    assert [e["model"] for e in gemini.log()] == ["gemini-2.5-flash", "gemini-2.5-pro"]
    assert runner(databases, llm_settings, model="gemini-2.5-pro").run().sent == 0
