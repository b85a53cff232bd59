"""A Param value outside its DAG's bounds that reaches a task anyway fails the task with
a clear error before it does anything; nothing is clamped to the cap."""

from __future__ import annotations

import pytest

from pipeline.airflow.backfill import PARAM_BOUNDS, run_plan
from pipeline.airflow.enrich import run_enrich
from pipeline.airflow.params import ParamOutOfRange, out_of_range
from pipeline.backfill.manifest import MAX_LIMIT, MAX_REQUESTS


def test_values_at_the_caps_pass_and_values_past_them_are_named() -> None:
    at_caps = {"limit": MAX_LIMIT, "max_requests": MAX_REQUESTS, "active_days": 1}
    assert out_of_range(at_caps, PARAM_BOUNDS) == []
    assert out_of_range({"limit": None}, PARAM_BOUNDS) == []  # absent: the default applies
    assert out_of_range({"limit": 100_000, "max_requests": 0}, PARAM_BOUNDS) == [
        "limit=100000 (allowed: 1..50,000)",
        "max_requests=0 (allowed: 1..5,000)",
    ]
    assert out_of_range({"active_days": 0}, PARAM_BOUNDS) == ["active_days=0 (allowed: at least 1)"]


def test_a_backfill_plan_given_an_over_cap_limit_fails_before_doing_anything() -> None:
    # Unwrapped from fatal_without_retry (which only turns the error into Airflow's
    # no-retry failure): the refusal comes before any database or store is opened.
    plan = run_plan.__wrapped__  # type: ignore[attr-defined]
    with pytest.raises(ParamOutOfRange) as refused:
        plan("reparse", {"source": "lever", "limit": 100_000}, "dag", "run")
    message = str(refused.value)
    assert message == (
        "refused, nothing done: limit=100000 (allowed: 1..50,000) (values are never clamped)"
    )


def test_the_enrich_task_refuses_a_limit_below_its_minimum() -> None:
    with pytest.raises(ParamOutOfRange, match=r"limit=0 \(allowed: at least 1\)"):
        run_enrich(limit=0, max_requests=10)
