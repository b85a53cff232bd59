"""A short-lived cache of facet and stats counts, per filter set.

Counts of a popular page (the landing page, a common word) are the most expensive
queries and the same for everyone until the next sync. A cached result is still a
true number: it is shown with its `computed_at`. Results with an unavailable part are
never cached, so a slow moment is not remembered.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

from serving_sync.search import Counts


class CountsCache:
    def __init__(self, ttl_s: float, max_entries: int = 512) -> None:
        self.ttl_s = ttl_s
        self._entries: OrderedDict[Hashable, tuple[float, Counts]] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries

    def get_or_compute(self, key: Hashable, compute: Callable[[], Counts]) -> Counts:
        if self.ttl_s <= 0:
            return compute()
        now = time.monotonic()
        with self._lock:
            hit = self._entries.get(key)
            if hit and hit[0] > now:
                self._entries.move_to_end(key)
                return hit[1]
        found = compute()
        if found.total is not None and all(g is not None for g in found.groups.values()):
            with self._lock:
                self._entries[key] = (now + self.ttl_s, found)
                self._entries.move_to_end(key)
                while len(self._entries) > self._max:
                    self._entries.popitem(last=False)
        return found
