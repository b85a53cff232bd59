"""Freshness per source: when each phase last succeeded, and how long content takes from
its raw object to a searchable row.

Lag of a published row = serving.jobs.synced_at - fetched_at of the raw object its
current parse result was read from (rows synced in the last `window_days`). A posting
that should be published but is not yet counts as `unpublished`, with its lag so far
(now - fetched_at): a stuck sync shows up there, not in the published lags.
`check_freshness` lists every source whose p95 lag or oldest unpublished lag passes
the threshold (setting `freshness_max_lag_s`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pipeline.db.connect import Database
from serving_sync.reconcile import PUBLISHED_STATUSES

_CONTENT = """
SELECT p.id, p.source_id, ro.fetched_at
FROM core.postings AS p
JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current
JOIN crawl.raw_objects AS ro ON ro.sha256 = r.raw_sha256
JOIN ref.sources AS s ON s.id = p.source_id AND s.enabled
WHERE p.status = ANY(%s)
"""


def percentile(values: Sequence[float], share: float) -> float | None:
    """Nearest-rank percentile (p95 of 20 values is the 19th smallest)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _published(serving_db: Database, window_days: float) -> dict[int, datetime]:
    try:
        with serving_db.connect() as conn:
            rows = conn.execute(
                """SELECT id, synced_at FROM serving.jobs
                   WHERE synced_at > now() - make_interval(secs => %s)""",
                (window_days * 86400,),
            ).fetchall()
            everything = {r["id"] for r in conn.execute("SELECT id FROM serving.jobs")}
    except Exception as exc:  # serving not migrated yet: nothing is searchable
        if "does not exist" not in str(exc):
            raise
        return {}
    recent = {r["id"]: r["synced_at"] for r in rows}
    # Published earlier than the window: searchable, but not part of the recent lags.
    return {i: recent.get(i) for i in everything}  # type: ignore[misc]


def lag_report(db: Database, serving_db: Database, *, window_days: float = 7.0) -> dict[str, Any]:
    now = datetime.now(UTC)
    with db.connect() as conn:
        content = conn.execute(_CONTENT, (list(PUBLISHED_STATUSES),)).fetchall()
    published = _published(serving_db, window_days)
    lags: dict[str, list[float]] = defaultdict(list)
    waiting: dict[str, list[float]] = defaultdict(list)
    for row in content:
        if row["id"] not in published:
            waiting[row["source_id"]].append((now - row["fetched_at"]).total_seconds())
        elif published[row["id"]] is not None:
            lag = (published[row["id"]] - row["fetched_at"]).total_seconds()
            lags[row["source_id"]].append(max(lag, 0.0))
    sources = sorted(set(lags) | set(waiting))
    return {
        name: {
            "published_recently": len(lags[name]),
            "lag_p50_s": _round(percentile(lags[name], 0.5)),
            "lag_p95_s": _round(percentile(lags[name], 0.95)),
            "lag_max_s": _round(max(lags[name], default=None)),
            "unpublished": len(waiting[name]),
            "oldest_unpublished_s": _round(max(waiting[name], default=None)),
        }
        for name in sources
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


def render_lags(lags: Mapping[str, Mapping[str, Any]]) -> str:
    def shown(value: float | None) -> str:
        return "-" if value is None else f"{value:.0f}s"

    lines = ["freshness (raw object -> searchable row):"]
    for name, info in sorted(lags.items()):
        lines.append(
            f"  {name:<20} p50 {shown(info['lag_p50_s']):>8}  p95 {shown(info['lag_p95_s']):>8}  "
            f"max {shown(info['lag_max_s']):>8}  unpublished {info['unpublished']}"
            f" (oldest {shown(info['oldest_unpublished_s'])})"
        )
    return "\n".join(lines)
