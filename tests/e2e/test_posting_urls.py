"""Every URL the engine builds for a posting is one the sandbox answers, and the
direct check asks each platform the question that platform really answers.

For every source in sandbox/sources.yaml: after the real discover, fetch and parse,
take every URL the engine constructed (the board's listing, each posting's page,
detail record, apply page and direct-check request), request it from the sandbox
for a live posting, and fail on any 404 or on any URL outside the sandbox (a
hard-coded public host). Then through the real check phase: live postings are
found live (never closed), and a removed posting gets its platform's real closed
signal, with the evidence of the URL that gave it."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
import yaml

from parsers.types import DocumentKind, RawDocument
from pipeline.app import App
from pipeline.config import HtmlSiteSource
from pipeline.crawl.http.fetcher import FetchRequest
from pipeline.crawl.platforms import platform_of
from pipeline.db.rows import BoardRow, DueCheck, fetch_all
from pipeline.phases.check import check_postings
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.settings import REPO_ROOT
from sandbox.server import RunningSandbox

# What a removed posting's direct check answers, per source: (closed status, reason),
# the platform's real signal (docs/lifecycle.md, "What the direct check asks").
CLOSED_SIGNAL: dict[str, tuple[str, str]] = {
    "greenhouse": ("not_found", "http_404"),
    "lever": ("not_found", "http_404"),
    "ashby": ("expired", "platform_closed_flag"),  # a 200 soft-404 Ashby itself words
    "smartrecruiters": ("not_found", "http_404"),
    "workable": ("not_found", "http_404"),
    "workable_v3": ("not_found", "http_404"),  # the same v2 per-job record
    "workday": ("expired", "platform_closed_flag"),  # 403 errorCode S22
    "recruitee": ("not_found", "http_404"),
    "teamtailor": ("not_found", "http_404"),
    "personio": ("not_found", "http_404"),
    "bamboohr": ("not_found", "http_404"),
    "vieclam": ("not_found", "http_404"),
    "itviec": ("not_found", "http_404"),
    "topcv": ("expired", "page_says_closed"),  # 200 "Tin tuyển dụng đã hết hạn"
    # Pinpoint onwards (their own suite: tests/e2e/test_platforms_paged_and_checked.py).
    "pinpoint": ("not_found", "http_404"),
    "breezy": ("not_found", "http_404"),
    "rippling": ("not_found", "http_404"),  # the detail API
    "oracle": ("expired", "platform_closed_flag"),  # ById detail answering items: []
    "successfactors": ("expired", "page_says_closed"),
    "jazzhr": ("expired", "redirected_to_board"),
    "jobvite": ("not_found", "http_404"),
    "icims": ("expired", "page_says_closed"),
}
# Where each platform's check goes (a path fragment of the check URL).
CHECK_PATH: dict[str, str] = {
    "greenhouse": "/greenhouse/v1/boards/",
    "lever": "/lever/v0/postings/",
    "ashby": "/ashby/jobs/",
    "smartrecruiters": "/smartrecruiters/v1/companies/",
    "workable": "/workable/api/v2/accounts/",
    "workable_v3": "/workable/api/v2/accounts/",
    "workday": "/wday/cxs/",
    "recruitee": "/api/offers/",
    "teamtailor": "/jobs/",
    "personio": "/job/",
    "bamboohr": "/detail",
    "vieclam": "/viec-lam/",
    "itviec": "/it-jobs/",
    "topcv": "/viec-lam/",
    "pinpoint": "/pinpoint/",
    "breezy": "/breezy/",
    "rippling": "/rippling/",
    "oracle": "/oracle/",
    "successfactors": "/successfactors/",
    "jazzhr": "/jazzhr/",
    "jobvite": "/jobvite/",
    "icims": "/icims/",
}
NAMES = sorted(
    name
    for name, entry in yaml.safe_load((REPO_ROOT / "sandbox" / "sources.yaml").read_text())[
        "sources"
    ].items()
    if entry.get("enabled", True)
)


def test_every_sandbox_source_has_an_expected_closed_signal() -> None:
    assert sorted(CLOSED_SIGNAL) == sorted(NAMES) == sorted(CHECK_PATH)


def _crawl(app: App, name: str) -> None:
    for report in (
        discover(app, name, force=True),
        fetch_details(app, name),
        parse_source(app, name),
    ):
        assert report.status == "succeeded", report


def _rows(app: App, name: str) -> list[dict[str, Any]]:
    """Postings as the check phase reads them, with their current parse result's URLs."""
    with app.db.connect() as conn:
        return list(
            conn.execute(
                """SELECT p.id, p.external_id, p.board_id, p.url, p.detail_url, p.title,
                          p.status, b.board_key, b.url AS board_url,
                          r.url AS parsed_url, r.apply_url
                   FROM core.postings AS p JOIN crawl.boards AS b ON b.id = p.board_id
                   LEFT JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current
                   WHERE p.source_id = %s ORDER BY p.id""",
                (name,),
            ).fetchall()
        )


def _boards(app: App, name: str) -> list[BoardRow]:
    with app.db.connect() as conn:
        return fetch_all(conn, BoardRow, "SELECT * FROM crawl.boards WHERE source_id = %s", (name,))


def _send(client: httpx.Client, request: FetchRequest) -> httpx.Response:
    return client.request(
        request.method, request.url, headers=dict(request.headers), content=request.body
    )


def _constructed(app: App, name: str) -> list[tuple[str, FetchRequest]]:
    """(what, request) for every URL the engine built for this source's postings."""
    platform = platform_of(app.sources.get(name))
    built: list[tuple[str, FetchRequest]] = [
        ("listing", platform.first_request(board, {})) for board in _boards(app, name)
    ]
    for row in _rows(app, name):
        built.append(("check", platform.check_request(DueCheck.from_row(row))))
        for what in ("url", "detail_url", "parsed_url", "apply_url"):
            if row[what]:
                built.append((what, FetchRequest(row[what])))
    return built


@pytest.mark.parametrize("name", NAMES)
def test_every_url_built_for_a_live_posting_is_served_by_the_sandbox(
    app: App, sandbox: RunningSandbox, name: str
) -> None:
    _crawl(app, name)
    built = _constructed(app, name)
    kinds = {what for what, _ in built}
    assert {"listing", "check", "url", "apply_url"} <= kinds, kinds
    outside = [(what, r.url) for what, r in built if not r.url.startswith(sandbox.url + "/")]
    assert outside == [], "URLs on a host the source does not configure"
    with httpx.Client(follow_redirects=True, timeout=10) as client:
        failed = [
            (what, r.url, status)
            for what, r in built
            if (status := _send(client, r).status_code) >= 400
        ]
    assert failed == []


def _mark_missing(app: App, ids: list[int]) -> None:
    """As two complete scans without them leave postings (tests/lifecycle covers that path)."""
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE core.postings SET status = 'missing', missing_count = 2 WHERE id = ANY(%s)",
            (ids,),
        )


@pytest.mark.parametrize("name", NAMES)
def test_live_postings_checked_directly_are_found_live_and_stay_open(
    app: App, sandbox: RunningSandbox, name: str
) -> None:
    _crawl(app, name)
    rows = _rows(app, name)
    _mark_missing(app, [row["id"] for row in rows])
    stats = check_postings(app, name).stats
    assert stats["outcomes"] == {"live": len(rows)}, stats
    statuses = {row["status"] for row in _rows(app, name)}
    assert statuses <= {"missing", "active"}, statuses  # never closed


def _world_key(app: App, name: str, board: BoardRow) -> tuple[str, str]:
    """(platform, token) under which the sandbox keeps this board's state."""
    source = app.sources.get(name)
    if isinstance(source, HtmlSiteSource):
        site = source.base_url.rstrip("/").rsplit("/", 1)[-1]
        return f"site:{site}", board.board_key
    token = board.board_key
    # Tokens that also name a site (Workday tenant/site, Oracle host/site, SuccessFactors
    # host/company) are kept by the sandbox under their first part.
    by_host = ("workday", "oracle", "successfactors")
    return source.platform, token.split("/")[0] if source.platform in by_host else token


def _listed_ids(app: App, name: str, board: BoardRow) -> set[str]:
    """The external ids the board lists now, read page by page with the real parser."""
    platform, parser = platform_of(app.sources.get(name)), app.parser_for(name)
    ids: set[str] = set()
    request: FetchRequest | None = platform.first_request(board, {})
    pages = 0
    with httpx.Client(timeout=10) as client:
        while request is not None:
            response = _send(client, request)
            pages += 1
            outcome = parser.parse(
                RawDocument(
                    response.content,
                    request.url,
                    DocumentKind.LISTING,
                    response.headers.get("content-type"),
                    response.status_code,
                )
            )
            ids |= {posting.external_id for posting in outcome.postings}
            request = platform.next_request(board, request, outcome, pages)
    return ids


def _remove_one_posting_per_board(app: App, sandbox: RunningSandbox, name: str) -> list[int]:
    """Advance every board one step (one posting removed, one added, one edited): the
    removed postings are those stored for the board that its listing no longer has."""
    gone = []
    for board in _boards(app, name):
        platform, token = _world_key(app, name, board)
        httpx.post(
            f"{sandbox.url}/_sandbox/advance", params={"platform": platform, "token": token}
        ).raise_for_status()
        listed = _listed_ids(app, name, board)
        gone += [
            row["id"]
            for row in _rows(app, name)
            if row["board_id"] == board.id and row["external_id"] not in listed
        ]
    return gone


@pytest.mark.parametrize("name", NAMES)
def test_a_removed_posting_gets_its_platforms_real_closed_signal(
    app: App, sandbox: RunningSandbox, name: str
) -> None:
    _crawl(app, name)
    gone = _remove_one_posting_per_board(app, sandbox, name)
    assert len(gone) == len(_boards(app, name))
    _mark_missing(app, gone)
    stats = check_postings(app, name).stats
    status, reason = CLOSED_SIGNAL[name]
    assert stats["outcomes"] == {"closed": len(gone)}, stats
    assert stats["reasons"] == {reason: len(gone)}
    for row in _rows(app, name):
        if row["id"] in gone:
            with app.db.connect() as conn:
                closed = conn.execute(
                    "SELECT status, close_reason, close_evidence FROM core.postings WHERE id = %s",
                    (row["id"],),
                ).fetchone()
            assert (closed["status"], closed["close_reason"]) == (status, reason)
            evidence = closed["close_evidence"]
            assert evidence["url"].startswith(sandbox.url + "/")
            assert CHECK_PATH[name] in evidence["url"], evidence["url"]


@pytest.mark.parametrize(
    ("name", "asked", "never"),
    [
        ("workable", "/workable/api/v2/accounts/", "/j/"),
        ("bamboohr", "/detail", None),
    ],
)
def test_workable_and_bamboohr_live_postings_stay_open_through_discover_and_check(
    app: App, sandbox: RunningSandbox, name: str, asked: str, never: str | None
) -> None:
    """Regression: the check asked Workable's `/j/<shortcode>` and BambooHR's
    `/careers/<id>` and closed live postings on a 404. Now it asks the detail records,
    finds the postings live and none of them closes (whether a live check also reopens
    them is tested with the lifecycle, tests/lifecycle/test_reenabled_board.py)."""
    _crawl(app, name)
    rows = _rows(app, name)
    _mark_missing(app, [row["id"] for row in rows])
    since = time.monotonic()
    stats = check_postings(app, name).stats
    assert stats["outcomes"] == {"live": len(rows)}
    checks = [e.path for e in sandbox.state.requests(since=since)]
    assert len(checks) == len(rows)
    assert all(asked in path for path in checks), checks
    if never:
        assert not any(never in path for path in checks)
    with app.db.connect() as conn:
        statuses = {
            r["status"]
            for r in conn.execute(
                "SELECT status FROM core.postings WHERE source_id = %s", (name,)
            ).fetchall()
        }
        closings = conn.execute(
            """SELECT count(*) AS n FROM core.posting_events AS e
               JOIN core.postings AS p ON p.id = e.posting_id
               WHERE p.source_id = %s AND e.to_status IN ('not_found', 'expired')""",
            (name,),
        ).fetchone()["n"]
    assert statuses <= {"missing", "active"}
    assert closings == 0
