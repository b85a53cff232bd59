"""The adaptive schedule: per-board intervals between 15 minutes and a day, faster
on change, slower only after two quiet passes, jitter that only shortens, failures
backing off up to a day, three 404s retiring a board."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.crawl.schedule import (
    BASE_BACKOFF_S,
    MAX_INTERVAL_S,
    MIN_INTERVAL_S,
    RETRY_SOON_S,
    BoardState,
    next_state,
)
from pipeline.phases.discover import discover
from tests.engine.conftest import board, greenhouse_source, make_due, scans, set_fault

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
OUTCOMES = (
    "not_modified", "unchanged", "changed", "empty", "failed", "blocked", "rejected",
    "disallowed", "rate_limited", "deferred",
)  # fmt: skip


def _wait(state, outcome, status=200, **kw) -> float:
    return (next_state(state, outcome, status, NOW, **kw).due_at - NOW).total_seconds()


def test_a_change_shortens_the_interval_down_to_15_minutes() -> None:
    state = BoardState(4 * 3600, 0, 0, "active")
    intervals = []
    for _ in range(6):
        nxt = next_state(state, "changed", 200, NOW)
        intervals.append(nxt.interval_s)
        state = BoardState(nxt.interval_s, 0, 0, nxt.state, nxt.quiet_passes)
    assert intervals == [7200, 3600, 1800, 900, 900, 900]


def test_the_interval_lengthens_only_after_two_quiet_passes_in_a_row() -> None:
    state = BoardState(3600, 0, 0, "active")
    one = next_state(state, "not_modified", 304, NOW)
    assert (one.interval_s, one.quiet_passes) == (3600, 1)
    # A change in between starts the count again.
    changed = next_state(BoardState(3600, 0, 0, "active", one.quiet_passes), "changed", 200, NOW)
    assert (changed.interval_s, changed.quiet_passes) == (1800, 0)
    two = next_state(BoardState(3600, 0, 0, "active", 1), "unchanged", 200, NOW)
    assert (two.interval_s, two.quiet_passes) == (7200, 0)
    # ... up to a day, never beyond.
    capped = next_state(BoardState(20 * 3600, 0, 0, "active", 1), "not_modified", 304, NOW)
    assert capped.interval_s == MAX_INTERVAL_S


def test_an_empty_listing_changes_no_pace() -> None:
    nxt = next_state(BoardState(3600, 0, 0, "active", 1), "empty", 200, NOW)
    assert (nxt.interval_s, nxt.quiet_passes, nxt.state) == (3600, 1, "active")


@given(
    interval=st.integers(min_value=0, max_value=10 * MAX_INTERVAL_S),
    quiet=st.integers(min_value=0, max_value=5),
    failures=st.integers(min_value=0, max_value=40),
    outcome=st.sampled_from(OUTCOMES),
    jitter=st.floats(min_value=0, max_value=1, exclude_max=True),
    retry_in=st.none() | st.floats(min_value=0, max_value=86400),
)
def test_jitter_only_shortens_and_intervals_stay_in_bounds(
    interval, quiet, failures, outcome, jitter, retry_in
) -> None:
    state = BoardState(interval, failures, 0, "active", quiet)
    plain = next_state(state, outcome, 200, NOW, retry_in_s=retry_in)
    jittered = next_state(state, outcome, 200, NOW, jitter=jitter, retry_in_s=retry_in)
    assert jittered.due_at <= plain.due_at
    assert jittered.due_at >= NOW + (plain.due_at - NOW) * 0.9 - timedelta(microseconds=1)
    if outcome in ("changed", "unchanged", "not_modified", "empty"):
        assert MIN_INTERVAL_S <= jittered.interval_s <= MAX_INTERVAL_S
        assert (plain.due_at - NOW).total_seconds() == pytest.approx(plain.interval_s)
    # Whatever the host asked us to wait, we wait at least that.
    if outcome in ("rate_limited", "deferred") and retry_in is not None:
        assert (jittered.due_at - NOW).total_seconds() >= retry_in
    assert (jittered.due_at - NOW).total_seconds() <= max(MAX_INTERVAL_S, retry_in or 0)


def test_failures_back_off_exponentially_up_to_a_day() -> None:
    waits = [
        _wait(BoardState(3600, failures, 0, "backoff"), "failed", 500) for failures in range(12)
    ]
    assert waits[:4] == [BASE_BACKOFF_S * 2**i for i in range(4)]
    assert max(waits) == MAX_INTERVAL_S
    assert waits == sorted(waits)
    nxt = next_state(BoardState(3600, 2, 0, "backoff"), "blocked", 403, NOW)
    assert (nxt.state, nxt.consecutive_failures, nxt.state_reason) == (
        "backoff",
        3,
        "blocked (HTTP 403)",
    )
    # Success resets the counters and the state; the pace is kept.
    ok = next_state(BoardState(3600, 5, 2, "backoff", 0, "failed"), "not_modified", 304, NOW)
    assert (ok.state, ok.consecutive_failures, ok.consecutive_404s, ok.state_reason) == (
        "active",
        0,
        0,
        None,
    )


def test_waiting_for_the_host_is_not_a_failure() -> None:
    state = BoardState(3600, 2, 1, "backoff", 1, "failed (HTTP 500)")
    for outcome in ("rate_limited", "deferred"):
        nxt = next_state(state, outcome, 429, NOW, retry_in_s=10)
        assert (nxt.consecutive_failures, nxt.consecutive_404s, nxt.state) == (2, 1, "backoff")
        assert nxt.state_reason == "failed (HTTP 500)"
        assert (nxt.interval_s, nxt.quiet_passes) == (3600, 1)
        assert (nxt.due_at - NOW).total_seconds() == RETRY_SOON_S


def test_three_404s_in_a_row_retire_a_board() -> None:
    state = BoardState(3600, 0, 0, "active")
    for expected in (1, 2):
        nxt = next_state(state, "failed", 404, NOW)
        assert (nxt.consecutive_404s, nxt.state) == (expected, "backoff")
        state = BoardState(3600, nxt.consecutive_failures, nxt.consecutive_404s, nxt.state)
    retired = next_state(state, "failed", 404, NOW)
    assert retired.state == "retired"
    assert retired.state_reason == "3 consecutive HTTP 404 answers on the listing"
    # Another failure in between breaks the run.
    broken = next_state(BoardState(3600, 2, 2, "backoff"), "failed", 500, NOW)
    assert (broken.consecutive_404s, broken.state) == (0, "backoff")


def test_a_deleted_board_is_retired_after_three_polls_and_kept(make_app, sandbox) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["gone-acme", "alive"]))
    for _ in range(3):
        make_due(app)
        discover(app, "gh")
    gone = board(app, "gone-acme")
    assert gone["state"] == "retired"
    assert gone["state_reason"] == "3 consecutive HTTP 404 answers on the listing"
    assert [s["http_status"] for s in scans(app, "gone-acme")] == [404, 404, 404]
    assert board(app, "alive")["state"] == "active"
    # Retired boards are kept but no longer claimed.
    make_due(app)
    assert discover(app, "gh").stats["boards"] == 1


def test_a_server_error_backs_off_without_counting_towards_retiring(make_app, sandbox) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["b"]))
    discover(app, "gh")
    set_fault(sandbox, "greenhouse", "b", status=500)
    make_due(app)
    discover(app, "gh")
    row = board(app, "b")
    assert (row["state"], row["consecutive_failures"], row["consecutive_404s"]) == ("backoff", 1, 0)
    assert row["state_reason"] == "failed (HTTP 500)"
    wait = (row["due_at"] - row["last_polled_at"]).total_seconds()
    assert BASE_BACKOFF_S * 0.9 <= wait <= BASE_BACKOFF_S


def test_a_poll_that_finds_changes_brings_the_board_back_sooner(make_app, sandbox) -> None:
    from tests.engine.conftest import advance

    app = make_app(greenhouse_source("gh", sandbox.url, ["busy", "calm"]))
    discover(app, "gh")  # first read: changed -> 3600 / 2
    for _ in range(2):
        advance(sandbox, "greenhouse", "busy")
        make_due(app)
        discover(app, "gh")
    busy, calm = board(app, "busy"), board(app, "calm")
    assert busy["interval_s"] == 900
    assert calm["interval_s"] == 1800 * 2  # two 304s in a row after the first read
    assert calm["quiet_passes"] == 0
