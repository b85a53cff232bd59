"""The listing reader's pure decisions: complete or not, the order-free listing hash, and
which reads may become the board's validators (the recorder's values)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from parsers.rowfind import SHAPE_ISSUE
from parsers.types import Issue, Posting
from pipeline.config import load_sources
from pipeline.crawl.http.fetcher import FetchRequest, FetchResult
from pipeline.crawl.platforms import platform_of
from pipeline.db.rows import BoardRow
from pipeline.phases.listing import ListingRead, Poll, SourceContext, complete_read, listing_hash
from pipeline.phases.recorder import board_values

SANDBOX_SOURCES = Path(__file__).resolve().parents[2] / "sandbox" / "sources.yaml"


@pytest.fixture(scope="module")
def ctx() -> SourceContext:
    source = load_sources(SANDBOX_SOURCES).get("greenhouse")
    platform = platform_of(source)
    return SourceContext(
        name="greenhouse",
        source=source,
        parser=None,  # type: ignore[arg-type]  # complete_read never parses
        platform=platform,
        budget=platform.budget_for(source),
        obey_robots=False,
        transport="http",
        full_pass_every_s=4 * 3600,
    )


def poll_of(ctx: SourceContext, ids: list[str], total: int | None, dropped: int = 0) -> Poll:
    poll = Poll(
        BoardRow(1, "greenhouse", "acme", "https://x/jobs"), ctx, total=total, dropped=dropped
    )
    page = FetchResult(
        FetchRequest("https://x/jobs"), "https://x/jobs", 200, {"etag": "e1"}, b"", 1
    )
    poll.attempts.append(page)
    for ext in ids:
        poll.postings[ext] = Posting(ext, f"https://x/{ext}", "Engineer", payload={"id": ext})
        poll.posting_raws[ext] = "sha-" + ext
    return poll


def test_a_read_is_complete_when_the_listing_total_matches(ctx: SourceContext) -> None:
    read = complete_read(poll_of(ctx, ["a", "b"], total=2), truncated=False)
    assert (read.outcome, read.complete, read.truncated) == ("changed", True, False)
    assert read.issues == ()
    assert read.etag == "e1", "the first page's validators travel with the read"


def test_a_listing_without_a_total_cannot_show_a_gap(ctx: SourceContext) -> None:
    assert complete_read(poll_of(ctx, ["a"], total=None), truncated=False).complete


@pytest.mark.parametrize(
    ("total", "dropped", "truncated", "issue"),
    [
        (3, 0, False, "total_mismatch"),
        (2, 1, False, "dropped_items"),
        (2, 0, True, None),
    ],
)
def test_a_short_dropped_or_truncated_read_is_not_complete(
    ctx: SourceContext, total: int, dropped: int, truncated: bool, issue: str | None
) -> None:
    read = complete_read(poll_of(ctx, ["a", "b"], total, dropped), truncated=truncated)
    assert not read.complete
    assert [i.code for i in read.issues] == ([issue] if issue else [])


def test_a_listing_read_from_another_shape_cannot_prove_an_absence(ctx: SourceContext) -> None:
    """Rows found outside the documented envelope (a bare array, another wrapper) are
    kept, but the envelope's paging and count were not read as documented: a posting
    missing from such a read may sit on a page that was never asked for."""
    poll = poll_of(ctx, ["a", "b"], total=None)
    poll.issues.append(Issue(SHAPE_ISSUE, "2 rows found at $, a bare array", "$"))
    read = complete_read(poll, truncated=False)
    assert read.outcome == "changed"
    assert [p.external_id for p in read.postings] == ["a", "b"]
    assert not read.complete
    assert "undocumented_shape" in [i.code for i in read.issues]
    assert complete_read(poll_of(ctx, ["a", "b"], total=None), truncated=False).complete


def test_a_read_without_postings_is_empty(ctx: SourceContext) -> None:
    assert complete_read(poll_of(ctx, [], total=0), truncated=False).outcome == "empty"


def test_the_listing_hash_ignores_order_but_not_membership_rows_or_total() -> None:
    rows = {"a": "1", "b": "2"}
    same = listing_hash("greenhouse", dict(reversed(rows.items())), 2)
    assert listing_hash("greenhouse", rows, 2) == same
    assert listing_hash("greenhouse", {"a": "1"}, 2) != same
    assert listing_hash("greenhouse", {"a": "1", "b": "3"}, 2) != same
    assert listing_hash("greenhouse", rows, 3) != same


BOARD = BoardRow(
    1,
    "greenhouse",
    "acme",
    "https://x/jobs",
    last_polled_at=None,  # never polled: no change-rate evidence yet
    etag="old-etag",
    body_hash="old-body",
    listing_hash="old-listing",
    item_count=2,
)


@pytest.mark.parametrize(
    ("complete", "truncated", "kept"),
    [(True, False, False), (False, False, True), (True, True, True)],
)
def test_only_a_complete_listing_becomes_the_boards_validators(
    complete: bool, truncated: bool, kept: bool
) -> None:
    read = ListingRead(
        "changed",
        http_status=200,
        complete=complete,
        truncated=truncated,
        etag="new-etag",
        body_hash="new-body",
        listing_hash="new-listing",
    )
    values = board_values(BOARD, read, "changed", datetime(2026, 3, 2, tzinfo=UTC))
    validators = (values["etag"], values["body_hash"], values["listing_hash"])
    expected = (
        ("old-etag", "old-body", "old-listing") if kept else ("new-etag", "new-body", "new-listing")
    )
    assert validators == expected
    assert values["full_pass"] is complete


def test_the_count_probe_full_pass_bound_is_read_from_the_environment_and_must_be_positive(
    monkeypatch,
) -> None:
    from pydantic import ValidationError

    from pipeline.settings import Settings

    monkeypatch.setenv("JOBHARBOR_COUNT_PROBE_FULL_PASS_H", "2.5")
    assert Settings().count_probe_full_pass_h == 2.5
    monkeypatch.setenv("JOBHARBOR_COUNT_PROBE_FULL_PASS_H", "0")
    with pytest.raises(ValidationError, match="count_probe_full_pass_h"):
        Settings()


def test_a_full_pass_is_due_once_the_last_is_older_than_the_bound() -> None:
    from datetime import UTC, datetime, timedelta

    from pipeline.phases.listing import full_pass_due

    now = datetime(2026, 3, 2, 12, tzinfo=UTC)
    assert full_pass_due(None, now, 3600)  # never read in full
    assert not full_pass_due(now - timedelta(minutes=59), now, 3600)
    assert full_pass_due(now - timedelta(minutes=61), now, 3600)
