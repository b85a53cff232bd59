"""Freshness per source, computed once: the lag from raw object to searchable row.

Lag of a published row = serving.jobs.synced_at - fetched_at of the raw object its
current parse result was read from (rows synced in the last `window_days`). A posting
that should be published but is not yet counts as `unpublished`, with its lag so far
(now - fetched_at): a stuck sync shows up there, not in the published lags.

`jobharbor status` and the `jobharbor_freshness` DAG (pipeline.commands.freshness) read
it live from both databases; the serving sync computes the same summary inside its own
transaction and publishes it to serving.freshness, which the web role reads
through serving.web_freshness() for `/healthz`.
"""

from __future__ import annotations

import math
from array import array
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pipeline.db.connect import DictConnection
from serving_sync.source import PUBLISHED_STATUSES

PHASES = ("discover", "fetch", "parse", "check")
WINDOW_DAYS = 7.0

CONTENT_SQL = """
SELECT p.id, p.source_id, extract(epoch FROM ro.fetched_at)::float8 AS fetched
FROM core.postings AS p
JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current
JOIN crawl.raw_objects AS ro ON ro.sha256 = r.raw_sha256
JOIN ref.sources AS s ON s.id = p.source_id AND s.enabled
WHERE p.status = ANY(%s)
ORDER BY p.id
"""
# When each phase last succeeded, per source (sync runs have no source: source_id NULL).
LAST_SUCCESS_SQL = """SELECT source_id, phase AS key, max(finished_at) AS at FROM crawl.runs
           WHERE status = 'succeeded' AND (%(source)s::text IS NULL OR source_id = %(source)s OR source_id IS NULL)
           GROUP BY 1, 2"""
# Every published row in id order; synced_at only for those synced within the window
# (older ones are searchable, but not part of the recent lags).
_PUBLISHED = """SELECT id, CASE WHEN synced_at > now() - make_interval(secs => %s)
                               THEN extract(epoch FROM synced_at)::float8 END AS synced
                FROM serving.jobs ORDER BY id"""
_BATCH = 5000


@dataclass(frozen=True)
class Content:
    """Every posting that should be searchable, in id order, in compact arrays (a million
    postings take about 18 MB): its id, its source (an index into `names`) and when its
    raw object was fetched (epoch seconds)."""

    names: tuple[str, ...]
    ids: array
    source: array
    fetched: array


def percentile(values: Sequence[float], share: float) -> float | None:
    """Nearest-rank percentile (p95 of 20 values is the 19th smallest)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def read_content(conn: DictConnection) -> Content:
    """Streamed (a server-side cursor), so memory is the arrays, never a row list."""
    names: dict[str, int] = {}
    ids, source, fetched = array("q"), array("H"), array("d")
    with conn.transaction(), conn.cursor(name="freshness_content") as cursor:
        cursor.itersize = _BATCH
        cursor.execute(CONTENT_SQL, (list(PUBLISHED_STATUSES),))
        for row in cursor:
            ids.append(row["id"])
            source.append(names.setdefault(row["source_id"], len(names)))
            fetched.append(row["fetched"])
    return Content(tuple(names), ids, source, fetched)


def read_published(
    conn: DictConnection, window_days: float = WINDOW_DAYS
) -> Iterator[tuple[int, float | None]]:
    """(id, synced_at as epoch seconds or None when older than the window), in id order."""
    with conn.transaction(), conn.cursor(name="freshness_published") as cursor:
        cursor.itersize = _BATCH
        cursor.execute(_PUBLISHED, (window_days * 86400,))
        for row in cursor:
            yield row["id"], row["synced"]


def lag_summary(
    content: Content, published: Iterable[tuple[int, float | None]], now: datetime
) -> dict[str, dict[str, Any]]:
    """Per source: published lags (p50, p95, max) and what is still waiting. Both inputs
    are in id order: one merge, no map of every id."""
    lags: dict[str, list[float]] = defaultdict(list)
    waiting: dict[str, list[float]] = defaultdict(list)
    at = now.timestamp()
    rows = iter(published)
    current = next(rows, None)
    for i, posting in enumerate(content.ids):
        while current is not None and current[0] < posting:
            current = next(rows, None)
        name = content.names[content.source[i]]
        if current is None or current[0] != posting:
            waiting[name].append(at - content.fetched[i])
        elif current[1] is not None:
            lags[name].append(max(current[1] - content.fetched[i], 0.0))
    return {
        name: {
            "published_recently": len(lags[name]),
            "lag_p50_s": _round(percentile(lags[name], 0.5)),
            "lag_p95_s": _round(percentile(lags[name], 0.95)),
            "lag_max_s": _round(max(lags[name], default=None)),
            "unpublished": len(waiting[name]),
            "oldest_unpublished_s": _round(max(waiting[name], default=None)),
        }
        for name in sorted(set(lags) | set(waiting))
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def check_freshness(lags: Mapping[str, Mapping[str, Any]], max_lag_s: float) -> list[str]:
    """One sentence per source whose lag passes the threshold."""
    problems = []
    for name, info in sorted(lags.items()):
        for key in ("lag_p95_s", "oldest_unpublished_s"):
            value = info.get(key)
            if value is not None and value > max_lag_s:
                problems.append(f"{name}: {key} = {value:.0f}s > {max_lag_s:.0f}s")
    return problems


def read_last_success(
    conn: DictConnection, source: str | None = None
) -> dict[str | None, dict[str, datetime]]:
    """source -> phase -> when it last succeeded (key None: the sync)."""
    last: dict[str | None, dict[str, datetime]] = {}
    for row in conn.execute(LAST_SUCCESS_SQL, {"source": source}):
        last.setdefault(row["source_id"], {})[row["key"]] = row["at"]
    return last


# ---------------------------------------------------------------- published by the sync


# A sync that changes nothing published keeps the stored lags (they describe the same
# rows) and refreshes only the times, unless they are older than this: the window
# moves and waiting postings age even when nothing is published.
RECOMPUTE_AFTER_S = 900.0


@dataclass(frozen=True)
class FreshnessRead:
    """What the sync reads for freshness from its own source snapshot. `content` is
    None when the stored lags still hold (see needs_lags)."""

    sources: tuple[str, ...]
    content: Content | None
    last_success: dict[str | None, dict[str, datetime]]


@dataclass(frozen=True)
class Stored:
    """The summary serving holds now."""

    sources: tuple[str, ...]
    age_s: float | None
    max_lag_s: float | None


def needs_lags(
    *, changed: bool, sources: tuple[str, ...], stored: Stored, max_lag_s: float
) -> bool:
    """Whether this sync must recompute the lags (reading every published posting's
    fetch time) rather than keep the stored ones."""
    return (
        changed
        or stored.age_s is None
        or stored.age_s > RECOMPUTE_AFTER_S
        or stored.sources != sources
        or stored.max_lag_s != max_lag_s
    )


_ENABLED = "SELECT id FROM ref.sources WHERE enabled ORDER BY id"
_STORED = """SELECT coalesce(array_agg(source ORDER BY source), '{}') AS sources,
                    extract(epoch FROM now() - min(computed_at))::float8 AS age_s,
                    max(max_lag_s) AS max_lag_s
             FROM serving.freshness"""
# The sync's staging (serving_sync.stage): any staged content or removal is a change.
_CHANGED = "SELECT EXISTS (SELECT 1 FROM staging) OR EXISTS (SELECT 1 FROM staging_gone) AS changed"


def read_for_sync(
    source: DictConnection, serving: DictConnection, *, full: bool, max_lag_s: float
) -> FreshnessRead:
    """Inside the sync's source snapshot, after staging."""
    sources = tuple(r["id"] for r in source.execute(_ENABLED))
    # Both are aggregates or a bare SELECT: exactly one row each.
    row = serving.execute(_STORED).fetchone()
    assert row is not None
    stored = Stored(tuple(row["sources"]), row["age_s"], row["max_lag_s"])
    changed = full
    if not full:
        change = serving.execute(_CHANGED).fetchone()
        assert change is not None
        changed = change["changed"]
    recompute = needs_lags(changed=changed, sources=sources, stored=stored, max_lag_s=max_lag_s)
    content = read_content(source) if recompute else None
    return FreshnessRead(sources, content, read_last_success(source))


_CLEAR = "DELETE FROM serving.freshness"
_INSERT = """
INSERT INTO serving.freshness (source, computed_at, last_discover_at, last_fetch_at,
    last_parse_at, last_check_at, last_sync_at, published_recently, lag_p50_s, lag_p95_s,
    lag_max_s, unpublished, oldest_unpublished_s, max_lag_s, lagging)
VALUES (%(source)s, now(), %(discover)s, %(fetch)s, %(parse)s, %(check)s, now(),
    %(published_recently)s, %(lag_p50_s)s, %(lag_p95_s)s, %(lag_max_s)s, %(unpublished)s,
    %(oldest_unpublished_s)s, %(max_lag_s)s, %(lagging)s)
"""
_EMPTY = {
    "published_recently": 0,
    "lag_p50_s": None,
    "lag_p95_s": None,
    "lag_max_s": None,
    "unpublished": 0,
    "oldest_unpublished_s": None,
}


_TIMES = """UPDATE serving.freshness SET last_discover_at = %(discover)s,
                last_fetch_at = %(fetch)s, last_parse_at = %(parse)s, last_check_at = %(check)s,
                last_sync_at = now()
            WHERE source = %(source)s"""


def publish(conn: DictConnection, read: FreshnessRead, max_lag_s: float) -> int:
    """Replace serving.freshness with this sync's summary, in the sync's transaction
    (so it is never half-published, and it describes exactly what this sync made
    searchable); or, when the stored lags still hold, refresh its times. Returns the
    rows written."""
    if read.content is None:
        for name in read.sources:
            last = read.last_success.get(name, {})
            conn.execute(_TIMES, {"source": name, **{p: last.get(p) for p in PHASES}})
        return len(read.sources)
    clock = conn.execute("SELECT now() AS now").fetchone()
    assert clock is not None
    now = clock["now"]
    lags = lag_summary(read.content, read_published(conn), now)
    conn.execute(_CLEAR)
    for name in read.sources:
        info = lags.get(name, _EMPTY)
        last = read.last_success.get(name, {})
        conn.execute(
            _INSERT,
            {
                "source": name,
                **{phase: last.get(phase) for phase in PHASES},
                **info,
                "max_lag_s": max_lag_s,
                "lagging": bool(check_freshness({name: info}, max_lag_s)),
            },
        )
    return len(read.sources)
