"""The error-class table and its clocks (pure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pipeline.enrich.policy import (
    Failure,
    Limits,
    backoff_s,
    classify_http,
    decide,
    next_midnight_la,
)

NOW = datetime(2026, 3, 8, 12, 0, tzinfo=UTC)  # US daylight saving starts this day


def body_429(quota: str, delay: str | None = None) -> dict:
    details = [
        {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaId": quota}]}
    ]
    if delay:
        details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay})
    return {"error": {"code": 429, "details": details}}


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (429, body_429("GenerateRequestsPerDayPerProjectPerModel-FreeTier"), "quota_day"),
        (
            429,
            body_429("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "17s"),
            "rate_limited",
        ),
        (408, {}, "transient"),
        (500, {}, "transient"),
        (503, {}, "transient"),
        (400, {}, "permanent"),
        (403, {}, "permanent"),
        (404, {}, "permanent"),
    ],
)
def test_http_errors_are_classified_by_the_table(status, body, expected) -> None:
    assert classify_http(status, body).error_class == expected


def test_retry_info_delay_is_read() -> None:
    assert classify_http(429, body_429("PerMinute", "17s")).retry_delay_s == 17.0


def test_per_day_quota_cools_down_to_midnight_pacific() -> None:
    decision = decide(Failure("quota_day", "x"), 0, 0, NOW, Limits())
    assert decision.cooldown_until == next_midnight_la(NOW)
    assert decision.count_attempt is False
    # 2026-03-08 12:00 UTC is 04:00 PST; the next midnight is 2026-03-09 00:00 PDT = 07:00 UTC
    assert next_midnight_la(NOW) == datetime(2026, 3, 9, 7, 0, tzinfo=UTC)


def test_rate_limit_waits_the_retry_delay_without_counting_an_attempt() -> None:
    decision = decide(Failure("rate_limited", "x", 429, 17.0), 2, 0, NOW, Limits())
    assert decision.next_try_at == NOW + timedelta(seconds=17)
    assert decision.count_attempt is False


def test_transient_errors_back_off_exponentially_with_a_cap_then_fail() -> None:
    limits = Limits(max_attempts=4, backoff_base_s=10, backoff_cap_s=30)
    assert [backoff_s(n, 10, 30) for n in (1, 2, 3, 4)] == [10, 20, 30, 30]
    assert decide(Failure("transient", "x"), 0, 0, NOW, limits).next_try_at == NOW + timedelta(
        seconds=10
    )
    assert decide(Failure("transient", "x"), 3, 0, NOW, limits).action == "fail"


def test_bad_output_gets_one_reask_then_fails() -> None:
    first = decide(Failure("bad_output", "x"), 0, 0, NOW, Limits())
    assert (first.action, first.reask) == ("requeue", True)
    assert decide(Failure("bad_output", "x"), 1, 1, NOW, Limits()).action == "fail"


def test_permanent_errors_fail_at_once() -> None:
    assert decide(Failure("permanent", "x"), 0, 0, NOW, Limits()).action == "fail"
