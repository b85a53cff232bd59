"""The whole path against the sandbox over real sockets and a real Postgres:
discover -> fetch -> parse -> sync, idempotence, change, and bad input that
loses nothing already stored."""

from __future__ import annotations

import json
from typing import Any

import httpx

from pipeline.app import App
from pipeline.crawl.catalog import sync_catalog
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving
from serving_sync.reconcile import search


def run_all(app: App) -> dict[str, Any]:
    reports: dict[str, Any] = {}
    for name in app.source_names():
        reports[f"discover:{name}"] = discover(app, name, force=True).stats
        reports[f"fetch:{name}"] = fetch_details(app, name).stats
        reports[f"parse:{name}"] = parse_source(app, name).stats
    reports["sync"] = sync_serving(app).stats
    return reports


def counts(app: App) -> dict[str, int]:
    queries = {
        "postings": "SELECT count(*) FROM core.postings",
        "results": "SELECT count(*) FROM core.parse_results",
        "current": "SELECT count(*) FROM core.parse_results WHERE is_current",
        "raw": "SELECT count(*) FROM crawl.raw_objects",
        "events": "SELECT count(*) FROM core.posting_events",
    }
    with app.db.connect() as conn:
        return {k: conn.execute(q).fetchone()["count"] for k, q in queries.items()}


def serving_ids(app: App) -> set[int]:
    with app.serving_db.connect() as conn:
        return {r["id"] for r in conn.execute("SELECT id FROM serving.jobs")}


def sandbox_total(sandbox, platform: str, tokens: list[str]) -> int:
    return sum(len(sandbox.state.board(platform, t).jobs) for t in tokens)


def test_first_run_collects_parses_and_publishes_everything(app: App, sandbox) -> None:
    reports = run_all(app)
    gh_tokens = [b.token for b in app.sources.get("greenhouse").boards]
    gh_jobs = sandbox_total(sandbox, "greenhouse", gh_tokens)
    site_jobs = sandbox_total(sandbox, "site:vieclam", ["it", "ke-toan"])

    assert reports["discover:greenhouse"]["outcomes"] == {"changed": len(gh_tokens)}
    assert reports["discover:greenhouse"]["postings_new"] == gh_jobs
    assert reports["fetch:greenhouse"]["postings"] == 0  # the API listing carries full content
    assert reports["parse:greenhouse"]["quality"] == {"accepted": gh_jobs}
    assert reports["fetch:vieclam"]["outcomes"] == {"fetched": site_jobs}
    assert reports["parse:vieclam"]["quality"] == {"accepted": site_jobs}
    parsed = sum(reports[f"parse:{name}"]["postings"] for name in app.source_names())
    assert parsed >= gh_jobs + site_jobs  # every sandbox platform runs, not only these two
    assert reports["sync"]["inserted"] == parsed

    with app.db.connect() as conn:
        raw_states = conn.execute(
            "SELECT state, count(*) AS n FROM crawl.raw_objects GROUP BY 1"
        ).fetchall()
        attempts = conn.execute("SELECT count(*) AS n FROM crawl.fetch_attempts").fetchone()["n"]
        site = conn.execute(
            """SELECT r.title, r.company, r.location_text, r.description_text, r.posted_precision
               FROM core.parse_results r JOIN core.postings p ON p.id = r.posting_id
               WHERE p.source_id = 'vieclam' AND r.is_current ORDER BY p.id LIMIT 1"""
        ).fetchone()
    assert [(r["state"], r["n"] > 0) for r in raw_states] == [("ready", True)]
    assert attempts >= len(gh_tokens) + site_jobs
    # A detail page (JSON-LD) merged with its listing card: nothing left empty.
    assert site["title"]
    assert site["company"]
    assert site["location_text"]
    assert site["description_text"]
    assert site["posted_precision"] == "day"

    hits = list(search(app.serving_db, "engineer", 50))
    assert hits
    assert all("engineer" in h["title"].lower() for h in hits)
    # Folding: a query without diacritics finds Vietnamese text with them.
    assert list(search(app.serving_db, "ke toan", 5)) or list(search(app.serving_db, "ky su", 5))


def test_second_run_finds_everything_unchanged_and_publishes_nothing(app: App) -> None:
    run_all(app)
    before = counts(app)
    reports = run_all(app)
    assert reports["discover:greenhouse"]["outcomes"] == {"not_modified": 5}  # one 304 per board
    assert set(reports["discover:vieclam"]["outcomes"]) == {"unchanged"}
    assert (
        reports["discover:greenhouse"]["postings_new"]
        == reports["discover:vieclam"]["postings_new"]
        == 0
    )
    assert reports["fetch:vieclam"]["postings"] == 0
    assert reports["parse:greenhouse"]["postings"] == reports["parse:vieclam"]["postings"] == 0
    assert (
        reports["sync"]["inserted"],
        reports["sync"]["updated"],
        reports["sync"]["removed"],
    ) == (0, 0, 0)
    assert counts(app) == before


def test_each_phase_run_twice_changes_nothing_the_second_time(app: App) -> None:
    discover(app, "greenhouse", force=True)
    after_discover = counts(app)
    assert discover(app, "greenhouse").stats["boards"] == 0  # nothing due again yet
    assert counts(app) == after_discover
    parse_source(app, "greenhouse")
    after_parse = counts(app)
    assert parse_source(app, "greenhouse").stats["postings"] == 0
    assert counts(app) == after_parse
    first = sync_serving(app).stats
    second = sync_serving(app).stats
    assert first["inserted"] > 0
    assert (second["inserted"], second["updated"], second["removed"], second["unchanged"]) == (
        0,
        0,
        0,
        first["inserted"],
    )


def test_a_changed_board_adds_edits_and_only_later_misses_postings(app: App, sandbox) -> None:
    run_all(app)
    published = serving_ids(app)
    httpx.post(
        f"{sandbox.url}/_sandbox/advance", params={"platform": "greenhouse", "token": "northwind"}
    )
    reports = run_all(app)
    found = reports["discover:greenhouse"]
    assert found["outcomes"] == {"changed": 1, "not_modified": 4}
    assert (found["postings_new"], found["postings_changed"], found["postings_missing"]) == (
        1,
        1,
        0,
    )
    assert reports["parse:greenhouse"]["postings"] == 2
    assert (
        reports["sync"]["inserted"],
        reports["sync"]["updated"],
        reports["sync"]["removed"],
    ) == (1, 1, 0)
    # The removed posting is absent from one complete scan: not missing yet, still published.
    assert published <= serving_ids(app)

    httpx.post(
        f"{sandbox.url}/_sandbox/advance", params={"platform": "greenhouse", "token": "northwind"}
    )
    reports = run_all(app)
    assert reports["discover:greenhouse"]["postings_missing"] == 1
    with app.db.connect() as conn:
        event = conn.execute(
            "SELECT from_status, to_status, reason, evidence FROM core.posting_events"
        ).fetchone()
        rows = conn.execute("SELECT status, count(*) AS n FROM core.postings GROUP BY 1").fetchall()
    statuses = {r["status"]: r["n"] for r in rows}
    assert (event["from_status"], event["to_status"], event["reason"]) == (
        "active",
        "missing",
        "absent_from_2_complete_scans",
    )
    assert "scan_id" in event["evidence"]
    assert statuses.get("missing") == 1
    assert "expired" not in statuses


def test_unreachable_boards_fail_visibly_and_lose_nothing(app: App, sandbox, tmp_path) -> None:
    run_all(app)
    before = counts(app)
    sources = tmp_path / "broken.yaml"
    sources.write_text(
        "sources:\n"
        "  greenhouse:\n    platform: greenhouse\n"
        f"    api_base: {sandbox.url}/greenhouse\n"
        "    boards: [northwind, gone-board]\n"
        "  dead:\n    platform: greenhouse\n    api_base: http://127.0.0.1:9\n    boards: [acme]\n"
    )
    broken = App.create(settings=app.settings.model_copy(update={"sources_file": sources}))
    sync_catalog(broken)
    gone = discover(broken, "greenhouse", force=True).stats
    dead = discover(broken, "dead", force=True).stats
    assert gone["outcomes"] == {"not_modified": 1, "failed": 1}
    assert dead["outcomes"] == {"failed": 1}
    with broken.db.connect() as conn:
        rows = conn.execute(
            """SELECT b.board_key, b.state, b.consecutive_failures, b.consecutive_404s, s.http_status, s.error
               FROM crawl.boards b JOIN crawl.scans s ON s.board_id = b.id
               WHERE b.board_key IN ('gone-board', 'acme') AND b.source_id IN ('greenhouse', 'dead')
               ORDER BY s.id"""
        ).fetchall()
    by_key = {r["board_key"]: r for r in rows}
    assert by_key["gone-board"]["http_status"] == 404
    assert by_key["gone-board"]["consecutive_404s"] == 1
    assert by_key["gone-board"]["state"] == "backoff"
    assert by_key["acme"]["http_status"] is None
    assert "Connect" in by_key["acme"]["error"]
    after = counts(app)
    assert after["postings"] == before["postings"]
    assert after["current"] == before["current"]


def test_a_malformed_listing_is_a_rejected_scan_with_issues(app: App, sandbox) -> None:
    run_all(app)
    before = counts(app)
    httpx.post(
        f"{sandbox.url}/_sandbox/fault",
        params={"platform": "greenhouse", "token": "northwind"},
        content=json.dumps({"status": 200, "body": '{"jobs": [{"id": 1, "title": '}),
    )
    found = discover(app, "greenhouse", force=True).stats
    assert found["outcomes"] == {"not_modified": 4, "rejected": 1}
    with app.db.connect() as conn:
        scan = conn.execute(
            """SELECT s.outcome, s.issues, s.raw_sha256 FROM crawl.scans s JOIN crawl.boards b ON b.id = s.board_id
               WHERE b.board_key = 'northwind' ORDER BY s.id DESC LIMIT 1"""
        ).fetchone()
        raw = conn.execute(
            "SELECT state FROM crawl.raw_objects WHERE sha256 = %s", (scan["raw_sha256"],)
        ).fetchone()
    assert scan["outcome"] == "rejected"
    assert scan["issues"][0]["code"] == "invalid_json"
    assert raw["state"] == "ready"  # the bad body itself is kept, for debugging and re-parsing
    after = counts(app)
    assert (after["postings"], after["current"], after["events"]) == (
        before["postings"],
        before["current"],
        before["events"],
    )


def test_a_malformed_detail_page_is_a_rejected_parse_that_keeps_the_good_result(
    app: App, sandbox
) -> None:
    run_all(app)
    with app.db.connect() as conn:
        posting = conn.execute(
            "SELECT id, detail_url FROM core.postings WHERE source_id = 'vieclam' ORDER BY id LIMIT 1"
        ).fetchone()
        good = conn.execute(
            "SELECT id, title FROM core.parse_results WHERE posting_id = %s AND is_current",
            (posting["id"],),
        ).fetchone()
        # The posting's row changes (as after a listing edit) and its page is now garbage.
        conn.execute(
            "UPDATE core.postings SET detail_state = 'needed' WHERE id = %s", (posting["id"],)
        )
    category = posting["detail_url"].split("/sites/vieclam/")[1].split("/")[0]
    httpx.post(
        f"{sandbox.url}/_sandbox/fault",
        params={"platform": "site:vieclam", "token": category},
        content=json.dumps(
            {
                "status": 200,
                "content_type": "text/html; charset=utf-8",
                "body": "<html><body><p>" + "lorem " * 60 + "</p></body></html>",
            }
        ),
    )
    assert fetch_details(app, "vieclam").stats["outcomes"] == {"fetched": 1}
    parsed = parse_source(app, "vieclam").stats
    assert parsed["quality"] == {"rejected": 1}
    with app.db.connect() as conn:
        rows = conn.execute(
            "SELECT id, quality, issues, is_current FROM core.parse_results WHERE posting_id = %s ORDER BY id",
            (posting["id"],),
        ).fetchall()
    assert [(r["quality"], r["is_current"]) for r in rows] == [
        ("accepted", True),
        ("rejected", False),
    ]
    assert rows[0]["id"] == good["id"]
    assert {i["code"] for i in rows[1]["issues"]} >= {"no_posting"}


def test_only_a_posting_new_on_a_board_read_before_has_a_known_age(app: App, sandbox) -> None:
    """The first read of a board finds postings that may have been listed for years; one
    that appears at a later read was posted since the read before (docs/data-model.md,
    "Dates"). The flag is published, so serving sorts and windows by it."""
    run_all(app)
    with app.db.connect() as conn:
        first = conn.execute("SELECT count(*) AS n FROM core.postings WHERE age_known").fetchone()
    assert first["n"] == 0
    httpx.post(
        f"{sandbox.url}/_sandbox/advance", params={"platform": "greenhouse", "token": "northwind"}
    )
    run_all(app)
    with app.db.connect() as conn:
        known = conn.execute("SELECT id FROM core.postings WHERE age_known").fetchall()
    assert len(known) == 1  # the one posting the advance opened
    with app.serving_db.connect() as conn:
        published = conn.execute(
            "SELECT id FROM serving.jobs WHERE age_known AND id = %s", (known[0]["id"],)
        ).fetchall()
        unknown = conn.execute("SELECT count(*) AS n FROM serving.jobs WHERE NOT age_known")
        assert unknown.fetchone()["n"] == len(serving_ids(app)) - 1
    assert len(published) == 1
