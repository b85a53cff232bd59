"""Politeness shared by every worker: one token bucket per host in `crawl.hosts`.

A host's budget is a rate (requests per second) and a burst. The bucket lives in
Postgres so every process, and both the HTTP and the browser path, draw from the
same one: the host cannot tell our workers apart, so neither do we.

Reservations hand out *future* send times: a bucket may go into debt, and the
debt is exactly the queue of requests already promised a slot. A worker asks for
`n` slots at once (one round trip for a whole batch) and only takes the slots
that fall within `max_wait_s`; what is left over is refused, and the caller puts
that work back in the queue with nothing recorded against it, because our own
congestion is not the employer's failure.

A 429 or 503 cools the host down for everyone: with `Retry-After` for exactly that
long, without it exponentially (30 s, 60 s, ... up to an hour). The cooldown is
written into the bucket itself (one token at the cooldown's end), so no slot is
ever granted inside it; slots granted before it started are re-checked right
before they are used (see `Pacer.cooldown_remaining`).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

from pipeline.db.connect import Database, DictConnection
from pipeline.db.rows import Cooldown, CooldownState, FromRow, Reservation, fetch_one

_Row = TypeVar("_Row", bound=FromRow)

COOLDOWN_BASE_S = 30.0  # first cooldown after a 429/503 without Retry-After
COOLDOWN_MAX_S = 3600.0  # exponential cooldowns stop growing here
RETRY_AFTER_MAX_S = 86400.0  # a Retry-After longer than a day is read as a day
# How old our knowledge of a host's cooldown may be when a request is sent. Past it,
# the request re-reads crawl.hosts first, so a cooldown another worker started is
# seen within this bound (plus one round trip).
FRESH_S = 0.05
_EPSILON_S = 0.001


@dataclass(frozen=True)
class Budget:
    """A host's token bucket: `rate_per_s` sustained, `burst` at once."""

    rate_per_s: float
    burst: int = 1


def slowed(budget: Budget, crawl_delay_s: float | None) -> Budget:
    """The budget a robots.txt `Crawl-delay` leaves: one request per delay at most."""
    if not crawl_delay_s or crawl_delay_s <= 0:
        return budget
    return Budget(min(budget.rate_per_s, 1.0 / crawl_delay_s), 1)


# Hosts no source describes (robots.txt of a redirect target, ...): cautious.
DEFAULT_BUDGET = Budget(1.0, 1)


@dataclass(frozen=True)
class Grant:
    """Send times for the requests a reservation could place within the wait limit."""

    key: str
    delays: tuple[float, ...]  # seconds from the reservation, one per granted request
    refused: int  # requests beyond the wait limit: defer them
    retry_in_s: float  # when the first refused request would have had its slot
    reserved_at: float  # time.monotonic() of the reservation


_ENSURE = """
INSERT INTO crawl.hosts (host, rate_per_s, burst, tokens, tokens_at)
VALUES (%(key)s, %(rate)s, %(burst)s, %(burst)s, now())
ON CONFLICT (host) DO NOTHING
"""

# The bucket's tokens at now() (negative = slots already promised; tokens_at in the
# future = a cooldown), then as many of `want` slots as fall within `max_wait`.
_RESERVE = """
WITH cur AS (
    SELECT host, cooldown_until, cooldown_streak,
           LEAST(%(burst)s::float8,
                 tokens + %(rate)s * EXTRACT(EPOCH FROM now() - tokens_at)::float8) AS avail
    FROM crawl.hosts WHERE host = %(key)s
    FOR UPDATE
), granted AS (
    SELECT cur.*,
           GREATEST(0, LEAST(%(want)s, FLOOR(avail + %(rate)s * %(max_wait)s)))::int AS n
    FROM cur
)
UPDATE crawl.hosts AS h
SET tokens = g.avail - g.n, tokens_at = now(), rate_per_s = %(rate)s, burst = %(burst)s,
    updated_at = now()
FROM granted AS g
WHERE h.host = g.host
RETURNING g.avail, g.n AS granted, g.cooldown_streak,
          GREATEST(0, EXTRACT(EPOCH FROM g.cooldown_until - now())::float8) AS cooldown_s
"""

# One shared cooldown: the longest asked for wins, and the bucket restarts with one
# token at its end, so the first request after it goes exactly when it ends.
_COOL_DOWN = """
WITH c AS (
    SELECT host,
           now() + make_interval(secs => COALESCE(
               %(secs)s::float8,
               LEAST(%(cap)s::float8, %(base)s * power(2, cooldown_streak)))) AS until
    FROM crawl.hosts WHERE host = %(key)s
    FOR UPDATE
)
UPDATE crawl.hosts AS h
SET cooldown_until = GREATEST(h.cooldown_until, c.until),
    cooldown_reason = %(reason)s,
    cooldown_streak = h.cooldown_streak + 1,
    tokens = 1, tokens_at = GREATEST(h.cooldown_until, c.until, h.tokens_at),
    updated_at = now()
FROM c
WHERE h.host = c.host
RETURNING EXTRACT(EPOCH FROM h.cooldown_until - now())::float8 AS cooldown_s
"""

_COOLDOWN_LEFT = """
SELECT GREATEST(0, EXTRACT(EPOCH FROM cooldown_until - now())::float8) AS cooldown_s,
       cooldown_streak
FROM crawl.hosts WHERE host = %(key)s
"""

# Hosts whose shared cooldown runs past now: why a run's deferred boards wait.
_COOLING = """
SELECT host, cooldown_until FROM crawl.hosts
WHERE host = ANY(%(keys)s) AND cooldown_until > now()
"""

_CALM = "UPDATE crawl.hosts SET cooldown_streak = 0, updated_at = now() WHERE host = %(key)s AND cooldown_streak > 0"


class LocalBucket:
    """The same bucket kept by one process at send time. Slots come from the shared
    bucket; this only stops slots that were used late (a busy connection pool, a
    browser starting) from going out together beyond the burst."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.tokens = float(budget.burst)
        self.at = time.monotonic()

    def take(self) -> float:
        """Take a token now; returns how long to wait before sending (0: at once)."""
        now = time.monotonic()
        rate = self.budget.rate_per_s
        self.tokens = min(float(self.budget.burst), self.tokens + (now - self.at) * rate)
        self.at = now
        self.tokens -= 1.0
        return 0.0 if self.tokens >= 0 else -self.tokens / rate


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP-date), or None
    when absent or unreadable. A date in the past means zero; a very long wait is
    capped at a day."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return min(float(text), RETRY_AFTER_MAX_S)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    delta = (when - (now or datetime.now(UTC))).total_seconds()
    return min(max(0.0, delta), RETRY_AFTER_MAX_S)


def slot_delays(avail: float, granted: int, rate: float) -> tuple[float, ...]:
    """Seconds until each granted slot: the i-th needs i+1 tokens."""
    return tuple(max(0.0, (i + 1 - avail) / rate) for i in range(granted))


@dataclass(frozen=True)
class HostCooldown:
    host: str
    cooldown_until: datetime


def cooling_down(conn: DictConnection, keys: Iterable[str]) -> dict[str, datetime]:
    """Each of these hosts still cooling down, with when its cooldown ends."""
    with conn.transaction():
        found = [HostCooldown(**r) for r in conn.execute(_COOLING, {"keys": sorted(set(keys))})]
    return {c.host: c.cooldown_until for c in found}


class Pacer:
    """One process's handle on the shared buckets. Thread-safe; one connection."""

    def __init__(self, db: Database, *, max_wait_s: float = 30.0) -> None:
        self.db = db
        self.max_wait_s = max_wait_s
        self._conn: DictConnection | None = None
        self._lock = threading.RLock()
        self._ensured: set[str] = set()
        # What this process knows without asking: cooldown deadlines (monotonic), when
        # each host's state was last read from Postgres, and hosts with a streak to reset.
        self._cooldown_until: dict[str, float] = {}
        self._checked_at: dict[str, float] = {}
        self._streaky: set[str] = set()

    # ------------------------------------------------------------ connection

    def _connection(self) -> DictConnection:
        if self._conn is None or self._conn.closed:
            self._conn = self.db.connect(autocommit=True)
            # Pacing state is soft: losing the last few milliseconds of bucket updates in
            # a database crash at worst lets a few requests through early once, while
            # waiting for a WAL flush on every reservation would cap the whole crawl.
            self._conn.execute("SET synchronous_commit = off")
        return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _ensure(self, key: str, budget: Budget) -> None:
        if key not in self._ensured:
            self._connection().execute(
                _ENSURE, {"key": key, "rate": budget.rate_per_s, "burst": budget.burst}
            )
            self._ensured.add(key)

    def _update(
        self,
        kind: type[_Row],
        key: str,
        budget: Budget,
        sql: str,
        params: Mapping[str, float | str | None],
    ) -> _Row:
        """Run one bucket update for `key` (creating its row first) and return its row."""
        self._ensure(key, budget)
        row = fetch_one(self._connection(), kind, sql, {"key": key, **params})
        assert row is not None
        return row

    # ------------------------------------------------------------ reservations

    def reserve(self, key: str, budget: Budget, count: int = 1) -> Grant:
        """Slots for up to `count` requests to `key`, none later than max_wait_s."""
        with self._lock:
            row = self._update(
                Reservation,
                key,
                budget,
                _RESERVE,
                {
                    "rate": budget.rate_per_s,
                    "burst": budget.burst,
                    "want": count,
                    "max_wait": self.max_wait_s,
                },
            )
            now = time.monotonic()
            self._note_cooldown(key, float(row.cooldown_s), now)
            if row.cooldown_streak:
                self._streaky.add(key)
        avail, granted = float(row.avail), int(row.granted)
        delays = slot_delays(avail, granted, budget.rate_per_s)
        retry_in = max(0.0, (granted + 1 - avail) / budget.rate_per_s)
        return Grant(key, delays, count - granted, retry_in, now)

    # ------------------------------------------------------------ cooldowns

    def cool_down(self, key: str, budget: Budget, seconds: float | None, reason: str) -> float:
        """Start (or extend) the host's shared cooldown; returns its remaining seconds.
        `seconds` None means no Retry-After: the exponential schedule decides."""
        with self._lock:
            if seconds is not None:
                # Known at once to every request of this process, before the round trip.
                self._cooldown_until[key] = max(
                    self._cooldown_until.get(key, 0.0), time.monotonic() + seconds
                )
            row = self._update(
                Cooldown,
                key,
                budget,
                _COOL_DOWN,
                {"secs": seconds, "cap": COOLDOWN_MAX_S, "base": COOLDOWN_BASE_S, "reason": reason},
            )
            remaining = float(row.cooldown_s)
            self._note_cooldown(key, remaining, time.monotonic())
            self._streaky.add(key)
            return remaining

    def calm(self, key: str) -> None:
        """A good answer ends the host's run of cooldowns (the next one starts small)."""
        if key not in self._streaky:
            return
        with self._lock:
            self._connection().execute(_CALM, {"key": key})
            self._streaky.discard(key)

    def cooldown_remaining(self, key: str, *, known_at: float | None = None) -> float:
        """Seconds of cooldown left for `key`. Reads Postgres when this process's
        knowledge is older than FRESH_S (or than `known_at`, a reservation time)."""
        now = time.monotonic()
        local = self._cooldown_until.get(key, 0.0) - now
        if local > _EPSILON_S:  # a slot granted for the cooldown's end is not inside it
            return local
        checked = max(self._checked_at.get(key, -math.inf), known_at or -math.inf)
        if now - checked <= FRESH_S:
            return 0.0
        with self._lock:
            row = fetch_one(self._connection(), CooldownState, _COOLDOWN_LEFT, {"key": key})
            now = time.monotonic()
            remaining = float(row.cooldown_s) if row else 0.0
            if row and row.cooldown_streak:
                self._streaky.add(key)
            self._note_cooldown(key, remaining, now)
        return remaining

    def _note_cooldown(self, key: str, remaining: float, now: float) -> None:
        self._checked_at[key] = now
        if remaining > 0:
            self._cooldown_until[key] = max(self._cooldown_until.get(key, 0.0), now + remaining)
