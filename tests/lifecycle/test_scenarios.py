"""Lifecycle rules end to end over the sandbox: postings leave the active set only on
positive evidence, and every move is recorded with its evidence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.app import App
from pipeline.crawl.catalog import sync_catalog
from pipeline.phases.check import check_postings
from pipeline.phases.discover import discover
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving
from pipeline.settings import REPO_ROOT

BOARD = "northwind"
CLOUDFLARE = (
    "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>"
    "<div id='cf-browser-verification'>Checking your browser</div>" + "x" * 200 + "</body></html>"
)


def gh_app(app: App, sandbox, tmp_path: Path, extra: str = "", boards: str = BOARD) -> App:
    """The test app with one Greenhouse source of chosen boards (and extra settings)."""
    sources = tmp_path / "sources.yaml"
    sources.write_text(
        "sources:\n  greenhouse:\n    platform: greenhouse\n"
        f"    api_base: {sandbox.url}/greenhouse\n    boards: [{boards}]\n"
        "    pacing: {rate_per_s: 500, burst: 500}\n"
        f"{extra}"
    )
    scoped = App.create(settings=app.settings.model_copy(update={"sources_file": sources}))
    sync_catalog(scoped)
    return scoped


def advance(sandbox, token: str = BOARD, platform: str = "greenhouse") -> None:
    httpx.post(
        f"{sandbox.url}/_sandbox/advance", params={"platform": platform, "token": token}
    ).raise_for_status()


def fault(
    sandbox, spec: dict[str, Any] | None, token: str = BOARD, platform: str = "greenhouse"
) -> None:
    httpx.post(
        f"{sandbox.url}/_sandbox/fault",
        params={"platform": platform, "token": token},
        content=json.dumps(spec) if spec else b"",
    ).raise_for_status()


def postings(app: App) -> dict[str, dict[str, Any]]:
    with app.db.connect() as conn:
        rows = conn.execute("SELECT * FROM core.postings ORDER BY id").fetchall()
    return {r["external_id"]: r for r in rows}


def events(app: App, external_id: str) -> list[tuple[str | None, str, str]]:
    with app.db.connect() as conn:
        rows = conn.execute(
            """SELECT e.from_status, e.to_status, e.reason FROM core.posting_events e
               JOIN core.postings p ON p.id = e.posting_id WHERE p.external_id = %s ORDER BY e.id""",
            (external_id,),
        ).fetchall()
    return [(r["from_status"], r["to_status"], r["reason"]) for r in rows]


def removed_by_next_step(sandbox, token: str = BOARD) -> str:
    """The external id the next `advance` removes from the board."""
    before = {str(j.job_id) for j in sandbox.state.board("greenhouse", token).jobs}
    revision = sandbox.state.revision("greenhouse", token)
    from sandbox.world import build_board

    after = {
        str(j.job_id)
        for j in build_board(sandbox.state.seed, "greenhouse", token, revision + 1).jobs
    }
    (gone,) = before - after
    return gone


def poll(app: App) -> dict[str, Any]:
    return dict(discover(app, "greenhouse", force=True).stats)


# ---------------------------------------------------------------------------------------------


def test_removed_posting_survives_one_scan_goes_missing_after_two_and_closes_on_direct_evidence(
    app, sandbox, tmp_path
) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    gone = removed_by_next_step(sandbox)
    advance(sandbox)
    poll(gh)
    assert (postings(gh)[gone]["status"], postings(gh)[gone]["missing_count"]) == ("active", 1)
    assert (
        check_postings(gh, "greenhouse").stats["checked"] == 0
    )  # only missing postings are checked

    stats = poll(gh)  # the board now answers 304: the same listing, still without it
    assert stats["outcomes"] == {"not_modified": 1}
    assert stats["postings_missing"] == 1
    assert postings(gh)[gone]["status"] == "missing"

    checked = check_postings(gh, "greenhouse").stats
    assert checked["outcomes"] == {"closed": 1}
    # The check asks the boards API for the posting's own record: 404 once it is removed.
    assert checked["reasons"] == {"http_404": 1}
    row = postings(gh)[gone]
    assert (row["status"], row["close_reason"]) == ("not_found", "http_404")
    assert row["close_evidence"]["url"].endswith(f"/v1/boards/{BOARD}/jobs/{gone}")
    assert row["closed_at"] is not None
    assert events(gh, gone) == [
        ("active", "missing", "absent_from_2_complete_scans"),
        ("missing", "not_found", "direct_check:http_404"),
    ]


def test_a_posting_checked_while_active_is_checked_as_soon_as_it_goes_missing(
    app, sandbox, tmp_path
) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    gone = removed_by_next_step(sandbox)
    # A check backfill asked about every active posting an hour ago: all were live.
    with gh.db.connect() as conn:
        conn.execute("UPDATE core.postings SET last_checked_at = now() - interval '1 hour'")
    advance(sandbox)
    poll(gh)
    poll(gh)
    assert postings(gh)[gone]["status"] == "missing"
    # Within the 6-hour recheck interval of that check, yet due: it was made while the
    # posting was active, so it says nothing about its absence.
    checked = check_postings(gh, "greenhouse").stats
    assert checked["outcomes"] == {"closed": 1}
    assert postings(gh)[gone]["status"] == "not_found"


@pytest.mark.parametrize(
    ("name", "spec"),
    [
        ("server error", {"status": 503, "body": "down"}),
        ("rate limited", {"status": 429, "body": "slow down"}),
        ("blocked page", {"status": 200, "body": CLOUDFLARE, "content_type": "text/html"}),
        ("garbled body", {"status": 200, "body": '{"jobs": [{"id": '}),
        ("empty listing", {"status": 200, "body": '{"jobs": [], "meta": {"total": 0}}'}),
        ("short listing", {"status": 200, "body": '{"jobs": [], "meta": {"total": 12}}'}),
    ],
)
def test_failed_blocked_empty_or_partial_scans_move_nothing(
    app, sandbox, tmp_path, name, spec
) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    advance(sandbox)
    poll(gh)  # one posting is now absent once
    before = {k: (v["status"], v["missing_count"]) for k, v in postings(gh).items()}
    fault(sandbox, spec)
    # A host that said "wait" (429/503) is cooled down for every later request, so it
    # is polled once here; the others three times in a row.
    polls = 1 if spec["status"] in (429, 503) else 3
    for _ in range(polls):
        poll(gh)
    assert {k: (v["status"], v["missing_count"]) for k, v in postings(gh).items()} == before
    with gh.db.connect() as conn:
        outcomes = [
            r["outcome"]
            for r in conn.execute(
                "SELECT outcome FROM crawl.scans ORDER BY id DESC LIMIT %s", (polls,)
            )
        ]
    expected = {
        "server error": "rate_limited",
        "rate limited": "rate_limited",
        "blocked page": "blocked",
        "garbled body": "rejected",
        "empty listing": "empty",
        "short listing": "empty",
    }[name]
    assert outcomes == [expected] * polls


def test_repeated_empty_listings_flag_the_board_without_retiring_anything(
    app, sandbox, tmp_path
) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    fault(sandbox, {"status": 200, "body": '{"jobs": [], "meta": {"total": 0}}'})
    suspects = [poll(gh)["suspect_boards"] for _ in range(3)]
    assert suspects == [0, 0, 1]
    assert {v["status"] for v in postings(gh).values()} == {"active"}
    with gh.db.connect() as conn:
        board = conn.execute(
            "SELECT empty_streak, suspect_since, state FROM crawl.boards WHERE board_key = 'northwind'"
        ).fetchone()
    assert board["empty_streak"] == 3
    assert board["suspect_since"] is not None
    assert board["state"] == "active"
    fault(sandbox, None)
    advance(sandbox)  # a real listing again (a changed one, so the 304 path is not taken)
    poll(gh)
    with gh.db.connect() as conn:
        board = conn.execute(
            "SELECT empty_streak, suspect_since FROM crawl.boards WHERE board_key = 'northwind'"
        ).fetchone()
    assert (board["empty_streak"], board["suspect_since"]) == (0, None)


def remove(sandbox, token: str = BOARD, job_id: int | None = None) -> None:
    params: dict[str, str | int] = {"platform": "greenhouse", "token": token}
    if job_id is not None:
        params["id"] = job_id
    httpx.post(f"{sandbox.url}/_sandbox/remove", params=params).raise_for_status()


def emptied_board(app, sandbox, tmp_path) -> tuple[App, set[str]]:
    """A Greenhouse board read once, then every job taken down for real and the empty
    listing read: the app and the postings it had listed."""
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    listed = set(postings(gh))
    assert len(listed) > 4
    remove(sandbox)  # the company takes down every job: the listing is empty
    poll(gh)
    return gh, listed


def test_a_board_emptied_for_real_closes_every_posting_on_direct_evidence(
    app, sandbox, tmp_path
) -> None:
    gh, listed = emptied_board(app, sandbox, tmp_path)
    with gh.db.connect() as conn:
        scan = conn.execute("SELECT outcome FROM crawl.scans ORDER BY id DESC LIMIT 1").fetchone()
    assert scan["outcome"] == "empty"
    assert {v["status"] for v in postings(gh).values()} == {"active"}, "no absence counted"

    checked = check_postings(gh, "greenhouse").stats
    assert checked["checked"] == len(listed)
    assert checked["outcomes"] == {"closed": len(listed)}
    rows = postings(gh)
    assert {rows[k]["status"] for k in listed} == {"not_found"}
    some = next(iter(listed))
    assert events(gh, some) == [("active", "not_found", "direct_check:http_404")]
    with gh.db.connect() as conn:
        board = conn.execute(
            "SELECT state, suspect_since FROM crawl.boards WHERE board_key = %s", (BOARD,)
        ).fetchone()
    assert (board["state"], board["suspect_since"]) == ("active", None)  # as it was


def test_the_checks_an_emptied_board_asks_for_are_bounded_per_run(app, sandbox, tmp_path) -> None:
    gh, _ = emptied_board(app, sandbox, tmp_path)  # every active posting is due a check
    first = check_postings(gh, "greenhouse", emptied_per_run=3).stats
    assert (first["checked"], first["outcomes"]) == (3, {"closed": 3})
    rest = check_postings(gh, "greenhouse", emptied_per_run=3).stats
    assert rest["checked"] == 3  # the next run takes the next three, never more
    check_postings(gh, "greenhouse")  # the default bound holds the rest
    assert {v["status"] for v in postings(gh).values()} == {"not_found"}


def test_an_empty_listing_whose_postings_answer_live_keeps_them_and_backs_off(
    app, sandbox, tmp_path
) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    # An outage: the listing comes back empty, every posting's own record is live.
    fault(sandbox, {"status": 200, "body": '{"jobs": [], "meta": {"total": 0}}', "on": "listing"})
    poll(gh)
    checked = check_postings(gh, "greenhouse").stats
    assert checked["checked"] == len(postings(gh))
    assert set(checked["outcomes"]) == {"live"}
    assert {v["status"] for v in postings(gh).values()} == {"active"}
    poll(gh)  # still empty: the checks just made stand until the recheck interval
    assert check_postings(gh, "greenhouse").stats["checked"] == 0


def test_a_check_backfill_of_chosen_ids_asks_only_those(app, sandbox, tmp_path) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    remove(sandbox)
    poll(gh)
    first = min(v["id"] for v in postings(gh).values())
    assert check_postings(gh, "greenhouse", ids=[first], statuses=("active",)).stats["checked"] == 1


def test_a_truncated_listing_adds_but_never_counts_toward_closing(app, sandbox, tmp_path) -> None:
    site = tmp_path / "site.yaml"
    template = (REPO_ROOT / "sandbox" / "sources.yaml").read_text()
    site.write_text(template)
    full = App.create(settings=app.settings.model_copy(update={"sources_file": site}))
    sync_catalog(full)
    discover(full, "vieclam", force=True)
    site.write_text(template.replace("max_pages: 20", "max_pages: 1"))
    capped = App.create(settings=app.settings.model_copy(update={"sources_file": site}))
    sync_catalog(capped)
    stats = discover(capped, "vieclam", force=True).stats
    with capped.db.connect() as conn:
        scan = conn.execute(
            """SELECT s.truncated, s.complete, s.items_seen FROM crawl.scans s
               JOIN crawl.boards b ON b.id = s.board_id
               WHERE b.board_key = 'it' ORDER BY s.id DESC LIMIT 1"""
        ).fetchone()
        counts = conn.execute("SELECT max(missing_count) AS m FROM core.postings").fetchone()
    assert sandbox.state.board("site:vieclam", "it", vietnamese=True).jobs[10:], (
        "the board needs a 2nd page"
    )
    assert (scan["truncated"], scan["complete"], scan["items_seen"]) == (True, False, 10)
    assert stats["postings_missing"] == 0
    assert counts["m"] == 0  # the 3 postings on page 2 were not counted absent


def test_a_scope_change_sets_a_new_baseline(app, sandbox, tmp_path) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    advance(sandbox)
    poll(gh)  # one posting absent once
    assert max(v["missing_count"] for v in postings(gh).values()) == 1
    # The same board read through another URL (e.g. new search parameters): a new scope.
    with gh.db.connect() as conn:
        conn.execute(
            "UPDATE crawl.boards SET url = url || '&scope=v2', etag = NULL, last_modified = NULL, body_hash = NULL"
        )
    stats = poll(gh)
    assert stats["new_baselines"] == 1
    assert stats["postings_missing"] == 0
    assert max(v["missing_count"] for v in postings(gh).values()) == 0


def test_a_reappearing_posting_is_reopened_with_an_event(app, sandbox, tmp_path) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    gone = removed_by_next_step(sandbox)
    advance(sandbox)
    poll(gh)
    poll(gh)
    assert postings(gh)[gone]["status"] == "missing"
    httpx.post(
        f"{sandbox.url}/_sandbox/reset"
    ).raise_for_status()  # the board as it was: it is back
    stats = poll(gh)
    assert stats["postings_reopened"] == 1
    assert postings(gh)[gone]["status"] == "active"
    assert events(gh, gone)[-1] == ("missing", "active", "seen_again")


AMBIGUOUS = [
    "forbidden",
    "unauthorized",
    "rate-limited",
    "server-error",
    "login-wall",
    "soft-404",
    "redirect-to-login",
]
CONCLUSIVE = {
    "gone": ("not_found", "http_404"),
    "gone-410": ("not_found", "http_410"),
    "redirect-to-board": ("expired", "redirected_to_board"),
    "closed-en": ("expired", "page_says_closed"),
    "closed-vi": ("expired", "page_says_closed"),
}


def _missing_posting_pointing_at(gh: App, sandbox, scenario: str) -> str:
    """A missing posting whose direct check (Greenhouse: the boards API record under
    the board's URL) lands on a canned scenario answer."""
    poll(gh)
    with gh.db.connect() as conn:
        row = conn.execute(
            """UPDATE core.postings SET status = 'missing', missing_count = 2,
                   url = %s || '/scenarios/' || %s || '/jobs/' || external_id
               WHERE id = (SELECT min(id) FROM core.postings) RETURNING external_id, board_id""",
            (sandbox.url, scenario),
        ).fetchone()
        conn.execute(
            "UPDATE crawl.boards SET url = %s || '/scenarios/' || %s || '/v1/boards/x/jobs' "
            "WHERE id = %s",
            (sandbox.url, scenario, row["board_id"]),
        )
    return row["external_id"]


@pytest.mark.parametrize("scenario", AMBIGUOUS)
def test_ambiguous_checks_leave_the_posting_exactly_as_it_was(
    app, sandbox, tmp_path, scenario
) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    external_id = _missing_posting_pointing_at(gh, sandbox, scenario)
    before = postings(gh)[external_id]
    stats = check_postings(gh, "greenhouse").stats
    after = postings(gh)[external_id]
    assert stats["outcomes"] == {"ambiguous": 1}
    assert (after["status"], after["closed_at"], after["close_reason"]) == ("missing", None, None)
    assert after["check_outcome"] == "ambiguous"
    assert after["check_count"] == before["check_count"] + 1
    assert events(gh, external_id) == []
    # ...and it is not checked again until the recheck interval has passed.
    assert check_postings(gh, "greenhouse").stats["checked"] == 0


@pytest.mark.parametrize("scenario", sorted(CONCLUSIVE))
def test_conclusive_checks_close_with_evidence(app, sandbox, tmp_path, scenario) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    external_id = _missing_posting_pointing_at(gh, sandbox, scenario)
    check_postings(gh, "greenhouse")
    row = postings(gh)[external_id]
    status, reason = CONCLUSIVE[scenario]
    assert (row["status"], row["close_reason"]) == (status, reason)
    assert row["close_evidence"]["raw_sha256"] or row["close_evidence"]["status"] in (404, 410)
    if scenario == "closed-vi":
        assert row["close_evidence"].get("phrase") == "tin tuyển dụng đã hết hạn", row[
            "close_evidence"
        ]
    assert events(gh, external_id) == [("missing", status, f"direct_check:{reason}")]


def test_a_live_page_keeps_a_missing_posting_missing(app, sandbox, tmp_path) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    with gh.db.connect() as conn:
        external_id = conn.execute(
            "UPDATE core.postings SET status = 'missing', missing_count = 2 "
            "WHERE id = (SELECT min(id) FROM core.postings) RETURNING external_id"
        ).fetchone()["external_id"]
    stats = check_postings(gh, "greenhouse").stats
    assert set(stats["outcomes"]) <= {"live", "ambiguous"}
    assert postings(gh)[external_id]["status"] == "missing"


def test_title_rules_filter_postings_without_deleting_them(app, sandbox, tmp_path) -> None:
    gh = gh_app(
        app,
        sandbox,
        tmp_path,
        extra="    exclude_titles: ['engineer']\n",
        boards="northwind, acme-robotics",
    )
    poll(gh)
    parse_source(gh, "greenhouse")
    sync_serving(gh)
    rows = postings(gh).values()
    filtered = [r for r in rows if r["status"] == "filtered"]
    assert filtered
    assert all("engineer" in r["title"].lower() for r in filtered)
    assert all("engineer" not in r["title"].lower() for r in rows if r["status"] == "active")
    assert events(gh, filtered[0]["external_id"]) == [("active", "filtered", "title_excluded")]
    with gh.serving_db.connect() as conn:
        published = {r["external_id"] for r in conn.execute("SELECT external_id FROM serving.jobs")}
    assert not published & {r["external_id"] for r in filtered}


def test_workday_closed_flag_on_the_detail_api_closes_the_posting(app, sandbox) -> None:
    """Workday answers a closed posting's detail API with 403 errorCode S22: the
    platform's own closed flag is conclusive, where a plain 403 would be ambiguous."""
    from sandbox.formats.workday import req_id
    from sandbox.world import build_board

    tenant = "harbor.wd5"  # the sandbox keys a Workday board by tenant and data center
    discover(app, "workday", force=True)
    before = {req_id(j) for j in sandbox.state.board("workday", tenant).jobs}
    after = {req_id(j) for j in build_board(sandbox.state.seed, "workday", tenant, 1).jobs}
    (gone,) = before - after
    advance(sandbox, tenant, platform="workday")  # the employer removes it
    with app.db.connect() as conn:
        # Discovery has seen it absent from two complete scans.
        conn.execute(
            "UPDATE core.postings SET status = 'missing', missing_count = 2 WHERE external_id = %s",
            (gone,),
        )
    stats = check_postings(app, "workday").stats
    assert stats["reasons"] == {"platform_closed_flag": 1}
    row = postings(app)[gone]
    assert (row["status"], row["close_reason"]) == ("expired", "platform_closed_flag")
    assert row["close_evidence"]["flag"] == "S22"
    assert "/wday/cxs/harbor/HarborCareers/job/" in row["close_evidence"]["url"]


def _board_row(app: App, key: str = BOARD) -> dict[str, Any]:
    with app.db.connect() as conn:
        return conn.execute("SELECT * FROM crawl.boards WHERE board_key = %s", (key,)).fetchone()


def _listing_body(sandbox, drop: str, extra: list[dict[str, Any]], total: bool) -> str:
    from sandbox.formats.greenhouse import job_object

    board = sandbox.state.board("greenhouse", BOARD)
    jobs = [
        job_object(board, job, f"{sandbox.url}/greenhouse/boards", content=True)
        for job in board.jobs
        if str(job.job_id) != drop
    ] + extra
    return json.dumps({"jobs": jobs, **({"meta": {"total": len(jobs)}} if total else {})})


def test_a_listing_that_dropped_an_unusable_row_proves_no_absence(app, sandbox, tmp_path) -> None:
    """Without a stated total, a row the parser could not use (no title) would look like
    a posting that vanished: such a listing is not complete."""
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    target = next(iter(postings(gh)))
    broken = {"id": 1, "title": "", "absolute_url": f"{sandbox.url}/greenhouse/boards/x/jobs/1"}
    fault(sandbox, {"status": 200, "body": _listing_body(sandbox, target, [broken], total=False)})
    for _ in range(3):
        poll(gh)
    assert (postings(gh)[target]["status"], postings(gh)[target]["missing_count"]) == ("active", 0)
    with gh.db.connect() as conn:
        scan = conn.execute(
            "SELECT complete, issues FROM crawl.scans ORDER BY id DESC LIMIT 1"
        ).fetchone()
    assert scan["complete"] is False
    assert "dropped_items" in {i["code"] for i in scan["issues"]}


def test_an_incomplete_read_never_becomes_the_boards_validators(app, sandbox, tmp_path) -> None:
    """A partial answer's ETag and hashes are not kept: a later 304 or identical body
    would otherwise replay the partial listing as a complete scan."""
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    complete = _board_row(gh)
    target = next(iter(postings(gh)))
    short = json.loads(_listing_body(sandbox, target, [], total=True))
    short["meta"]["total"] += 1  # the listing says one more than it shows: partial
    fault(sandbox, {"status": 200, "body": json.dumps(short), "content_type": "application/json"})
    poll(gh)
    after = _board_row(gh)
    assert (after["etag"], after["body_hash"], after["listing_hash"]) == (
        complete["etag"],
        complete["body_hash"],
        complete["listing_hash"],
    )
    assert postings(gh)[target]["missing_count"] == 0


def test_a_retired_boards_postings_go_to_the_direct_check(app, sandbox, tmp_path) -> None:
    """Three 404s retire a board; its postings can no longer be seen or missed by any
    scan, so they become `missing` and the check decides each one."""
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    fault(sandbox, {"status": 404, "body": "Job board not found"})
    for _ in range(3):
        poll(gh)
    assert _board_row(gh)["state"] == "retired"
    poll(gh)  # the next run finds the orphans
    rows = postings(gh)
    assert {r["status"] for r in rows.values()} == {"missing"}
    assert events(gh, next(iter(rows)))[-1] == ("active", "missing", "board_retired")


def test_a_board_removed_from_sources_yaml_hands_its_postings_to_the_check(
    app, sandbox, tmp_path
) -> None:
    both = gh_app(app, sandbox, tmp_path, boards=f"{BOARD}, acme-robotics")
    poll(both)
    only_one = gh_app(app, sandbox, tmp_path, boards="acme-robotics")  # northwind removed
    poll(only_one)
    with only_one.db.connect() as conn:
        rows = conn.execute(
            """SELECT b.board_key, p.status, count(*) AS n FROM core.postings p
               JOIN crawl.boards b ON b.id = p.board_id GROUP BY 1, 2"""
        ).fetchall()
    assert {(r["board_key"], r["status"]) for r in rows} == {
        (BOARD, "missing"),
        ("acme-robotics", "active"),
    }


def test_a_disabled_source_is_not_published(app, sandbox, tmp_path) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    parse_source(gh, "greenhouse")
    assert sync_serving(gh).stats["inserted"] > 0
    disabled = gh_app(app, sandbox, tmp_path, extra="    enabled: false\n")
    report = sync_serving(disabled, allow_mass_removal=True).stats  # it empties serving
    with disabled.serving_db.connect() as conn:
        left = conn.execute(
            "SELECT count(*) AS n FROM serving.jobs WHERE source = 'greenhouse'"
        ).fetchone()
    assert left["n"] == 0
    assert report["removed"] > 0
    assert {r["status"] for r in postings(disabled).values()} == {"active"}  # statuses untouched


def test_an_edit_that_is_reverted_makes_the_earlier_result_current_again(
    app, sandbox, tmp_path
) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    parse_source(gh, "greenhouse")

    def current_titles() -> dict[str, tuple[str, str]]:
        with gh.db.connect() as conn:
            rows = conn.execute(
                """SELECT p.external_id, r.description_text, r.raw_sha256 FROM core.postings p
                   JOIN core.parse_results r ON r.posting_id = p.id AND r.is_current"""
            ).fetchall()
        return {r["external_id"]: (r["description_text"], r["raw_sha256"]) for r in rows}

    original = current_titles()
    advance(sandbox)  # one posting edited (and one removed, one added)
    poll(gh)
    parse_source(gh, "greenhouse")
    edited = {k for k, v in current_titles().items() if k in original and v != original[k]}
    assert len(edited) == 1
    httpx.post(f"{sandbox.url}/_sandbox/reset").raise_for_status()  # the edit is reverted
    poll(gh)
    stats = parse_source(gh, "greenhouse").stats
    assert stats["restored_current"] == 1
    (key,) = edited
    assert current_titles()[key] == original[key]


def test_a_job_site_posting_without_a_company_gets_no_role_key(app, sandbox) -> None:
    from pipeline.lifecycle.identity_store import refresh_identity

    discover(app, "vieclam", force=True)
    from pipeline.phases.fetch import fetch_details

    fetch_details(app, "vieclam")
    parse_source(app, "vieclam")
    with app.db.connect() as conn:
        posting = conn.execute(
            "SELECT id FROM core.postings WHERE source_id = 'vieclam' AND repost_key IS NOT NULL LIMIT 1"
        ).fetchone()
        conn.execute(
            "UPDATE core.parse_results SET company = NULL WHERE posting_id = %s AND is_current",
            (posting["id"],),
        )
        refresh_identity(conn, [posting["id"]])
        key = conn.execute(
            "SELECT repost_key FROM core.postings WHERE id = %s", (posting["id"],)
        ).fetchone()
    assert key["repost_key"] is None  # a job site's board is many employers: no guessed employer


def test_a_detail_page_awaiting_a_refetch_still_parses_as_a_detail_page(app, sandbox) -> None:
    from pipeline.phases.fetch import fetch_details

    discover(app, "vieclam", force=True)
    fetch_details(app, "vieclam")
    parse_source(app, "vieclam")
    with app.db.connect() as conn:
        posting = conn.execute(
            "SELECT id FROM core.postings WHERE source_id = 'vieclam' LIMIT 1"
        ).fetchone()
        # Its row changed (a refetch is due) and its results are gone (a new parser version).
        conn.execute(
            "UPDATE core.postings SET detail_state = 'needed' WHERE id = %s", (posting["id"],)
        )
        conn.execute("DELETE FROM core.parse_results WHERE posting_id = %s", (posting["id"],))
    assert parse_source(app, "vieclam").stats["quality"] == {"accepted": 1}
