"""A board names its employer: sources.yaml's `company:` (config), the listing's own
name for its board (board), or the token's words (derived); the parse phase records
a listing's name, which never overrides sources.yaml's."""

from __future__ import annotations

from pipeline.app import App
from pipeline.crawl.catalog import sync_catalog
from pipeline.phases.discover import discover
from pipeline.phases.parse import parse_source
from tests.apps import MakeApp, query


def _workable(url: str, boards: str) -> str:
    return f"""
  wk:
    platform: workable
    api_base: {url}/workable
    pacing: {{rate_per_s: 200, burst: 200}}
    boards: {boards}
"""


def _companies(app: App) -> dict[str, tuple[str | None, str | None]]:
    rows = query(app, "SELECT board_key, company, company_source FROM crawl.boards")
    return {r["board_key"]: (r["company"], r["company_source"]) for r in rows}


def test_the_catalog_names_boards_from_config_else_the_token(make_app: MakeApp, sandbox) -> None:
    app = make_app(
        _workable(sandbox.url, "[{token: quiet-robotics, company: QR Inc}, north-health, qZA9VfwF]")
    )
    assert _companies(app) == {
        "quiet-robotics": ("QR Inc", "config"),
        "north-health": ("North Health", "derived"),
        "qZA9VfwF": (None, None),  # an id names no one
    }


def test_a_listing_s_name_is_recorded_and_never_overrides_config(
    make_app: MakeApp, sandbox
) -> None:
    # The sandbox names the owner of board qZA9VfwF "Harbor Freight Analytics" in the
    # widget's top-level `name`; its token derives nothing.
    app = make_app(_workable(sandbox.url, "[qZA9VfwF, {token: north-health, company: NH Group}]"))
    assert discover(app, "wk", force=True).status == "succeeded"
    report = parse_source(app, "wk")
    assert report.stats["boards_named"] == 1
    assert _companies(app) == {
        "qZA9VfwF": ("Harbor Freight Analytics", "board"),
        "north-health": ("NH Group", "config"),  # the listing says "North Health"
    }
    # The parse result keeps the posting's own company (the widget states it per job too).
    owned = query(
        app,
        """SELECT DISTINCT r.company FROM core.parse_results AS r
           JOIN core.postings AS p ON p.id = r.posting_id JOIN crawl.boards AS b ON b.id = p.board_id
           WHERE b.board_key = 'north-health'""",
    )
    assert [r["company"] for r in owned] == ["North Health"]

    # The catalog sync again: the listing's name outranks nothing derived, stays.
    sync_catalog(app)
    assert _companies(app)["qZA9VfwF"] == ("Harbor Freight Analytics", "board")


def test_config_replaces_a_listing_s_name_and_its_removal_falls_back(
    make_app: MakeApp, sandbox
) -> None:
    app = make_app(_workable(sandbox.url, "[north-health]"))
    assert discover(app, "wk", force=True).status == "succeeded"
    parse_source(app, "wk")
    assert _companies(app) == {"north-health": ("North Health", "board")}
    configured = make_app(_workable(sandbox.url, "[{token: north-health, company: NH Group}]"))
    assert _companies(configured) == {"north-health": ("NH Group", "config")}
    make_app(_workable(sandbox.url, "[north-health]"))  # the company: line removed
    assert _companies(app) == {"north-health": ("North Health", "derived")}
