"""When a board is polled next, and what a poll's outcome does to its state.

Pure functions of (board state, outcome): the queue stores the result.

- Each board has its own interval between 15 minutes and a day. A poll that finds
  changes halves it; it doubles only after two quiet passes in a row, because a
  board that changes every few hours looks quiet most of the time and relaxing
  on the first quiet pass would slow every such board down.
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
QUIET_PASSES_TO_LENGTHEN = 2
SHORTEN_FACTOR = 0.5
LENGTHEN_FACTOR = 2.0
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


@dataclass(frozen=True)
class NextState:
    due_at: datetime
    interval_s: int
    consecutive_failures: int
    consecutive_404s: int
    state: str
    state_reason: str | None
    quiet_passes: int = 0


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
) -> NextState:
    """`http_status` is the listing's first page status; `retry_in_s` is how long the
    host (Retry-After) or our limiter asked us to wait, when one did."""
    if outcome in RETRY_SOON_OUTCOMES:
        return _retry_soon(board, now, jitter, retry_in_s)
    if outcome in FAILURE_OUTCOMES:
        return _failure(board, outcome, http_status, now, jitter)
    interval, quiet = board.interval_s, board.quiet_passes
    if outcome in CHANGE_OUTCOMES:
        interval, quiet = board.interval_s * SHORTEN_FACTOR, 0
    elif outcome in QUIET_OUTCOMES:
        quiet += 1
        if quiet >= QUIET_PASSES_TO_LENGTHEN:
            interval, quiet = board.interval_s * LENGTHEN_FACTOR, 0
    # Anything else (an empty listing) proves nothing either way: the pace stays.
    interval = clamp_interval(interval)
    due = now + timedelta(seconds=jittered(interval, jitter))
    return NextState(due, interval, 0, 0, "active", None, quiet)


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
    )
