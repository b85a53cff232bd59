"""The adaptive schedule: per-board intervals between 15 minutes and a day set by the
board's estimated change rate (flatter than the rate: quiet boards are not starved),
jitter that only shortens, failures backing off up to a day, three 404s retiring a
board."""

from __future__ import annotations

import itertools
import math
import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.crawl.schedule import (
    BASE_BACKOFF_S,
    MAX_INTERVAL_S,
    MIN_INTERVAL_S,
    RATE_EXPONENT,
    RATE_INTERVAL_S,
    RATE_WINDOW_POLLS,
    RETRY_SOON_S,
    BoardState,
    change_rate_per_day,
    interval_for_rate,
    next_state,
)
from pipeline.phases.discover import discover
from tests.apps import board, greenhouse_source, make_due, scans, set_fault

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
OUTCOMES = (
    "not_modified", "unchanged", "changed", "empty", "failed", "blocked", "rejected",
    "disallowed", "rate_limited", "deferred",
)  # fmt: skip


def _wait(state, outcome, status=200, **kw) -> float:
    return (next_state(state, outcome, status, NOW, **kw).due_at - NOW).total_seconds()


def _polls(state: BoardState, outcomes: list[str], gap_s: float) -> BoardState:
    """The board after polls `gap_s` apart with these outcomes, stored as discover does."""
    for outcome in outcomes:
        nxt = next_state(state, outcome, 200, NOW, elapsed_s=gap_s)
        state = BoardState(
            nxt.interval_s, 0, 0, nxt.state, nxt.quiet_passes, None,
            nxt.rate_polls, nxt.rate_changes, nxt.rate_seen_s,
        )  # fmt: skip
    return state


def test_the_rate_estimate_recovers_a_poisson_boards_rate() -> None:
    rng = random.Random(3)
    for per_day, gap_s in ((0.5, 6 * 3600), (6.0, 3600), (40.0, 900)):
        changed = [rng.random() < 1 - math.exp(-per_day * gap_s / 86400) for _ in range(4000)]
        polls, changes = len(changed), sum(changed)
        estimate = change_rate_per_day(polls, changes, polls * gap_s)
        assert estimate == pytest.approx(per_day, rel=0.15)
    # A board never seen to change keeps only the prior's trace: close to zero.
    assert change_rate_per_day(40, 0, 40 * 86400) < 0.02


def test_the_interval_follows_the_rate_but_flatter_so_quiet_boards_are_not_starved() -> None:
    assert interval_for_rate(1.0) == RATE_INTERVAL_S
    # 100 times the changes buy about 100 ** 0.3 = 4 times the polls, not 100 times.
    ratio = interval_for_rate(0.1) / interval_for_rate(10.0)
    assert ratio == pytest.approx(100**RATE_EXPONENT, rel=0.01)
    assert interval_for_rate(10_000.0) == MIN_INTERVAL_S
    assert interval_for_rate(1e-6) == MAX_INTERVAL_S
    assert interval_for_rate(0.0) == MAX_INTERVAL_S


def test_a_board_that_changes_on_every_poll_comes_down_under_an_hour() -> None:
    busy = _polls(BoardState(3600, 0, 0, "active"), ["changed"] * 40, 900)
    # The evidence is a window of about RATE_WINDOW_POLLS polls, nearly all changed.
    assert busy.rate_polls == RATE_WINDOW_POLLS
    assert busy.rate_changes > RATE_WINDOW_POLLS - 0.5
    rate = change_rate_per_day(busy.rate_polls, busy.rate_changes, busy.rate_seen_s)
    assert rate > 50  # changed on every 15-minute poll: many times an hour, perhaps
    assert busy.interval_s == interval_for_rate(rate) < 3600
    assert busy.quiet_passes == 0


def test_a_quiet_board_relaxes_gradually_up_to_a_day() -> None:
    state, intervals = BoardState(3600, 0, 0, "active"), []
    for _ in range(100):  # about six weeks of polls
        state = _polls(state, ["not_modified"], state.interval_s)
        intervals.append(state.interval_s)
    assert intervals == sorted(intervals)
    # One quiet pass is no proof of a dormant board: the first steps are small ...
    assert all(later < 1.3 * earlier for earlier, later in itertools.pairwise(intervals))
    assert intervals[0] < 5 * 3600
    # ... and a board that stays quiet ends at the day.
    assert intervals[-1] == MAX_INTERVAL_S
    assert state.quiet_passes == 100


def test_one_change_after_a_quiet_spell_moves_the_interval_but_does_not_reset_it() -> None:
    quiet = _polls(BoardState(3600, 0, 0, "active"), ["unchanged"] * 10, 6 * 3600)
    woke = _polls(quiet, ["changed"], 6 * 3600)
    assert woke.interval_s < quiet.interval_s
    assert woke.interval_s > MIN_INTERVAL_S
    assert woke.quiet_passes == 0


def test_old_evidence_fades_so_a_board_that_wakes_up_is_followed() -> None:
    asleep = _polls(BoardState(3600, 0, 0, "active"), ["not_modified"] * 200, 86400)
    assert asleep.interval_s == MAX_INTERVAL_S
    first = _polls(asleep, ["changed"], 3600)
    assert first.interval_s < MAX_INTERVAL_S / 2  # one change is news on a dormant board
    awake = _polls(first, ["changed"] * 11, 3600)
    assert awake.interval_s < 3.5 * 3600
    assert _polls(awake, ["changed"] * 12, 3600).interval_s < awake.interval_s
    assert awake.rate_polls <= RATE_WINDOW_POLLS


def test_a_first_read_and_an_empty_listing_are_no_evidence() -> None:
    first = next_state(BoardState(3600, 0, 0, "active"), "changed", 200, NOW, elapsed_s=None)
    assert (first.interval_s, first.rate_polls, first.rate_changes) == (3600, 0, 0)
    state = BoardState(5000, 0, 0, "active", 1, None, 7.0, 2.0, 50_000.0)
    empty = next_state(state, "empty", 200, NOW, elapsed_s=3600)
    assert (empty.interval_s, empty.quiet_passes, empty.state) == (5000, 1, "active")
    assert (empty.rate_polls, empty.rate_changes, empty.rate_seen_s) == (7.0, 2.0, 50_000.0)


@given(
    interval=st.integers(min_value=0, max_value=10 * MAX_INTERVAL_S),
    quiet=st.integers(min_value=0, max_value=5),
    failures=st.integers(min_value=0, max_value=40),
    outcome=st.sampled_from(OUTCOMES),
    jitter=st.floats(min_value=0, max_value=1, exclude_max=True),
    retry_in=st.none() | st.floats(min_value=0, max_value=86400),
    elapsed=st.none() | st.floats(min_value=0, max_value=30 * 86400),
    polls=st.floats(min_value=0, max_value=100),
    changed_share=st.floats(min_value=0, max_value=1),
)
def test_jitter_only_shortens_and_intervals_stay_in_bounds(
    interval, quiet, failures, outcome, jitter, retry_in, elapsed, polls, changed_share
) -> None:
    evidence = (polls, polls * changed_share, polls * 3600)
    state = BoardState(interval, failures, 0, "active", quiet, None, *evidence)
    kw = {"retry_in_s": retry_in, "elapsed_s": elapsed}
    plain = next_state(state, outcome, 200, NOW, **kw)
    jittered = next_state(state, outcome, 200, NOW, jitter=jitter, **kw)
    assert jittered.due_at <= plain.due_at
    assert jittered.due_at >= NOW + (plain.due_at - NOW) * 0.9 - timedelta(microseconds=1)
    if outcome in ("changed", "unchanged", "not_modified", "empty"):
        assert MIN_INTERVAL_S <= jittered.interval_s <= MAX_INTERVAL_S
        assert (plain.due_at - NOW).total_seconds() == pytest.approx(plain.interval_s)
    # Whatever the host asked us to wait, we wait at least that.
    if outcome in ("rate_limited", "deferred") and retry_in is not None:
        assert (jittered.due_at - NOW).total_seconds() >= retry_in
    assert (jittered.due_at - NOW).total_seconds() <= max(MAX_INTERVAL_S, retry_in or 0)
    # Only a read of the listing is evidence of the change rate.
    moved = (plain.rate_polls, plain.rate_changes, plain.rate_seen_s) != evidence
    if moved:
        assert outcome in ("changed", "unchanged", "not_modified")
        assert elapsed is not None


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
    state = BoardState(3600, 2, 1, "backoff", 1, "failed (HTTP 500)", 5.0, 1.0, 9000.0)
    for outcome in ("rate_limited", "deferred"):
        nxt = next_state(state, outcome, 429, NOW, retry_in_s=10, elapsed_s=600)
        assert (nxt.consecutive_failures, nxt.consecutive_404s, nxt.state) == (2, 1, "backoff")
        assert nxt.state_reason == "failed (HTTP 500)"
        assert (nxt.interval_s, nxt.quiet_passes) == (3600, 1)
        assert (nxt.rate_polls, nxt.rate_changes, nxt.rate_seen_s) == (5.0, 1.0, 9000.0)
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


def test_a_board_seen_changing_is_polled_sooner_and_its_evidence_is_stored(
    make_app, sandbox
) -> None:
    from tests.apps import advance

    app = make_app(greenhouse_source("gh", sandbox.url, ["busy", "calm"]))
    discover(app, "gh")  # first read: nothing to compare with, no evidence
    first = board(app, "busy")
    assert (first["interval_s"], first["rate_polls"], first["rate_changes"]) == (3600, 0, 0)
    for _ in range(2):
        advance(sandbox, "greenhouse", "busy")
        make_due(app)
        discover(app, "gh")
    busy, calm = board(app, "busy"), board(app, "calm")
    # Two reads each on top of the prior (one poll, half a change).
    assert (busy["rate_polls"], busy["rate_changes"]) == (3, 2.5)
    assert (calm["rate_polls"], calm["rate_changes"]) == (3, 0.5)
    assert busy["rate_seen_s"] > 0
    assert busy["interval_s"] < calm["interval_s"]
    assert calm["quiet_passes"] == 2  # two 304s in a row after the first read
