"""What the queue does after a failed call: the error-class table, in one place (pure).

| error                               | the queue                                              |
|-------------------------------------|--------------------------------------------------------|
| 429 whose quota id contains PerDay  | provider+model cool down to the next midnight, LA time |
| other 429                           | provider+model wait RetryInfo.retryDelay (the runner   |
|                                     | waits out one that fits its budget wait)               |
| 408 / 5xx / transport               | exponential backoff, capped, attempts capped           |
| 400 / 401 / 403 / 404               | permanent                                              |
| invalid JSON / validation / MAX_TOKENS | one re-ask with the error text, then fail           |

Rate limits are the provider's state, not the posting's: they never count as an
attempt of the posting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

PACIFIC = ZoneInfo("America/Los_Angeles")
DEFAULT_RETRY_DELAY_S = 60.0
ERROR_CLASSES = ("quota_day", "rate_limited", "transient", "permanent", "bad_output")


@dataclass(frozen=True)
class Failure:
    error_class: str
    message: str
    status: int | None = None
    retry_delay_s: float | None = None
    quota_id: str | None = None


@dataclass(frozen=True)
class Decision:
    action: str  # requeue, fail
    next_try_at: datetime | None = None
    cooldown_until: datetime | None = None  # provider + model, for every worker
    count_attempt: bool = True
    reask: bool = False


def next_midnight_la(now: datetime) -> datetime:
    """Daily quotas reset at midnight Pacific time."""
    local = now.astimezone(PACIFIC)
    # Wall-clock arithmetic within one zone: the next local midnight, DST included.
    return datetime(local.year, local.month, local.day, tzinfo=PACIFIC) + timedelta(days=1)


def day_start_la(now: datetime) -> datetime:
    local = now.astimezone(PACIFIC)
    return datetime(local.year, local.month, local.day, tzinfo=PACIFIC)


def backoff_s(attempts: int, base_s: float, cap_s: float) -> float:
    return float(min(cap_s, base_s * 2 ** max(0, attempts - 1)))


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def _details(body: Any) -> list[dict[str, Any]]:
    error = body.get("error", body) if isinstance(body, dict) else {}
    details = error.get("details") if isinstance(error, dict) else None
    return [d for d in details or [] if isinstance(d, dict)]


def retry_delay(body: Any) -> float | None:
    """google.rpc.RetryInfo.retryDelay ("17s", "0.5s") in seconds."""
    for detail in _details(body):
        if str(detail.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = _DURATION.match(str(detail.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def quota_id(body: Any) -> str | None:
    """The first google.rpc.QuotaFailure violation's quotaId."""
    for detail in _details(body):
        if str(detail.get("@type", "")).endswith("google.rpc.QuotaFailure"):
            for violation in detail.get("violations") or []:
                if isinstance(violation, dict) and violation.get("quotaId"):
                    return str(violation["quotaId"])
    return None


def classify_http(status: int, body: Any, message: str = "") -> Failure:
    text = message or f"HTTP {status}"
    if status == 429:
        quota = quota_id(body)
        if quota and "PerDay" in quota:
            return Failure("quota_day", text, status, None, quota)
        return Failure("rate_limited", text, status, retry_delay(body), quota)
    if status == 408 or status >= 500:
        return Failure("transient", text, status)
    if status in (400, 401, 403, 404) or 400 <= status < 500:
        return Failure("permanent", text, status)
    return Failure("transient", text, status)


@dataclass(frozen=True)
class Limits:
    max_attempts: int = 5
    backoff_base_s: float = 30.0
    backoff_cap_s: float = 3600.0
    max_reasks: int = 1


def decide(failure: Failure, attempts: int, reasks: int, now: datetime, limits: Limits) -> Decision:
    """`attempts` and `reasks` are the posting's counts before this failure."""
    kind = failure.error_class
    if kind == "quota_day":
        until = next_midnight_la(now)
        return Decision("requeue", until, until, count_attempt=False)
    if kind == "rate_limited":
        until = now + timedelta(seconds=failure.retry_delay_s or DEFAULT_RETRY_DELAY_S)
        return Decision("requeue", until, until, count_attempt=False)
    if kind == "transient":
        if attempts + 1 >= limits.max_attempts:
            return Decision("fail")
        delay = backoff_s(attempts + 1, limits.backoff_base_s, limits.backoff_cap_s)
        return Decision("requeue", now + timedelta(seconds=delay))
    if kind == "bad_output":
        if reasks >= limits.max_reasks:
            return Decision("fail")
        return Decision("requeue", now, reask=True)
    return Decision("fail")
