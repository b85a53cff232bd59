"""Freshness: per source, the lag from raw object to searchable row and its p95; a
posting waiting for the sync counts as unpublished; a threshold flags the source."""

from __future__ import annotations

from pipeline.app import App
from pipeline.commands.freshness import (
    check_freshness,
    freshness_headline,
    lag_report,
    percentile,
)
from pipeline.phases.sync import sync_serving


def test_percentile_is_nearest_rank() -> None:
    assert percentile(list(range(1, 21)), 0.95) == 19
    assert percentile([5.0], 0.95) == 5.0
    assert percentile([], 0.95) is None


def test_lag_report_counts_unpublished_then_published_lags(parsed_lever: App) -> None:
    app = parsed_lever
    before = lag_report(app.db, app.serving_db)["lever"]
    assert before["published_recently"] == 0
    assert before["unpublished"] > 0
    assert before["oldest_unpublished_s"] >= 0

    with app.db.connect() as conn:  # fetched an hour before this sync
        conn.execute("UPDATE crawl.raw_objects SET fetched_at = now() - interval '1 hour'")
        conn.commit()
    assert sync_serving(app).status == "succeeded"
    after = lag_report(app.db, app.serving_db)["lever"]
    assert after["unpublished"] == 0
    assert after["published_recently"] == before["unpublished"]
    assert 3600 <= after["lag_p95_s"] < 3600 + 300

    assert check_freshness({"lever": after}, max_lag_s=6 * 3600) == []
    (problem,) = check_freshness({"lever": after}, max_lag_s=60)
    assert problem.startswith("lever: lag_p95_s = 36")


def test_the_freshness_headline_names_the_stalest_sources_first() -> None:
    hour = 3600.0
    lags = {
        name: {"lag_p95_s": p95, "oldest_unpublished_s": oldest}
        for name, p95, oldest in (
            ("lever", 7 * hour, None),
            ("greenhouse", 2 * hour, 26 * hour),
            ("ashby", 9 * hour, 8 * hour),
            ("workday", 6.5 * hour, None),
            ("fresh", 1 * hour, 2 * hour),
        )
    }
    assert freshness_headline(lags, max_lag_s=6 * hour) == (
        "freshness: 4 sources stale over 6 h (greenhouse 26 h, ashby 9 h, lever 7 h, +1 more)"
    )
    assert freshness_headline({"fresh": lags["fresh"]}, max_lag_s=6 * hour) is None
    assert freshness_headline({"lever": lags["lever"]}, max_lag_s=90) == (
        "freshness: 1 source stale over 2 min (lever 7 h)"
    )
    assert freshness_headline({"lever": lags["lever"]}, max_lag_s=0.001) == (
        "freshness: 1 source stale over 0.001 s (lever 7 h)"
    )
