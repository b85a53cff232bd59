"""When a board is polled next, and what a poll's outcome does to its state.

Pure functions of (board state, outcome): the queue stores the result.

- Each board has its own interval between 15 minutes and a day, set by how often the
  board is seen to change: a Poisson change rate estimated from its polls (Cho &
  Garcia-Molina's estimator: a poll tells whether the listing changed since the
  last one, not how often), then `RATE_INTERVAL_S * rate ** -RATE_EXPONENT`. The
  exponent is below 1/2 on purpose: a board changing 100 times as often is polled
  about 4 times as often, not 100 times, so a quiet board is never starved. The
  halving/doubling rule this replaces (faster on change, slower after two quiet
  passes) settles at interval ~ 1/rate; bench/freshness.py measured what that cost:
  the p99 detection delay 3x a fixed interval's at the same budget.
- The evidence fades (about the last `RATE_WINDOW_POLLS` polls count), so a board
  that wakes up is followed within a day or two; a prior worth one poll keeps the
  first polls from swinging the interval.
- Jitter spreads boards out but only ever shortens a wait: a 15-minute board
  stays a 15-minute board instead of drifting later.
- A failing board backs off exponentially (5 min, 10 min, ... up to a day); three
  404s in a row on its listing retire it (the state and reason are kept).
- "The host said wait" (rate_limited) and "our own limiter said wait" (deferred)
  are not the board's failures: no counter moves, the board comes back after the
  wait (never earlier than the host asked).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

MIN_INTERVAL_S = 15 * 60
MAX_INTERVAL_S = 24 * 60 * 60
BASE_BACKOFF_S = 5 * 60
RETIRE_AFTER_404S = 3
# The interval of a board changing once a day, and how it scales with the rate.
RATE_INTERVAL_S = 3 * 60 * 60
RATE_EXPONENT = 0.35
RATE_WINDOW_POLLS = 24.0  # evidence beyond about this many polls fades out
# A new board's evidence: worth one poll, as if it had been seen over a day with an
# even chance of having changed (about 0.4 changes a day), so that the first polls
# move the interval gently. It fades with the rest of the evidence.
PRIOR_POLLS = 1.0
PRIOR_CHANGES = 0.5
PRIOR_SEEN_S = 24 * 60 * 60
DAY_S = 24 * 60 * 60
JITTER_FRACTION = 0.1  # a wait is shortened by up to this fraction
RETRY_SOON_S = 3 * 60

CHANGE_OUTCOMES = frozenset({"changed"})
QUIET_OUTCOMES = frozenset({"not_modified", "unchanged"})
FAILURE_OUTCOMES = frozenset({"failed", "blocked", "rejected", "disallowed"})
RETRY_SOON_OUTCOMES = frozenset({"rate_limited", "deferred"})
GONE_STATUSES = frozenset({404, 410})


@dataclass(frozen=True)
class BoardState:
    interval_s: int
    consecutive_failures: int
    consecutive_404s: int
    state: str
    quiet_passes: int = 0
    state_reason: str | None = None
    # The change-rate evidence (decayed): polls that read the listing, how many of
    # them found it changed, and the time they covered.
    rate_polls: float = 0.0
    rate_changes: float = 0.0
    rate_seen_s: float = 0.0


@dataclass(frozen=True)
class NextState:
    due_at: datetime
    interval_s: int
    consecutive_failures: int
    consecutive_404s: int
    state: str
    state_reason: str | None
    quiet_passes: int = 0
    rate_polls: float = 0.0
    rate_changes: float = 0.0
    rate_seen_s: float = 0.0


def change_rate_per_day(polls: float, changes: float, seen_s: float) -> float:
    """Estimated listing changes per day: Cho & Garcia-Molina's bias-reduced estimator
    for a Poisson process seen through polls, -ln((n - X + 0.5) / (n + 0.5)) per mean
    gap. A board without evidence yet has the prior's rate."""
    if polls <= 0:
        polls, changes, seen_s = PRIOR_POLLS, PRIOR_CHANGES, PRIOR_SEEN_S
    changed = min(max(changes, 0.0), polls)
    mean_gap_s = max(seen_s / polls, 1.0)
    return -math.log((polls - changed + 0.5) / (polls + 0.5)) * DAY_S / mean_gap_s


def interval_for_rate(rate_per_day: float) -> int:
    """A board changing `rate_per_day` times a day is polled this often (clamped)."""
    if rate_per_day <= 0:
        return MAX_INTERVAL_S
    return clamp_interval(RATE_INTERVAL_S * rate_per_day**-RATE_EXPONENT)


def observed(board: BoardState, changed: bool, elapsed_s: float) -> tuple[float, float, float]:
    """The board's rate evidence after one more read, `elapsed_s` after the last poll.
    The first read starts from the prior, which then fades like any other evidence."""
    polls, changes, seen = board.rate_polls, board.rate_changes, board.rate_seen_s
    if polls <= 0:
        polls, changes, seen = PRIOR_POLLS, PRIOR_CHANGES, PRIOR_SEEN_S
    polls += 1.0
    changes += 1.0 if changed else 0.0
    seen += max(elapsed_s, 0.0)
    if polls > RATE_WINDOW_POLLS:
        fade = RATE_WINDOW_POLLS / polls
        polls, changes, seen = polls * fade, changes * fade, seen * fade
    return polls, changes, seen


def clamp_interval(seconds: float) -> int:
    return int(min(max(seconds, MIN_INTERVAL_S), MAX_INTERVAL_S))


def jittered(seconds: float, jitter: float) -> float:
    """`seconds` shortened by up to JITTER_FRACTION; `jitter` in [0, 1)."""
    return seconds * (1.0 - JITTER_FRACTION * min(max(jitter, 0.0), 1.0))


def next_state(
    board: BoardState,
    outcome: str,
    http_status: int | None,
    now: datetime,
    *,
    jitter: float = 0.0,
    retry_in_s: float | None = None,
    elapsed_s: float | None = None,
) -> NextState:
    """`http_status` is the listing's first page status; `retry_in_s` is how long the
    host (Retry-After) or our limiter asked us to wait, when one did; `elapsed_s` is
    the time since the board's previous poll (None for its first)."""
    if outcome in RETRY_SOON_OUTCOMES:
        return _retry_soon(board, now, jitter, retry_in_s)
    if outcome in FAILURE_OUTCOMES:
        return _failure(board, outcome, http_status, now, jitter)
    interval, quiet = board.interval_s, board.quiet_passes
    evidence = (board.rate_polls, board.rate_changes, board.rate_seen_s)
    listed = outcome in CHANGE_OUTCOMES or outcome in QUIET_OUTCOMES
    quiet = 0 if outcome in CHANGE_OUTCOMES else quiet + (outcome in QUIET_OUTCOMES)
    if listed and elapsed_s is not None:
        # A first read (nothing to compare with) and anything else (an empty listing)
        # prove nothing either way: the evidence and the pace stay.
        evidence = observed(board, outcome in CHANGE_OUTCOMES, elapsed_s)
        interval = interval_for_rate(change_rate_per_day(*evidence))
    interval = clamp_interval(interval)
    due = now + timedelta(seconds=jittered(interval, jitter))
    return NextState(due, interval, 0, 0, "active", None, quiet, *evidence)


def _retry_soon(
    board: BoardState, now: datetime, jitter: float, retry_in_s: float | None
) -> NextState:
    wait = max(jittered(RETRY_SOON_S, jitter), retry_in_s or 0.0)
    return NextState(
        # Rounded up to the microsecond: never a hair earlier than the host asked.
        now + timedelta(microseconds=math.ceil(wait * 1_000_000)),
        board.interval_s,
        board.consecutive_failures,
        board.consecutive_404s,
        board.state,
        board.state_reason,  # waiting changes nothing about why the board is where it is
        board.quiet_passes,
        *_evidence(board),
    )


def _failure(
    board: BoardState, outcome: str, http_status: int | None, now: datetime, jitter: float
) -> NextState:
    failures = board.consecutive_failures + 1
    not_found = board.consecutive_404s + 1 if http_status in GONE_STATUSES else 0
    if not_found >= RETIRE_AFTER_404S:
        return NextState(
            now + timedelta(seconds=MAX_INTERVAL_S),
            board.interval_s,
            failures,
            not_found,
            "retired",
            f"{not_found} consecutive HTTP {http_status} answers on the listing",
            board.quiet_passes,
            *_evidence(board),
        )
    # Exponential backoff, capped at a day: a failing board costs little.
    backoff = min(BASE_BACKOFF_S * 2 ** (failures - 1), MAX_INTERVAL_S)
    return NextState(
        now + timedelta(seconds=jittered(backoff, jitter)),
        board.interval_s,
        failures,
        not_found,
        "backoff",
        f"{outcome} (HTTP {http_status})" if http_status else outcome,
        board.quiet_passes,
        *_evidence(board),
    )


def _evidence(board: BoardState) -> tuple[float, float, float]:
    return board.rate_polls, board.rate_changes, board.rate_seen_s
