"""robots.txt for the HTML sites we crawl (RFC 9309), cached across runs and workers.

- 2xx: the rules apply to our product token (the User-Agent before the "/").
- 4xx (no robots.txt, or none for us): everything is allowed.
- 5xx, 429, network failure: the site is unreachable, so everything is disallowed
  for a while (UNREACHABLE_TTL_S) -- unless an earlier good copy is cached: the RFC
  lets a crawler keep using it while the file cannot be read.
- More than five redirects: treated as unavailable (allowed), as the RFC permits.

A good copy is kept for a day. Each robots.txt request spends the host's budget
like any other request and is recorded in crawl.fetch_attempts. A `Crawl-delay`
for our token slows the host's budget to at most one request per delay.

Sources of ATS APIs set `robots: ignore` (or inherit it from their platform):
robots.txt governs crawling web pages, not an API an employer publishes for this.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from protego import Protego

from pipeline.crawl.http.fetcher import FetchRequest, FetchResult
from pipeline.crawl.pacing import Budget
from pipeline.db.connect import Database, DictConnection
from pipeline.db.rows import StoredRobots, fetch_one

GOOD_TTL_S = 24 * 3600
UNREACHABLE_TTL_S = 3600
MAX_ROBOTS_BYTES = 500 * 1024  # the RFC's minimum a crawler must parse


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str
    crawl_delay_s: float | None = None
    deferred_s: float | None = None  # our limiter had no slot for robots.txt: ask later


@dataclass(frozen=True)
class _Entry:
    verdict: str  # rules, allow_all, disallow_all
    rules: Protego | None
    expires_at: datetime
    http_status: int | None


_LOAD = "SELECT verdict, body, http_status, expires_at FROM crawl.robots WHERE origin = %(origin)s"

_SAVE = """
INSERT INTO crawl.robots (origin, verdict, http_status, body, error, fetched_at, expires_at)
VALUES (%(origin)s, %(verdict)s, %(status)s, %(body)s, %(error)s, now(), %(expires_at)s)
ON CONFLICT (origin) DO UPDATE SET verdict = excluded.verdict,
    http_status = excluded.http_status, body = excluded.body, error = excluded.error,
    fetched_at = excluded.fetched_at, expires_at = excluded.expires_at
"""

_KEEP = "UPDATE crawl.robots SET expires_at = %(expires_at)s, error = %(error)s WHERE origin = %(origin)s"


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.lower()}"


def product_token(user_agent: str) -> str:
    return user_agent.split("/", 1)[0].strip() or user_agent


class RobotsCache:
    """Answers "may we fetch this URL?" per origin. `fetch` sends one request through
    the paced fetcher; `record` writes it to crawl.fetch_attempts."""

    def __init__(
        self,
        db: Database,
        user_agent: str,
        fetch: Callable[[FetchRequest], FetchResult],
        record: Callable[[FetchResult, str], None] | None = None,
    ) -> None:
        self.db = db
        self.token = product_token(user_agent)
        self._fetch = fetch
        self._record = record
        self._entries: dict[str, _Entry] = {}
        self._conn: DictConnection | None = None
        self._lock = threading.Lock()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connection(self) -> DictConnection:
        if self._conn is None or self._conn.closed:
            self._conn = self.db.connect(autocommit=True)
        return self._conn

    def check(self, url: str, budget: Budget, host_key: str | None = None) -> Verdict:
        origin = origin_of(url)
        with self._lock:
            entry = self._entries.get(origin)
            now = datetime.now(UTC)
            if entry is None or entry.expires_at <= now:
                entry = self._load(origin, now)
            if entry is None or entry.expires_at <= now:
                fetched = self._refresh(origin, budget, host_key, previous=entry)
                if isinstance(fetched, Verdict):
                    return fetched
                entry = fetched
            self._entries[origin] = entry
        return self._judge(entry, url)

    def _judge(self, entry: _Entry, url: str) -> Verdict:
        if entry.verdict == "allow_all":
            return Verdict(True, f"robots.txt unavailable (HTTP {entry.http_status}): allowed")
        if entry.verdict == "disallow_all":
            return Verdict(False, "robots.txt unreachable: disallowed for now")
        assert entry.rules is not None
        delay = entry.rules.crawl_delay(self.token)
        if entry.rules.can_fetch(url, self.token):
            return Verdict(True, "allowed by robots.txt", delay)
        return Verdict(False, f"disallowed by robots.txt for {self.token}", delay)

    def _load(self, origin: str, now: datetime) -> _Entry | None:
        row = fetch_one(self._connection(), StoredRobots, _LOAD, {"origin": origin})
        if row is None:
            return None
        rules = Protego.parse(row.body or "") if row.verdict == "rules" else None
        return _Entry(row.verdict, rules, row.expires_at, row.http_status)

    def _refresh(
        self, origin: str, budget: Budget, host_key: str | None, previous: _Entry | None
    ) -> _Entry | Verdict:
        result = self._fetch(FetchRequest(f"{origin}/robots.txt", budget=budget, host_key=host_key))
        if result.deferred:
            return Verdict(
                False, "robots.txt not fetched yet (rate budget)", None, result.deferred_s
            )
        status = result.status
        now = datetime.now(UTC)
        if status is not None and 200 <= status < 300:
            text = result.body[:MAX_ROBOTS_BYTES].decode("utf-8", "replace")
            entry = _Entry(
                "rules", Protego.parse(text), now + timedelta(seconds=GOOD_TTL_S), status
            )
            self._save(origin, entry, text, None, result, "robots_rules")
        elif status is not None and 400 <= status < 500 and status != 429:
            entry = _Entry("allow_all", None, now + timedelta(seconds=GOOD_TTL_S), status)
            self._save(origin, entry, None, None, result, "robots_unavailable")
        elif result.error and "redirects" in result.error and not result.blocked_address:
            entry = _Entry("allow_all", None, now + timedelta(seconds=GOOD_TTL_S), status)
            self._save(origin, entry, None, result.error, result, "robots_unavailable")
        else:
            error = result.error or f"HTTP {status}"
            expires = now + timedelta(seconds=UNREACHABLE_TTL_S)
            if previous is not None and previous.verdict != "disallow_all":
                # Unreachable now, but we have the site's own word from before: keep it.
                entry = _Entry(previous.verdict, previous.rules, expires, previous.http_status)
                self._connection().execute(
                    _KEEP, {"origin": origin, "expires_at": expires, "error": error}
                )
                self._note(result, "robots_unreachable")
            else:
                entry = _Entry("disallow_all", None, expires, status)
                self._save(origin, entry, None, error, result, "robots_unreachable")
        return entry

    def _save(
        self,
        origin: str,
        entry: _Entry,
        body: str | None,
        error: str | None,
        result: FetchResult,
        outcome: str,
    ) -> None:
        self._connection().execute(
            _SAVE,
            {
                "origin": origin,
                "verdict": entry.verdict,
                "status": entry.http_status,
                "body": body,
                "error": error,
                "expires_at": entry.expires_at,
            },
        )
        self._note(result, outcome)

    def _note(self, result: FetchResult, outcome: str) -> None:
        if self._record is not None:
            self._record(result, outcome)
