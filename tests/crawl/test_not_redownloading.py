"""Not re-downloading what has not changed: conditional requests, bodies hashed
without their volatile fields, order-free listing hashes, the count probe, and
detail pages only for new or changed listing rows."""

from __future__ import annotations

import pytest

import parsers
from pipeline.crawl.platforms import PLATFORMS
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from tests.apps import (
    advance,
    board,
    greenhouse_source,
    make_due,
    query,
    scans,
    set_fault,
    site_source,
)
from tests.crawl.paged import PAGED_PARSER, TOKEN, PagedPlatform, paged_source


def _raw_count(app) -> int:
    return query(app, "SELECT count(*) AS n FROM crawl.raw_objects")[0]["n"]


def test_an_unchanged_board_costs_exactly_one_304(make_app, sandbox) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["steady"]))
    discover(app, "gh")
    first = board(app, "steady")
    assert first["etag"]
    raws, seen_before = (
        _raw_count(app),
        query(app, "SELECT max(last_seen_at) AS t FROM core.postings"),
    )
    sandbox.state.log.clear()

    make_due(app)
    report = discover(app, "gh")

    log = sandbox.state.requests()
    assert [(e.path.split("?")[0], e.status) for e in log] == [
        ("/greenhouse/v1/boards/steady/jobs", 304)
    ]
    assert log[0].headers["if-none-match"] == first["etag"]
    assert report.stats["outcomes"] == {"not_modified": 1}
    assert _raw_count(app) == raws  # nothing stored: there was no body
    attempts = query(
        app, "SELECT outcome, http_status, byte_length FROM crawl.fetch_attempts ORDER BY id"
    )
    assert attempts[-1] == {"outcome": "not_modified", "http_status": 304, "byte_length": 0}
    # A 304 is positive evidence the membership did not change: postings were seen.
    scan = scans(app, "steady")[-1]
    assert (scan["outcome"], scan["complete"]) == ("not_modified", True)
    assert query(
        app, "SELECT count(*) AS n FROM core.postings WHERE last_seen_scan_id <> %s", scan["id"]
    ) == [{"n": 0}]
    assert (
        query(app, "SELECT max(last_seen_at) AS t FROM core.postings")[0]["t"] > seen_before[0]["t"]
    )


def test_last_modified_alone_is_used_when_there_is_no_etag(make_app, sandbox) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["lm"]))
    set_fault(sandbox, "greenhouse", "lm", validators="last_modified")
    discover(app, "gh")
    row = board(app, "lm")
    assert row["etag"] is None
    assert row["last_modified"]
    make_due(app)
    assert discover(app, "gh").stats["outcomes"] == {"not_modified": 1}
    assert sandbox.state.requests()[-1].headers["if-modified-since"] == row["last_modified"]


@pytest.mark.parametrize("platform", ["greenhouse", "site:vieclam"])
def test_a_restamped_body_is_unchanged_and_not_parsed_again(make_app, sandbox, platform) -> None:
    if platform == "greenhouse":
        app, token = make_app(greenhouse_source("src", sandbox.url, ["stamped"])), "stamped"
    else:
        app, token = make_app(site_source("src", f"{sandbox.url}/sites/vieclam", ["it"])), "it"
    set_fault(sandbox, platform, token, restamp=True)
    discover(app, "src")
    postings = query(
        app, "SELECT id, row_hash, updated_at, detail_state FROM core.postings ORDER BY id"
    )
    make_due(app)

    report = discover(app, "src")

    # New nonces, clocks and "N days ago" each time: the host never answers 304.
    assert {e.status for e in sandbox.state.requests(platform=platform)} == {200}
    assert report.stats["outcomes"] == {"unchanged": 1}
    assert report.stats["postings_changed"] == 0
    assert (
        query(app, "SELECT id, row_hash, updated_at, detail_state FROM core.postings ORDER BY id")
        == postings
    )
    assert scans(app, token)[-1]["outcome"] == "unchanged"


@pytest.mark.parametrize("platform", ["greenhouse", "site:vieclam"])
def test_a_reshuffled_listing_is_unchanged(make_app, sandbox, platform) -> None:
    if platform == "greenhouse":
        app, token = make_app(greenhouse_source("src", sandbox.url, ["mixed"])), "mixed"
    else:
        app, token = make_app(site_source("src", f"{sandbox.url}/sites/vieclam", ["it"])), "it"
    discover(app, "src")
    set_fault(sandbox, platform, token, shuffle=True)
    make_due(app)
    report = discover(app, "src")
    assert report.stats["outcomes"] == {"unchanged": 1}
    assert report.stats["postings_new"] == report.stats["postings_changed"] == 0
    # ... while a real change is still seen.
    advance(sandbox, platform, token)
    make_due(app)
    changed = discover(app, "src")
    assert changed.stats["outcomes"] == {"changed": 1}
    assert changed.stats["postings_new"] == 1


def test_details_are_fetched_only_for_new_or_changed_rows(make_app, sandbox) -> None:
    app = make_app(site_source("site", f"{sandbox.url}/sites/vieclam", ["it"]))
    discover(app, "site")
    total = query(app, "SELECT count(*) AS n FROM core.postings")[0]["n"]
    assert fetch_details(app, "site").stats["outcomes"] == {"fetched": total}
    detail_requests = lambda: [e for e in sandbox.state.requests() if "/viec-lam/" in e.path]  # noqa: E731
    assert len(detail_requests()) == total

    # A restamped listing (fresh nonces, relative dates) needs no detail at all.
    set_fault(sandbox, "site:vieclam", "it", restamp=True)
    make_due(app)
    discover(app, "site")
    assert fetch_details(app, "site").stats["postings"] == 0

    # One posting closes, one opens (the edit is only on the detail page): one detail.
    advance(sandbox, "site:vieclam", "it")
    make_due(app)
    discover(app, "site")
    needed = query(app, "SELECT external_id FROM core.postings WHERE detail_state = 'needed'")
    assert len(needed) == 1
    assert fetch_details(app, "site").stats["outcomes"] == {"fetched": 1}
    assert len(detail_requests()) == total + 1
    assert needed[0]["external_id"] in detail_requests()[-1].path


@pytest.fixture
def paged_app(make_app, sandbox, monkeypatch):
    monkeypatch.setitem(PLATFORMS, "workday", PagedPlatform())
    registry = parsers.REGISTRY.copy()
    registry.add(PAGED_PARSER)
    monkeypatch.setattr(parsers, "REGISTRY", registry)
    return make_app(paged_source("paged", sandbox.url, [TOKEN]))


def _set_full_pass_age(app, hours: float) -> None:
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE crawl.boards SET due_at = now(),"
            " last_full_pass_at = now() - make_interval(secs => %s)",
            (hours * 3600,),
        )
        conn.commit()


def test_the_count_probe_stops_after_the_first_page_when_the_total_is_unchanged(
    paged_app, sandbox
) -> None:
    app = paged_app
    full = discover(app, "paged")
    pages = len(sandbox.state.requests(platform="paged"))
    total = query(app, "SELECT count(*) AS n FROM core.postings")[0]["n"]
    assert pages == -(-total // 5) > 1  # every page read on the first pass
    assert full.stats["outcomes"] == {"changed": 1}
    assert board(app, TOKEN)["item_count"] == total
    sandbox.state.log.clear()

    make_due(app)
    probed = discover(app, "paged")

    assert len(sandbox.state.requests(platform="paged")) == 1
    assert probed.stats["outcomes"] == {"unchanged": 1}
    scan = scans(app, TOKEN)[-1]
    assert (scan["probe"], scan["pages"], scan["complete"], scan["total_reported"]) == (
        True,
        1,
        False,
        total,
    )
    # A count proves less than a 304: nothing is confirmed or counted missing on it.
    assert query(
        app, "SELECT count(*) AS n FROM core.postings WHERE last_seen_scan_id = %s", scan["id"]
    ) == [{"n": 0}]


def test_the_count_probe_forces_a_full_pass_once_the_last_is_older_than_the_bound(
    paged_app, sandbox
) -> None:
    app = paged_app
    bound_h = app.settings.count_probe_full_pass_h
    discover(app, "paged")
    # One posting closes and one opens: the count stays the same.
    advance(sandbox, "paged", TOKEN)
    _set_full_pass_age(app, bound_h - 1)
    assert discover(app, "paged").stats["outcomes"] == {"unchanged": 1}  # the probe cannot see it
    _set_full_pass_age(app, bound_h + 1)
    sandbox.state.log.clear()

    report = discover(app, "paged")

    assert report.stats["outcomes"] == {"changed": 1}
    assert report.stats["postings_new"] == 1
    assert len(sandbox.state.requests(platform="paged")) > 1
    assert scans(app, TOKEN)[-1]["probe"] is False


def test_a_count_change_reads_the_whole_listing(paged_app, sandbox) -> None:
    app = paged_app
    discover(app, "paged")
    with app.db.connect() as conn:  # as if the last full pass had seen one posting fewer
        conn.execute("UPDATE crawl.boards SET due_at = now(), item_count = item_count - 1")
        conn.commit()
    sandbox.state.log.clear()
    report = discover(app, "paged")
    assert len(sandbox.state.requests(platform="paged")) > 1
    # Every page read again; the rows are the same, so nothing is new.
    assert report.stats["outcomes"] == {"unchanged": 1}
    assert scans(app, TOKEN)[-1]["probe"] is False
