"""The safety rules of Pinpoint, Breezy, Rippling, Oracle, SuccessFactors, JazzHR, Jobvite
and iCIMS, each with the input that would
break it: closed flags fire only on the platform's own evidence, paging stops where
the platform says the board ends, ids agree between a listing and a posting's page."""

from __future__ import annotations

import json
import re

import pytest

from parsers.registry import REGISTRY
from parsers.types import DocumentKind, PageSignal, Quality, RawDocument
from pipeline.crawl.platforms import PLATFORMS
from pipeline.crawl.platforms.oracle import parse_token as oracle_token
from pipeline.crawl.platforms.rippling import detail_api
from pipeline.db.rows import DueCheck
from pipeline.lifecycle.check_rules import CheckedResponse, judge

ORACLE_API = "https://eeho.fa.us2.oraclecloud.com/hcmRestApi/resources/latest"
DETAIL = f"{ORACLE_API}/recruitingCEJobRequisitionDetails?expand=all&onlyData=true&finder=ById;Id=%22123%22,siteNumber=CX_1"
SEARCH = f"{ORACLE_API}/recruitingCEJobRequisitions?onlyData=true&finder=findReqs;siteNumber=CX_1,limit=2,offset=0"


def _response(url: str, status: int, data: object) -> CheckedResponse:
    return CheckedResponse(url, url, status, json.dumps(data).encode())


def test_oracle_closes_only_on_an_empty_byid_detail() -> None:
    oracle = PLATFORMS["oracle"]
    assert oracle.closed_flag(_response(DETAIL, 200, {"items": []})) == "no_posted_requisition"
    # A live requisition, an error status, a search page or a broken body: no flag.
    assert oracle.closed_flag(_response(DETAIL, 200, {"items": [{"Id": "123"}]})) is None
    assert oracle.closed_flag(_response(DETAIL, 503, {"items": []})) is None
    assert oracle.closed_flag(_response(SEARCH, 200, {"items": []})) is None
    assert oracle.closed_flag(CheckedResponse(DETAIL, DETAIL, 200, b"<html>")) is None
    verdict = judge(
        _response(DETAIL, 503, {"items": []}),
        external_id="123",
        title="Engineer",
        closed_flag=oracle.closed_flag,
    )
    assert not verdict.conclusive


def test_oracle_search_pages_stop_at_the_total_and_on_an_empty_page() -> None:
    parse = REGISTRY.get("oracle").parse
    rows = [{"Id": str(i), "Title": f"Role {i}", "PrimaryLocation": "Austin, TX"} for i in (1, 2)]
    first = {"items": [{"TotalJobsCount": 3, "requisitionList": rows}]}
    outcome = parse(RawDocument(json.dumps(first).encode(), SEARCH))
    assert outcome.total == 3
    assert outcome.next_page_url is not None
    assert "offset=2" in outcome.next_page_url
    empty = {"items": [{"TotalJobsCount": 3, "requisitionList": []}]}
    assert parse(RawDocument(json.dumps(empty).encode(), SEARCH)).next_page_url is None
    last = {"items": [{"TotalJobsCount": 2, "requisitionList": rows}]}
    assert parse(RawDocument(json.dumps(last).encode(), SEARCH)).next_page_url is None


def test_oracle_an_empty_byid_detail_is_not_found_and_a_search_is_not() -> None:
    parse = REGISTRY.get("oracle").parse
    gone = parse(RawDocument(b'{"items": []}', DETAIL, DocumentKind.DETAIL))
    assert gone.signal is PageSignal.NOT_FOUND
    empty_search = parse(RawDocument(b'{"items": []}', SEARCH))
    assert empty_search.signal is not PageSignal.NOT_FOUND


@pytest.mark.parametrize(
    ("token", "host", "site"),
    [
        ("eeho.fa.us2/CX_1", "eeho.fa.us2.oraclecloud.com", "CX_1"),
        ("eeho.fa.us2.oraclecloud.com/CX_1", "eeho.fa.us2.oraclecloud.com", "CX_1"),
        ("careers.autozone.com/jobsearch", "careers.autozone.com", "jobsearch"),
    ],
)
def test_oracle_tokens_name_a_host_and_a_site(token: str, host: str, site: str) -> None:
    assert oracle_token(token) == (host, site)


def test_a_malformed_oracle_token_says_what_it_should_look_like() -> None:
    with pytest.raises(ValueError, match=r"pod\.fa\.us2/CX_1"):
        oracle_token("CX_1")


def _due(url: str) -> DueCheck:
    return DueCheck(1, "1", 1, url, None, "missing", "acme", "https://ats.rippling.com/acme")


def test_rippling_checks_the_detail_api_not_the_hosted_shell() -> None:
    url = "https://ats.rippling.com/acme/jobs/2a8414fe-b145-4753-a4a9-d8f0f279aecc"
    request = PLATFORMS["rippling"].check_request(_due(url))
    assert request.url == detail_api(url)
    assert request.url.startswith("https://ats.rippling.com/api/v2/board/acme/jobs/")


@pytest.mark.parametrize(
    "url",
    [
        "https://ats.rippling.com/en-GB/acme/jobs/2a8414fe-b145-4753-a4a9-d8f0f279aecc",
        "https://ats.rippling.com/acme/jobs/not-a-uuid",
    ],
)
def test_rippling_never_guesses_a_detail_url_it_cannot_build_for_sure(url: str) -> None:
    """A wrongly built detail URL would 404 for a live posting: the page check instead."""
    assert detail_api(url) is None
    assert PLATFORMS["rippling"].check_request(_due(url)).url == url


def test_rippling_stops_on_the_last_page() -> None:
    parse = REGISTRY.get("rippling").parse
    url = "https://ats.rippling.com/api/v2/board/acme/jobs?page=1&pageSize=1"
    item = {"id": "u2", "name": "PM", "url": "https://ats.rippling.com/acme/jobs/u2"}
    body = {"items": [item], "page": 1, "pageSize": 1, "totalItems": 2, "totalPages": 2}
    assert parse(RawDocument(json.dumps(body).encode(), url)).next_page_url is None


def test_jazzhr_postings_that_are_not_open_are_not_live() -> None:
    feed = (
        b"<jobs><job><id>a</id><status>Open</status><title>One</title><url>https://x.applytojob.com/apply/A1/one</url>"
        b"<description>&lt;p&gt;Hi&lt;/p&gt;</description><city>Austin</city></job>"
        b"<job><id>b</id><status>Filled</status><title>Two</title><url>https://x.applytojob.com/apply/B2/two</url>"
        b"<description>Bye</description><city>Austin</city></job></jobs>"
    )
    outcome = REGISTRY.get("jazzhr").parse(
        RawDocument(feed, "https://app.jazz.co/feeds/export/jobs/x")
    )
    assert [p.title for p in outcome.postings] == ["One"]


def test_successfactors_facets_are_read_by_label_whatever_their_number() -> None:
    def feed(tag: str) -> bytes:
        return (
            f"<Job-Listing><Job><JobTitle>Analyst</JobTitle><ReqId>7</ReqId>"
            f"<Job-Description>Hi</Job-Description><{tag}><label>Posting Location</label>"
            f"<value>Zürich, CH</value></{tag}></Job></Job-Listing>"
        ).encode()

    url = "https://career2.successfactors.eu/career?company=X&career_ns=job_listing_summary&resultType=XML"
    for tag in ("filter1", "filter7", "mfield3"):
        (posting,) = REGISTRY.get("successfactors").parse(RawDocument(feed(tag), url)).postings
        assert posting.location_text == "Zürich, CH"


def test_a_career_site_builder_feed_is_read_whether_its_g_prefix_is_declared_or_not() -> None:
    item = (
        "<item><title>Teller (Basel, CH)</title>"
        "<link>https://jobs.quietbank.example/job/Basel-Teller/1043400/</link>"
        "<g:id>1043400</g:id><g:location>Basel, CH</g:location></item>"
    )
    url = "https://jobs.quietbank.example/googlefeed.xml"
    declared = f"<rss xmlns:g='http://base.google.com/ns/1.0'><channel>{item}</channel></rss>"
    undeclared = f"<rss><channel>{item}</channel></rss>"
    for body in (declared, undeclared):
        outcome = REGISTRY.get("successfactors").parse(RawDocument(body.encode(), url))
        assert [(p.external_id, p.title, p.location_text) for p in outcome.postings] == [
            ("1043400", "Teller", "Basel, CH")
        ]


def test_a_career_site_builder_item_without_g_id_takes_the_number_ending_its_link() -> None:
    body = (
        b"<rss><channel><item><title>Clerk</title>"
        b"<link>https://jobs.acme.example/job/Clerk/88123/</link></item></channel></rss>"
    )
    url = "https://jobs.acme.example/googlefeed.xml"
    (posting,) = REGISTRY.get("successfactors").parse(RawDocument(body, url)).postings
    assert posting.external_id == "88123"


def test_a_jobvite_career_site_page_without_job_links_is_not_read_as_an_empty_board() -> None:
    url = "https://jobs.jobvite.com/acme/search"
    page = b"<!doctype html><html><body><h1>Welcome to our careers</h1></body></html>"
    outcome = REGISTRY.get("jobvite").parse(RawDocument(page, url))
    assert outcome.quality is Quality.REJECTED
    assert [i.code for i in outcome.issues] == ["unexpected_shape"]


def test_jobvite_nojobs_page_is_an_empty_board_not_an_error() -> None:
    url = "https://app.jobvite.com/nojobs.htm"
    outcome = REGISTRY.get("jobvite").parse(RawDocument(b"<html>No jobs</html>", url))
    assert outcome.quality is Quality.ACCEPTED
    assert outcome.postings == ()


def test_icims_stops_when_the_page_says_it_is_the_last() -> None:
    page = (
        b"<div class='iCIMS_JobsTable'><div class='row'><a class='iCIMS_Anchor' "
        b"href='/jobs/12/role/job?in_iframe=1'><h3>Role</h3></a></div></div>"
        b"<div class='iCIMS_Paging'>Page 2 of 2</div>"
    )
    url = "https://careers-acme.icims.com/jobs/search?ss=1&in_iframe=1&pr=1"
    outcome = REGISTRY.get("icims").parse(RawDocument(page, url))
    assert [p.external_id for p in outcome.postings] == ["12"]
    assert outcome.next_page_url is None
    first = page.replace(b"Page 2 of 2", b"Page 1 of 2")
    following = REGISTRY.get("icims").parse(RawDocument(first, url.replace("pr=1", "pr=0")))
    assert following.next_page_url is not None
    assert following.next_page_url.endswith("pr=1")


@pytest.mark.parametrize(
    ("platform", "token", "example"),
    [
        ("oracle", "CX_1", "eeho.fa.us2.oraclecloud.com/CX_1"),
        ("successfactors", "SwissRe", "career2.successfactors.eu/CompanyId"),
        # SAP's career host alone names no company's site.
        ("successfactors", "career2.successfactors.eu", "jobs.example.com"),
        ("jobvite", "qZA9VfwF@", "qZA9VfwF, @careersiteslug or qZA9VfwF@careersiteslug"),
    ],
)
def test_a_composite_token_without_its_parts_is_a_config_error(
    tmp_path, platform: str, token: str, example: str
) -> None:  # type: ignore[no-untyped-def]
    from pipeline.config import load_sources
    from pipeline.errors import ConfigError

    path = tmp_path / "sources.yaml"
    path.write_text(f"sources:\n  s:\n    platform: {platform}\n    boards: ['{token}']\n")
    with pytest.raises(ConfigError, match=re.escape(example)):
        load_sources(path, env={})
