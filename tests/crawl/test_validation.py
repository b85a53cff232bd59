"""Validation from sources.yaml: a body is accepted only if it is what the source
promises. A block page is `blocked`: never a success, never a posting's absence."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import Validation
from pipeline.crawl.http.fetcher import FetchRequest, FetchResult
from pipeline.crawl.validation import validate_body
from pipeline.phases.discover import discover
from tests.apps import board, greenhouse_source, make_due, query, scans, set_fault
from tests.conftest import real_fixtures_dir

BLOCK_PAGES = real_fixtures_dir() / "block-pages"


def _block_pages() -> list[Path]:
    return sorted(BLOCK_PAGES.glob("*.html")) if BLOCK_PAGES.is_dir() else []


def _result(
    body: bytes,
    *,
    status: int = 200,
    content_type: str | None = "application/json",
    url: str = "https://boards.example.com/v1/jobs",
    final_url: str | None = None,
) -> FetchResult:
    headers = {"content-type": content_type} if content_type else {}
    return FetchResult(FetchRequest(url), final_url or url, status, headers, body, 5)


OWN = frozenset({"boards.example.com"})
JOBS = b'{"jobs": [], "meta": {"total": 0}}'


@pytest.mark.parametrize(
    ("rules", "result", "outcome", "reason"),
    [
        (Validation(), _result(JOBS), None, None),
        (Validation(), _result(JOBS, status=500), "invalid", "HTTP 500 is not an expected status"),
        (
            Validation(expect_status=(200, 203)),
            _result(JOBS, status=203),
            None,
            None,
        ),
        (
            Validation(content_types=("json",)),
            _result(JOBS, content_type="text/html"),
            "invalid",
            "unexpected content type 'text/html'",
        ),
        # Content type is checked only when the host sends one.
        (Validation(content_types=("json",)), _result(JOBS, content_type=None), None, None),
        (Validation(min_bytes=100), _result(JOBS), "invalid", "body has 34 bytes, fewer than 100"),
        (
            Validation(),
            _result(JOBS, final_url="https://login.example.net/sso"),
            "invalid",
            "ended on a foreign host: https://login.example.net/sso",
        ),
        (
            Validation(allowed_hosts=("boards.example.com", "cdn.example.com")),
            _result(JOBS, final_url="https://cdn.example.com/v1/jobs"),
            None,
            None,
        ),
        (
            Validation(allowed_paths=("/v1/",)),
            _result(JOBS, final_url="https://boards.example.com/careers/closed"),
            "invalid",
            "ended outside the allowed paths: https://boards.example.com/careers/closed",
        ),
        (
            Validation(required_json_keys=("jobs", "meta")),
            _result(b'{"jobs": []}'),
            "invalid",
            "required JSON keys missing: meta",
        ),
        (
            Validation(required_json_keys=("jobs",)),
            _result(b"<html>"),
            "invalid",
            "body is not JSON",
        ),
        (
            Validation(required_selectors=("article.job-card", "nav.pagination")),
            _result(
                b"<html><body><nav class='pagination'></nav></body></html>",
                content_type="text/html",
            ),
            "invalid",
            "required selectors not found: article.job-card",
        ),
        (
            Validation(block_markers=(r"<title>Please log in",)),
            _result(
                b"<html><head><title>Please log in</title></head></html>", content_type="text/html"
            ),
            "blocked",
            "bot-challenge, captcha or block page",
        ),
        # A challenge is a block whatever the status it comes with.
        (
            Validation(),
            _result(b"<html><head><title>Just a moment...</title></head></html>", status=503),
            "blocked",
            "bot-challenge, captcha or block page",
        ),
    ],
)
def test_validation_rules(rules, result, outcome, reason) -> None:
    verdict = validate_body(result, rules, OWN)
    assert (verdict.ok, verdict.outcome, verdict.reason) == (outcome is None, outcome, reason)


@pytest.mark.real_fixtures
@pytest.mark.skipif(not _block_pages(), reason=f"real block pages not found in {BLOCK_PAGES}")
@pytest.mark.parametrize("page", _block_pages(), ids=lambda p: p.name)
def test_real_block_pages_are_recognized(page: Path) -> None:
    for status in (200, 403, 503):
        verdict = validate_body(
            _result(page.read_bytes(), status=status, content_type="text/html"), Validation(), OWN
        )
        assert verdict.outcome == "blocked", (page.name, status)


@pytest.mark.real_fixtures
@pytest.mark.skipif(not _block_pages(), reason=f"real block pages not found in {BLOCK_PAGES}")
@pytest.mark.parametrize("status", [200, 403, 503])
def test_a_block_page_is_never_a_success_nor_an_absence(make_app, sandbox, status) -> None:
    page = BLOCK_PAGES / "itviec-cloudflare-managed-challenge-just-a-moment-2026.html"
    app = make_app(greenhouse_source("gh", sandbox.url, ["walled"]))
    discover(app, "gh")
    before = query(
        app, "SELECT id, status, missing_count, last_seen_at FROM core.postings ORDER BY id"
    )
    validators = {
        k: board(app, "walled")[k] for k in ("etag", "body_hash", "listing_hash", "item_count")
    }
    set_fault(
        sandbox,
        "greenhouse",
        "walled",
        status=status,
        body=page.read_text(encoding="utf-8"),
        content_type="text/html; charset=UTF-8",
    )
    for _ in range(2):  # twice: two "complete" absences would mark postings missing
        make_due(app)
        with app.db.connect() as conn:  # a 503 cools the host down; time passes
            conn.execute("UPDATE crawl.hosts SET cooldown_until = NULL, tokens_at = now()")
            conn.commit()
        discover(app, "gh")

    assert [s["outcome"] for s in scans(app, "walled")] == ["changed", "blocked", "blocked"]
    assert all(s["items_seen"] == 0 and not s["complete"] for s in scans(app, "walled")[1:])
    # Postings exactly as they were: nothing missing, nothing seen.
    assert (
        query(app, "SELECT id, status, missing_count, last_seen_at FROM core.postings ORDER BY id")
        == before
    )
    row = board(app, "walled")
    assert {k: row[k] for k in validators} == validators
    assert (row["state"], row["consecutive_failures"]) == ("backoff", 2)
    # The challenge page is not stored as a listing.
    assert query(
        app, "SELECT count(*) AS n FROM crawl.raw_objects WHERE content_type LIKE 'text/html%%'"
    ) == [{"n": 0}]


def test_source_validation_rules_apply_to_listings(make_app, sandbox) -> None:
    extra = "    validation:\n      required_json_keys: [jobs, meta]\n      content_types: [json]\n"
    app = make_app(greenhouse_source("gh", sandbox.url, ["ok", "odd"], extra=extra))
    set_fault(
        sandbox,
        "greenhouse",
        "odd",
        status=200,
        body='{"positions": []}',
        content_type="application/json",
    )
    report = discover(app, "gh")
    assert report.stats["outcomes"] == {"changed": 1, "failed": 1}
    assert scans(app, "odd")[0]["error"] == "required JSON keys missing: jobs, meta"


def test_an_empty_listing_cancels_the_pass(make_app, sandbox) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["emptied"]))
    discover(app, "gh")
    before = query(app, "SELECT id, status, missing_count FROM core.postings ORDER BY id")
    kept = {k: board(app, "emptied")[k] for k in ("etag", "listing_hash", "item_count")}
    set_fault(
        sandbox,
        "greenhouse",
        "emptied",
        status=200,
        body='{"jobs": [], "meta": {"total": 0}}',
        content_type="application/json",
    )
    for _ in range(2):
        make_due(app)
        discover(app, "gh")
    assert [s["outcome"] for s in scans(app, "emptied")] == ["changed", "empty", "empty"]
    assert query(app, "SELECT id, status, missing_count FROM core.postings ORDER BY id") == before
    # An empty answer is never cached as "the board as it is".
    assert {k: board(app, "emptied")[k] for k in kept} == kept
