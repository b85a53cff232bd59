"""A per-client-IP token bucket for the data routes (in memory, per process)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass


@dataclass
class _Bucket:
    tokens: float
    at: float


class RateLimiter:
    def __init__(self, per_minute: int, *, max_clients: int = 10_000) -> None:
        self.per_minute = per_minute
        self._rate = per_minute / 60.0
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()
        self._max_clients = max_clients

    def allow(self, client: str) -> float | None:
        """None if the request may go ahead, else the seconds to wait."""
        if self.per_minute <= 0:
            return None
        now = time.monotonic()
        with self._lock:
            bucket = self._buckets.get(client)
            if bucket is None:
                if len(self._buckets) >= self._max_clients:
                    self._forget_idle(now)
                bucket = self._buckets[client] = _Bucket(float(self.per_minute), now)
            bucket.tokens = min(self.per_minute, bucket.tokens + (now - bucket.at) * self._rate)
            bucket.at = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return None
            return (1 - bucket.tokens) / self._rate

    def _forget_idle(self, now: float) -> None:
        # Full buckets are the same as new ones; dropping them bounds the memory.
        full = 60.0
        for key in [k for k, b in self._buckets.items() if now - b.at > full]:
            del self._buckets[key]
