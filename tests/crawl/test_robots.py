"""robots.txt for HTML sites (RFC 9309), the per-source switch, and a User-Agent
that says who we are."""

from __future__ import annotations

import itertools

import pytest

from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from tests.apps import (
    board,
    greenhouse_source,
    make_due,
    query,
    scans,
    set_robots,
    site_source,
)


def _site(make_app, sandbox, scopes=("it", "ke-toan"), extra: str = "", **settings):
    return make_app(
        site_source("site", f"{sandbox.url}/sites/vieclam", list(scopes), extra=extra), **settings
    )


def _robots_requests(sandbox) -> int:
    return sum(1 for e in sandbox.state.requests() if e.path == "/robots.txt")


def test_a_disallowed_scope_is_not_fetched(make_app, sandbox) -> None:
    set_robots(sandbox, "User-agent: *\nDisallow: /sites/vieclam/ke-toan/\n")
    app = _site(make_app, sandbox)

    report = discover(app, "site")

    assert report.stats["outcomes"] == {"changed": 1, "disallowed": 1}
    assert not [e for e in sandbox.state.requests() if "/ke-toan/" in e.path]
    blocked = board(app, "ke-toan")
    assert [s["outcome"] for s in scans(app, "ke-toan")] == ["disallowed"]
    assert blocked["state"] == "backoff"
    assert "robots.txt" in scans(app, "ke-toan")[0]["error"]
    # Detail pages obey it too.
    set_robots(sandbox, "User-agent: *\nDisallow: /sites/vieclam/it/viec-lam/\n")
    with app.db.connect() as conn:
        conn.execute("UPDATE crawl.robots SET expires_at = now()")
        conn.commit()
    details = fetch_details(app, "site")
    assert details.stats["outcomes"] == {"disallowed": details.stats["postings"]}
    assert not [e for e in sandbox.state.requests() if "/viec-lam/" in e.path]


def test_rules_for_our_own_token_win(make_app, sandbox) -> None:
    set_robots(
        sandbox,
        "User-agent: *\nDisallow: /\n\nUser-agent: jobharbor\nDisallow: /sites/vieclam/it/\n",
    )
    app = _site(make_app, sandbox)
    assert discover(app, "site").stats["outcomes"] == {"changed": 1, "disallowed": 1}
    assert [s["outcome"] for s in scans(app, "it")] == ["disallowed"]


@pytest.mark.parametrize("status", [404, 403, 401])
def test_a_missing_robots_txt_allows_everything(make_app, sandbox, status) -> None:
    set_robots(sandbox, "nothing here", status=status)
    app = _site(make_app, sandbox)
    assert discover(app, "site").stats["outcomes"] == {"changed": 2}
    assert query(app, "SELECT verdict, http_status FROM crawl.robots") == [
        {"verdict": "allow_all", "http_status": status}
    ]


@pytest.mark.parametrize("status", [500, 503, 429])
def test_an_unreachable_robots_txt_disallows_everything_for_a_while(
    make_app, sandbox, status
) -> None:
    set_robots(sandbox, "oops", status=status)
    app = _site(make_app, sandbox)

    first = discover(app, "site")

    assert first.stats["outcomes"] == {"disallowed": 2}
    assert not [e for e in sandbox.state.requests() if "/jobs" in e.path]
    cached = query(
        app,
        "SELECT verdict, EXTRACT(EPOCH FROM expires_at - fetched_at)::int AS ttl FROM crawl.robots",
    )
    assert cached == [{"verdict": "disallow_all", "ttl": 3600}]
    # Cached: the next run does not ask again (it is the same verdict for the hour).
    make_due(app)
    discover(app, "site")
    assert _robots_requests(sandbox) == 1


def test_an_earlier_good_copy_is_kept_while_robots_txt_is_unreachable(make_app, sandbox) -> None:
    set_robots(sandbox, "User-agent: *\nDisallow: /sites/vieclam/ke-toan/\n")
    app = _site(make_app, sandbox, pacing_max_wait_s=1.0)
    discover(app, "site")
    set_robots(sandbox, "down", status=503)
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE crawl.robots SET expires_at = now(), fetched_at = now() - interval '1 day'"
        )
        conn.commit()
    make_due(app)

    report = discover(app, "site")

    assert _robots_requests(sandbox) == 2
    assert query(app, "SELECT verdict FROM crawl.robots") == [{"verdict": "rules"}]
    # "it" is still allowed by the kept rules; the 503 cooled the host down, so its
    # poll waits in the queue instead of being refused.
    assert [s["outcome"] for s in scans(app, "it")] == ["changed"]
    assert report.stats["outcomes"] == {"disallowed": 1}
    assert report.stats["deferred"] == 1


def test_robots_txt_is_fetched_once_and_cached_across_runs(make_app, sandbox) -> None:
    app = _site(make_app, sandbox, scopes=("it", "ke-toan", "marketing", "sales"))
    discover(app, "site")
    make_due(app)
    discover(app, "site", force=True)
    assert _robots_requests(sandbox) == 1
    attempts = query(
        app, "SELECT outcome, http_status FROM crawl.fetch_attempts WHERE url LIKE '%%/robots.txt'"
    )
    assert attempts == [{"outcome": "robots_rules", "http_status": 200}]


def test_the_per_source_switch_ignores_robots_txt(make_app, sandbox) -> None:
    set_robots(sandbox, "User-agent: *\nDisallow: /\n")
    app = _site(make_app, sandbox, extra="    robots: ignore\n")
    assert discover(app, "site").stats["outcomes"] == {"changed": 2}
    assert _robots_requests(sandbox) == 0


def test_ats_apis_are_not_governed_by_robots_txt(make_app, sandbox) -> None:
    set_robots(sandbox, "User-agent: *\nDisallow: /\n")
    app = make_app(greenhouse_source("gh", sandbox.url, ["api"]))
    assert discover(app, "gh").stats["outcomes"] == {"changed": 1}
    assert _robots_requests(sandbox) == 0
    # ... unless a source says otherwise.
    strict = make_app(greenhouse_source("gh2", sandbox.url, ["api2"], extra="    robots: obey\n"))
    assert discover(strict, "gh2").stats["outcomes"] == {"disallowed": 1}


def test_a_crawl_delay_slows_the_host_down(make_app, sandbox) -> None:
    set_robots(sandbox, "User-agent: jobharbor\nCrawl-delay: 1\n")
    app = _site(make_app, sandbox, scopes=("a", "b", "c", "d"))
    discover(app, "site")
    arrivals = sorted(e.at for e in sandbox.state.requests() if "/jobs" in e.path)
    assert len(arrivals) >= 4
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    assert min(gaps) >= 0.95


def test_every_request_names_us_and_a_contact_url(make_app, sandbox) -> None:
    app = _site(make_app, sandbox, contact_url="https://jobs.example.org/crawler")
    discover(app, "site")
    agents = {e.headers.get("user-agent") for e in sandbox.state.requests()}
    assert agents == {"jobharbor/0.1 (+https://jobs.example.org/crawler)"}
