"""When a board is polled next, and what a poll's outcome does to its state.

Pure functions of (board state, outcome): the queue stores the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

MIN_INTERVAL_S = 15 * 60
MAX_INTERVAL_S = 24 * 60 * 60
BASE_BACKOFF_S = 5 * 60
RETIRE_AFTER_404S = 3
FAILURE_OUTCOMES = frozenset({"failed", "blocked", "rejected"})
RETRY_SOON_OUTCOMES = frozenset({"rate_limited", "deferred"})
RETRY_SOON_S = 3 * 60


@dataclass(frozen=True)
class BoardState:
    interval_s: int
    consecutive_failures: int
    consecutive_404s: int
    state: str


@dataclass(frozen=True)
class NextState:
    due_at: datetime
    interval_s: int
    consecutive_failures: int
    consecutive_404s: int
    state: str
    state_reason: str | None


def next_state(
    board: BoardState, outcome: str, http_status: int | None, now: datetime
) -> NextState:
    if outcome in RETRY_SOON_OUTCOMES:
        # The host (or our own limiter) asked for patience: not the board's failure.
        return NextState(
            now + timedelta(seconds=RETRY_SOON_S),
            board.interval_s,
            board.consecutive_failures,
            board.consecutive_404s,
            board.state,
            None,
        )
    if outcome in FAILURE_OUTCOMES:
        failures = board.consecutive_failures + 1
        not_found = board.consecutive_404s + 1 if http_status == 404 else 0
        if not_found >= RETIRE_AFTER_404S:
            return NextState(
                now + timedelta(seconds=MAX_INTERVAL_S),
                board.interval_s,
                failures,
                not_found,
                "retired",
                f"{not_found} consecutive 404s on the listing",
            )
        # Exponential backoff, capped at a day: a failing board costs little.
        backoff = min(BASE_BACKOFF_S * 2 ** (failures - 1), MAX_INTERVAL_S)
        return NextState(
            now + timedelta(seconds=backoff),
            board.interval_s,
            failures,
            not_found,
            "backoff",
            f"{outcome} (HTTP {http_status})" if http_status else outcome,
        )
    interval = min(max(board.interval_s, MIN_INTERVAL_S), MAX_INTERVAL_S)
    return NextState(now + timedelta(seconds=interval), interval, 0, 0, "active", None)
