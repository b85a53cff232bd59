"""What a forced discover says it did: boards polled, boards deferred and why, boards it
did not reach.

Forcing only moves boards' due times, never politeness: a board whose host is cooling
down (a 429/503 with or without Retry-After) or whose host budget stays spent goes
back in the queue unpolled, and the summary says so, so an operator who asked for
"now" sees which boards waited and until when.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from pipeline.phases.common import utc_clock


@dataclass(frozen=True)
class Deferral:
    """Why a claimed board went back in the queue unpolled."""

    host: str  # the budget it waits for (the request's pacing key)
    why: str | None = None  # set when the host is not the reason


def deferral_reason(deferral: Deferral, cooling: Mapping[str, datetime], now: datetime) -> str:
    if deferral.why:
        return deferral.why
    until = cooling.get(deferral.host)
    if until is not None:
        return f"host {deferral.host} cooling down until {utc_clock(until, now)}"
    return f"host {deferral.host}'s request budget spent"


def forced_summary(
    polled: int,
    deferrals: Mapping[int, Deferral],
    not_claimed: int,
    cooling: Mapping[str, datetime],
    now: datetime,
) -> str:
    """`forced: 3 boards polled, 1 deferred (host h cooling down until 22:41 UTC)`."""
    if not polled and not deferrals and not not_claimed:
        return "forced: no enabled board to poll"
    parts = [f"forced: {_boards(polled)} polled"]
    if deferrals:
        reasons = Counter(deferral_reason(d, cooling, now) for d in deferrals.values())
        parts.append(f"{len(deferrals)} deferred ({_tally(reasons)})")
    if not_claimed:
        parts.append(
            f"{not_claimed} not claimed (leased by another worker, or behind a host budget"
            " that stayed spent)"
        )
    return ", ".join(parts)


def _boards(count: int) -> str:
    return f"{count} board" if count == 1 else f"{count} boards"


def _tally(reasons: Counter[str]) -> str:
    """One reason as is; several, each with how many boards it held back."""
    if len(reasons) == 1:
        return next(iter(reasons))
    return "; ".join(f"{n}: {reason}" for reason, n in reasons.most_common())
