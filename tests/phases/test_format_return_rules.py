"""When a board read in a fallback asks its best listing format again, and which one
(pipeline.phases.fallback: `return_probe`, `probe_due`, `probe_try`): pure."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from pipeline.crawl.http.fetcher import FetchRequest, FetchResult
from pipeline.crawl.platforms import PLATFORMS
from pipeline.db.rows import BoardRow
from pipeline.phases.fallback import (
    RETURN_PROBE_EVERY,
    RETURN_PROBE_SPREAD,
    probe_due,
    probe_offset,
    probe_try,
    return_probe,
)
from pipeline.phases.listing import ListingRead
from tests.phases.test_format_fallback_rules import JOBVITE, SF, SF_TOKEN, XML_URL

RSS_URL = "https://jobs.quietbank.example/googlefeed.xml"
NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
LONG_AGO = NOW - RETURN_PROBE_EVERY - RETURN_PROBE_SPREAD


def on_rss(chosen_at: datetime | None = LONG_AGO, board_id: int = 1) -> BoardRow:
    return BoardRow(
        board_id, "sf", SF_TOKEN, RSS_URL, format="rss_feed", format_chosen_at=chosen_at
    )


def test_a_board_in_its_fallback_a_week_and_a_day_after_the_switch_asks_its_best_format() -> None:
    fmt, url = return_probe(SF, on_rss(), None, NOW)  # type: ignore[misc]
    assert (fmt.name, url) == ("xml_feed", XML_URL)


def test_no_probe_within_a_week_of_the_switch() -> None:
    assert return_probe(SF, on_rss(NOW - timedelta(days=6, hours=23)), None, NOW) is None
    assert return_probe(SF, on_rss(NOW), None, NOW) is None


def test_the_probe_falls_due_at_a_week_plus_the_boards_own_offset_not_before() -> None:
    board = on_rss(NOW)
    due_at = NOW + RETURN_PROBE_EVERY + probe_offset(board.id)
    assert not probe_due(board, due_at - timedelta(seconds=1))
    assert probe_due(board, due_at)


def test_a_board_with_no_recorded_choice_is_due() -> None:
    assert probe_due(on_rss(None), NOW)


def test_a_board_read_in_its_best_format_never_probes() -> None:
    on_xml = BoardRow(1, "sf", SF_TOKEN, XML_URL, format="xml_feed", format_chosen_at=LONG_AGO)
    assert return_probe(SF, on_xml, None, NOW) is None
    unrecorded = replace(on_xml, format=None)  # the format its URL matches: the best
    assert return_probe(SF, unrecorded, None, NOW) is None


def test_a_token_leading_to_one_format_has_no_better_one_to_probe() -> None:
    board = BoardRow(
        1,
        "jv",
        "@feedingamerica",
        "https://jobs.jobvite.com/feedingamerica/search",
        format="career_site",
        format_chosen_at=LONG_AGO,
    )
    assert return_probe(JOBVITE, board, None, NOW) is None


def test_a_platform_with_one_format_never_probes() -> None:
    greenhouse = PLATFORMS["greenhouse"]
    url = "https://boards-api.greenhouse.io/v1/boards/acme/jobs"
    board = BoardRow(1, "gh", "acme", url, format_chosen_at=LONG_AGO)
    assert return_probe(greenhouse, board, "https://boards-api.greenhouse.io", NOW) is None


def test_boards_that_fell_back_together_probe_spread_over_a_day() -> None:
    offsets = [probe_offset(board_id) for board_id in range(1, 201)]
    assert all(timedelta(0) <= o < RETURN_PROBE_SPREAD for o in offsets)
    hours = {int(o / timedelta(hours=1)) for o in offsets}
    assert len(hours) == 24, "every hour of the day gets some of them"
    due_now = [i for i in range(1, 201) if probe_due(on_rss(NOW - RETURN_PROBE_EVERY, i), NOW)]
    assert not due_now, "none is due at the bare week"
    half = NOW - RETURN_PROBE_EVERY - RETURN_PROBE_SPREAD / 2
    some = [i for i in range(1, 201) if probe_due(on_rss(half, i), NOW)]
    assert 60 < len(some) < 140, "half a day into the spread, about half are due"


def test_a_boards_offset_is_the_same_on_every_run() -> None:
    assert probe_offset(42) == probe_offset(42)
    assert probe_offset(42) != probe_offset(43)


def answer(status: int | None) -> FetchResult:
    return FetchResult(FetchRequest(XML_URL), XML_URL, status, {}, b"", 1)


def test_a_probe_answered_404_is_logged_as_the_format_still_unavailable() -> None:
    read = ListingRead("failed", http_status=404, attempts=(answer(404),))
    tried = probe_try("xml_feed", XML_URL, read)
    assert tried.reason == "HTTP 404 on the listing"
    assert [row[2] for row in tried.logged()] == ["format_unavailable"]


def test_a_probe_that_failed_in_a_way_that_may_pass_is_logged_as_a_failed_probe() -> None:
    read = ListingRead("failed", http_status=500, attempts=(answer(500),), error="HTTP 500")
    tried = probe_try("xml_feed", XML_URL, read)
    assert tried.reason == "failed: HTTP 500"
    assert [row[2] for row in tried.logged()] == ["format_probe_failed"]


def test_an_empty_answer_from_the_better_format_is_no_listing_to_return_to() -> None:
    read = ListingRead("empty", http_status=200, attempts=(answer(200),), complete=True)
    assert not read.has_listing
    tried = probe_try("xml_feed", XML_URL, read)
    assert (tried.reason, tried.logged_as) == ("empty", "format_probe_failed")
