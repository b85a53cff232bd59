"""A discover run that polled no board says why: when the next board is due, and which."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pipeline.crawl.queue import NextDue
from pipeline.phases.discover import polled_nothing, why_nothing_polled

NOW = datetime(2026, 3, 2, 5, 14, tzinfo=UTC)


def board(due_at: datetime, leased: bool = False) -> NextDue:
    return NextDue("greenhouse", "acme", due_at, leased)


def test_the_next_due_board_is_named_with_its_time_and_wait() -> None:
    assert why_nothing_polled(board(NOW + timedelta(hours=4)), NOW) == (
        "0 boards due; next due 09:14 UTC, in 4.0 h (greenhouse/acme)"
    )
    tomorrow = why_nothing_polled(board(NOW + timedelta(hours=30)), NOW)
    assert tomorrow == "0 boards due; next due 2026-03-03 11:14 UTC, in 30.0 h (greenhouse/acme)"


def test_a_due_board_that_was_not_polled_and_no_board_at_all_are_told_apart() -> None:
    assert why_nothing_polled(board(NOW - timedelta(minutes=5), leased=True), NOW) == (
        "0 boards polled; greenhouse/acme has been due since 05:09 UTC"
        " but is leased by another worker"
    )
    assert why_nothing_polled(None, NOW) == "0 boards polled: no enabled board"


def test_only_a_run_with_no_board_polled_or_deferred_needs_the_reason() -> None:
    assert polled_nothing({"boards": 0, "deferred": 0})
    assert not polled_nothing({"boards": 0, "deferred": 3})  # `deferred` already says why
    assert not polled_nothing({"boards": 2, "deferred": 0})
