"""Which answers move a board to its next listing format, and which formats a board's
token leads to (pipeline.phases.fallback, the platforms' `listing_formats`): pure."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from parsers.types import Issue
from pipeline.crawl.http.fetcher import FetchRequest, FetchResult
from pipeline.crawl.platforms import PLATFORMS
from pipeline.crawl.platforms.jobvite import parse_board as jobvite_board
from pipeline.crawl.platforms.successfactors import parse_board as sf_board
from pipeline.db.rows import BoardRow
from pipeline.phases.fallback import format_of, next_format, unavailable
from pipeline.phases.listing import ListingRead

SF = PLATFORMS["successfactors"]
JOBVITE = PLATFORMS["jobvite"]
SF_TOKEN = "career2.successfactors.eu/QuietBank@jobs.quietbank.example"
XML_URL = (
    "https://career2.successfactors.eu/career?company=QuietBank"
    "&career_ns=job_listing_summary&resultType=XML"
)


def answer(status: int | None) -> FetchResult:
    return FetchResult(FetchRequest("https://x/feed"), "https://x/feed", status, {}, b"", 1)


def read(outcome: str, status: int | None, *codes: str, pages: int = 1) -> ListingRead:
    issues = tuple(Issue(code, f"{code} said") for code in codes)
    attempts = tuple(answer(status) for _ in range(pages))
    return ListingRead(outcome, http_status=status, attempts=attempts, issues=issues)


@pytest.mark.parametrize(
    ("finished", "why"),
    [
        (read("failed", 404), "HTTP 404 on the listing"),
        (read("failed", 410), "HTTP 410 on the listing"),
        (read("rejected", 200, "unexpected_shape"), "not this format: unexpected_shape"),
        (read("rejected", 200, "invalid_xml"), "not this format: invalid_xml"),
        (read("rejected", 200, "no_posting"), "not this format: no_posting"),
    ],
)
def test_a_gone_listing_or_a_body_of_another_format_makes_the_format_unavailable(
    finished: ListingRead, why: str
) -> None:
    found = unavailable(finished)
    assert found is not None
    assert found.startswith(why)


@pytest.mark.parametrize(
    "finished",
    [
        pytest.param(read("failed", 500), id="5xx"),
        pytest.param(read("failed", 502), id="bad-gateway"),
        pytest.param(read("rate_limited", 429), id="429"),
        pytest.param(read("rate_limited", 503), id="503"),
        pytest.param(read("failed", None), id="timeout"),
        pytest.param(read("blocked", 403), id="bot-wall"),
        pytest.param(read("failed", 403), id="403"),
        pytest.param(read("disallowed", None), id="robots"),
        pytest.param(read("rejected", 200, "blocked"), id="parser-saw-a-challenge"),
        pytest.param(read("rejected", 200, "parser_error"), id="parser-bug"),
        pytest.param(read("rejected", 200, "empty_body"), id="empty-body"),
        pytest.param(read("failed", 404, pages=2), id="a-later-page-404"),
        pytest.param(read("changed", 200), id="a-listing"),
        pytest.param(read("empty", 200), id="an-empty-listing"),
    ],
)
def test_a_failure_that_may_pass_never_switches_the_format(finished: ListingRead) -> None:
    assert unavailable(finished) is None


def test_a_board_naming_both_sites_leads_to_the_xml_feed_first_then_the_rss_feed() -> None:
    found = [(fmt.name, url) for fmt, url in SF.board_formats(None, SF_TOKEN)]
    assert found == [
        ("xml_feed", XML_URL),
        ("rss_feed", "https://jobs.quietbank.example/googlefeed.xml"),
    ]


def test_the_next_format_is_the_best_one_not_asked_yet() -> None:
    board = BoardRow(1, "sf", SF_TOKEN, XML_URL, format="xml_feed")
    fmt, url = next_format(SF, board, None, ["xml_feed"])  # type: ignore[misc]
    assert (fmt.name, url) == ("rss_feed", "https://jobs.quietbank.example/googlefeed.xml")
    assert next_format(SF, board, None, ["xml_feed", "rss_feed"]) is None


def test_a_board_read_in_its_fallback_returns_to_the_better_format_when_the_fallback_goes() -> None:
    rss = "https://jobs.quietbank.example/googlefeed.xml"
    board = BoardRow(1, "sf", SF_TOKEN, rss, format="rss_feed")
    fmt, url = next_format(SF, board, None, ["rss_feed"])  # type: ignore[misc]
    assert (fmt.name, url) == ("xml_feed", XML_URL)


def test_a_token_that_names_one_format_has_nothing_to_fall_back_to() -> None:
    board = BoardRow(1, "sf", "career2.successfactors.eu/QuietBank", XML_URL)
    assert format_of(SF, board, None) == "xml_feed"
    assert next_format(SF, board, None, ["xml_feed"]) is None


def test_a_platform_with_one_format_never_falls_back() -> None:
    greenhouse = PLATFORMS["greenhouse"]
    board = BoardRow(1, "gh", "acme", "https://boards-api.greenhouse.io/v1/boards/acme/jobs")
    assert len(greenhouse.listing_formats()) == 1
    assert next_format(greenhouse, board, "https://boards-api.greenhouse.io", ["listing"]) is None


def test_jobvite_tokens_name_the_feed_the_career_site_or_both() -> None:
    assert [f.name for f, _ in JOBVITE.board_formats(None, "qZA9VfwF")] == ["xml_feed"]
    assert JOBVITE.board_formats(None, "@feedingamerica") == [
        (JOBVITE.listing_formats()[1], "https://jobs.jobvite.com/feedingamerica/search")
    ]
    both = [url for _, url in JOBVITE.board_formats("http://sb/jobvite", "qZA9VfwF@harbor")]
    assert both == [
        "http://sb/jobvite/qZA9VfwF/CompanyJobs/Xml.aspx?c=qZA9VfwF",
        "http://sb/jobvite/harbor/careers/search",
    ]


def test_a_successfactors_token_without_a_company_names_a_career_site_builder_site() -> None:
    assert sf_board("jobs.example.com").site == "jobs.example.com"
    assert [f.name for f, _ in SF.board_formats(None, "jobs.example.com")] == ["rss_feed"]


@pytest.mark.parametrize(
    ("parse", "token"),
    [
        (jobvite_board, "qZA9VfwF@"),
        (jobvite_board, "@"),
        (jobvite_board, "a b"),
        (sf_board, "@jobs.example.com"),
        (sf_board, "career2.successfactors.eu"),  # SAP's host names no company's site
        (sf_board, "career2.successfactors.eu/X jobs.example.com"),
    ],
)
def test_malformed_tokens_are_refused_with_the_forms_a_token_may_take(
    parse: Callable[[str], object], token: str
) -> None:
    with pytest.raises(ValueError, match="token"):
        parse(token)
