"""Freshness in /healthz (docs/operations.md, freshness): the sync publishes, inside its own
transaction, the same per-source summary `jobharbor status` computes (last successes,
lag raw object -> searchable row, its p95), and the web role reads it only through
serving.web_freshness()."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import psycopg
import pytest

from pipeline.app import App
from pipeline.commands.freshness import lag_report
from pipeline.commands.status import gather_status
from pipeline.errors import FatalError
from pipeline.phases.discover import discover
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving
from serving_sync import roles
from tests.conftest import both_layouts
from tests.serving.conftest import WEB_PASSWORD, RunningWeb, start_web

LAG_KEYS = ("published_recently", "lag_p50_s", "lag_p95_s", "lag_max_s")


@pytest.fixture
def lever_synced(app: App) -> App:
    """lever discovered and parsed through the real phases, fetched 2 hours before the sync."""
    assert discover(app, "lever", force=True).status == "succeeded"
    assert parse_source(app, "lever").stats["postings"] > 0
    with app.db.connect() as conn:
        conn.execute("UPDATE crawl.raw_objects SET fetched_at = now() - interval '2 hours'")
        conn.commit()
    return app


@pytest.fixture
def web_for(lever_synced: App) -> Iterator[RunningWeb]:
    roles.provision_web_role(lever_synced.serving_db, WEB_PASSWORD)
    running = start_web(roles.reader_url(lever_synced.serving_db.url, WEB_PASSWORD))
    try:
        yield running
    finally:
        running.stop()


def healthz(web: RunningWeb) -> dict:
    response = httpx.get(web.url + "/healthz", timeout=10)
    assert response.status_code == 200
    return response.json()


@both_layouts
def test_healthz_shows_each_sources_lag_and_p95_as_status_reports_them(
    lever_synced: App, web_for: RunningWeb
) -> None:
    app = lever_synced
    assert sync_serving(app).status == "succeeded"
    body = healthz(web_for)
    # The existing keys stay.
    assert {"status", "last_sync_at", "last_sync_age_s", "published_rows"} <= set(body)
    assert body["lagging"] is False
    status = gather_status(app.db)
    lags = lag_report(app.db, app.serving_db)
    assert set(body["freshness"]) == set(status["sources"])
    lever = body["freshness"]["lever"]
    assert {key: lever[key] for key in LAG_KEYS} == {key: lags["lever"][key] for key in LAG_KEYS}
    assert 7200 <= lever["lag_p95_s"] < 7200 + 300
    assert lever["unpublished"] == lags["lever"]["unpublished"] == 0
    phases = ("discover", "fetch", "parse", "check")
    assert {p: lever["last_success"][p] for p in phases} == status["sources"]["lever"][
        "last_success"
    ]
    assert lever["last_success"]["discover"]
    assert lever["last_success"]["parse"]
    synced = datetime.fromisoformat(lever["last_success"]["sync"])
    assert abs(synced - datetime.fromisoformat(body["last_sync_at"])) < timedelta(seconds=1)
    assert lever["max_lag_s"] == app.settings.freshness_max_lag_s


def test_a_lag_over_the_threshold_makes_healthz_lagging(
    lever_synced: App, web_for: RunningWeb
) -> None:
    app = lever_synced
    app.settings = app.settings.model_copy(update={"freshness_max_lag_s": 600.0})
    assert sync_serving(app).status == "succeeded"
    body = healthz(web_for)
    assert body["lagging"] is True
    assert body["freshness"]["lever"]["lagging"] is True
    assert body["freshness"]["lever"]["max_lag_s"] == 600.0
    # A source without content is not lagging: nothing of it is waiting.
    quiet = [v for k, v in body["freshness"].items() if k != "lever"]
    assert all(not v["lagging"] and v["lag_p95_s"] is None for v in quiet)


def test_a_dry_run_and_a_failed_sync_leave_the_published_freshness(
    lever_synced: App, web_for: RunningWeb
) -> None:
    app = lever_synced
    assert healthz(web_for)["freshness"] == {}  # nothing applied yet
    assert healthz(web_for)["lagging"] is False
    assert sync_serving(app, dry_run=True).status == "succeeded"
    assert healthz(web_for)["freshness"] == {}
    assert sync_serving(app).status == "succeeded"
    before = healthz(web_for)["freshness"]
    with app.db.connect() as conn:  # every posting closes: a mass removal, refused
        conn.execute("UPDATE core.postings SET status = 'expired'")
        conn.commit()
    with pytest.raises(FatalError, match="refusing"):
        sync_serving(app)
    assert healthz(web_for)["freshness"] == before


def test_the_web_role_reads_freshness_only_through_the_function(
    lever_synced: App, web_for: RunningWeb
) -> None:
    app = lever_synced
    assert sync_serving(app).status == "succeeded"
    url = roles.reader_url(app.serving_db.url, WEB_PASSWORD)
    with psycopg.connect(url, autocommit=True) as web_conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            web_conn.execute("SELECT * FROM serving.freshness")
        web_conn.execute("SET default_transaction_read_only = off")  # even then: no write
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            web_conn.execute("DELETE FROM serving.freshness")
        rows = web_conn.execute("SELECT source, lagging FROM serving.web_freshness()").fetchall()
    assert ("lever", False) in rows


def test_the_lag_merge_pairs_ids_in_order_without_a_map() -> None:
    from array import array

    from serving_sync.freshness import Content, lag_summary

    now = datetime(2026, 12, 1, tzinfo=UTC)
    t = now.timestamp()
    content = Content(
        ("a", "b"),
        array("q", [1, 3, 5, 7, 9]),
        array("H", [0, 0, 1, 1, 0]),
        array("d", [t - 100, t - 200, t - 300, t - 400, t - 500]),
    )
    # 2 and 8 are published without content (closing); 5 is older than the window;
    # 7 and 9 are not published yet.
    published = [(1, t - 40), (2, t), (3, t - 50), (5, None), (8, t)]
    found = lag_summary(content, published, now)
    assert found["a"] == {
        "published_recently": 2,
        "lag_p50_s": 60.0,
        "lag_p95_s": 150.0,
        "lag_max_s": 150.0,
        "unpublished": 1,
        "oldest_unpublished_s": 500.0,
    }
    assert found["b"]["published_recently"] == 0
    assert (found["b"]["unpublished"], found["b"]["oldest_unpublished_s"]) == (1, 400.0)


def test_a_sync_that_changes_nothing_keeps_the_lags_and_refreshes_the_times(
    lever_synced: App, web_for: RunningWeb
) -> None:
    app = lever_synced
    assert sync_serving(app).status == "succeeded"
    first = healthz(web_for)
    assert sync_serving(app).stats["inserted"] == 0  # nothing changed
    again = healthz(web_for)
    lever, kept = first["freshness"]["lever"], again["freshness"]["lever"]
    assert {k: kept[k] for k in LAG_KEYS} == {k: lever[k] for k in LAG_KEYS}
    assert kept["computed_at"] == lever["computed_at"]  # not recomputed
    assert kept["last_success"]["sync"] >= lever["last_success"]["sync"]
    assert kept["last_success"]["sync"] == again["last_sync_at"][:19] + "+00:00"
    # Once the stored summary is older than RECOMPUTE_AFTER_S, the next sync recomputes.
    with psycopg.connect(app.serving_db.url) as owner:
        owner.execute("UPDATE serving.freshness SET computed_at = now() - interval '1 hour'")
    aged = healthz(web_for)["freshness"]["lever"]["computed_at"]
    assert sync_serving(app).status == "succeeded"
    later = healthz(web_for)["freshness"]["lever"]
    # Later than the aged stamp (the first stamp may share its second with this one).
    assert later["computed_at"] > aged


def test_the_lags_are_recomputed_on_change_age_sources_or_threshold() -> None:
    from serving_sync.freshness import RECOMPUTE_AFTER_S, Stored, needs_lags

    stored = Stored(("a", "b"), 60.0, 3600.0)
    same = {"sources": ("a", "b"), "stored": stored, "max_lag_s": 3600.0}
    assert needs_lags(changed=False, **same) is False
    assert needs_lags(changed=True, **same) is True
    assert needs_lags(changed=False, **{**same, "sources": ("a",)}) is True
    assert needs_lags(changed=False, **{**same, "max_lag_s": 60.0}) is True
    old = Stored(("a", "b"), RECOMPUTE_AFTER_S + 1, 3600.0)
    assert needs_lags(changed=False, **{**same, "stored": old}) is True
    nothing = Stored((), None, None)
    assert needs_lags(changed=False, **{**same, "stored": nothing}) is True
