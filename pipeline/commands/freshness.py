"""Freshness per source: when each phase last succeeded, and how long content takes from
its raw object to a searchable row.

Lag of a published row = serving.jobs.synced_at - fetched_at of the raw object its
current parse result was read from (rows synced in the last `window_days`). A posting
that should be published but is not yet counts as `unpublished`, with its lag so far
(now - fetched_at): a stuck sync shows up there, not in the published lags.
`check_freshness` lists every source whose p95 lag or oldest unpublished lag passes
the threshold (setting `freshness_max_lag_s`). The computation lives in
serving_sync.freshness: the serving sync publishes the same summary for the web app.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pipeline.db.connect import Database
from serving_sync.freshness import (
    WINDOW_DAYS,
    check_freshness,
    lag_summary,
    percentile,
    read_content,
    read_published,
)

__all__ = ["check_freshness", "freshness_headline", "lag_report", "percentile", "render_lags"]
SHOWN_STALE = 3


def lag_report(
    db: Database, serving_db: Database, *, window_days: float = WINDOW_DAYS
) -> dict[str, Any]:
    now = datetime.now(UTC)
    with db.connect() as conn:
        content = read_content(conn)
    try:
        with serving_db.connect() as conn:
            return lag_summary(content, read_published(conn, window_days), now)
    except Exception as exc:  # serving not migrated yet: nothing is searchable
        if "does not exist" not in str(exc):
            raise
        return lag_summary(content, (), now)


def freshness_headline(lags: Mapping[str, Mapping[str, Any]], max_lag_s: float) -> str | None:
    """One short line naming the stalest sources, worst first (None: nothing is stale):
    `freshness: 2 sources stale over 6 h (greenhouse 26 h, lever 7 h)`."""
    worst = {}
    for name, info in lags.items():
        values = [info.get(k) for k in ("lag_p95_s", "oldest_unpublished_s")]
        over = [v for v in values if v is not None and v > max_lag_s]
        if over:
            worst[name] = max(over)
    if not worst:
        return None
    ranked = sorted(worst.items(), key=lambda item: (-item[1], item[0]))
    shown = [f"{name} {_duration(lag)}" for name, lag in ranked[:SHOWN_STALE]]
    if len(ranked) > SHOWN_STALE:
        shown.append(f"+{len(ranked) - SHOWN_STALE} more")
    noun = "source" if len(ranked) == 1 else "sources"
    return f"freshness: {len(ranked)} {noun} stale over {_duration(max_lag_s)} ({', '.join(shown)})"


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.0f} h"
    if seconds >= 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s" if seconds >= 1 else f"{seconds:g} s"


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
