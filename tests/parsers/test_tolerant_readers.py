"""Listing readers find rows by their own markers: the failure classes seen on real
data (a card layout without the jobs table, an older API's bare array, a body without
its envelope), and the rejections that must stay rejections."""

from __future__ import annotations

import json

from parsers.rowfind import SHAPE_ISSUE, RowMarkers, find_rows
from parsers.types import DocumentKind, PageSignal, ParseOutcome, Quality
from tests.parsers.conftest import parse

ICIMS_SEARCH = "https://careers-acme.icims.com/jobs/search?ss=1&in_iframe=1&pr=0"


def _codes(outcome: ParseOutcome) -> list[str]:
    return [issue.code for issue in outcome.issues]


def _card(job_id: str, title: str, place: str, category: str) -> str:
    return (
        f"<li class='iCIMS_JobCardItem'><div class='iCIMS_JobCardHeader'>"
        f"<a class='iCIMS_Anchor' href='https://careers-acme.icims.com/jobs/{job_id}/"
        f"{title.lower().replace(' ', '-')}/job?in_iframe=1' title='{job_id} - {title}'>"
        f"<h3>{title}</h3></a></div><dl class='iCIMS_JobHeaderGroup'>"
        f"<dt class='iCIMS_JobHeaderField'>Job Locations</dt><dd>{place}</dd>"
        f"<dt class='iCIMS_JobHeaderField'>Category</dt><dd>{category}</dd></dl></li>"
    )


def test_an_icims_card_layout_without_the_jobs_table_keeps_every_row() -> None:
    page = (
        "<html><body><div class='iCIMS_JobCardsContainer'><ul class='iCIMS_JobCards'>"
        + _card("101", "Data Analyst", "US-TX-Austin", "Finance")
        + _card("102", "Payroll Lead", "CA-ON-Toronto", "People")
        + "</ul></div><div class='iCIMS_Paging'>Page 1 of 2</div></body></html>"
    )
    outcome = parse("icims", page, ICIMS_SEARCH)
    assert outcome.quality is Quality.PARTIAL
    assert _codes(outcome) == [SHAPE_ISSUE]
    assert "iCIMS_JobsTable" in outcome.issues[0].message
    assert [(p.external_id, p.title, p.location_text, p.department) for p in outcome.postings] == [
        ("101", "Data Analyst", "US-TX-Austin", "Finance"),
        ("102", "Payroll Lead", "CA-ON-Toronto", "People"),
    ]
    assert outcome.next_page_url is not None
    assert outcome.next_page_url.endswith("pr=1")


def test_icims_links_side_by_side_are_each_their_own_row() -> None:
    """No element holds one job alone: each link is a row, never the first one twice."""
    page = "<div>" + "".join(
        f"<a class='iCIMS_Anchor' href='/jobs/{n}/role/job'><h3>Role {n}</h3></a>" for n in (7, 8)
    )
    outcome = parse("icims", page + "</div>", ICIMS_SEARCH)
    assert [(p.external_id, p.title) for p in outcome.postings] == [
        ("7", "Role 7"),
        ("8", "Role 8"),
    ]


def test_an_icims_page_without_job_links_or_behind_a_wall_is_still_rejected() -> None:
    error = parse("icims", "<html><body><h1>Something went wrong</h1></body></html>", ICIMS_SEARCH)
    assert error.quality is Quality.REJECTED
    assert _codes(error) == ["unexpected_shape"]
    wall = parse(
        "icims",
        "<html><title>Just a moment...</title><body><div id='challenge-form'>"
        "<a class='iCIMS_Anchor' href='/jobs/1/x/job'>x</a>"
        "<script src='/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1'></script>"
        "</div></body></html>",
        ICIMS_SEARCH,
    )
    assert (wall.quality, wall.signal) == (Quality.REJECTED, PageSignal.BLOCKED)


RIPPLING_V1 = "https://api.rippling.com/platform/api/ats/v1/board/acme/jobs"


def test_an_older_api_version_as_a_bare_array_with_other_key_names_is_read() -> None:
    rows = [
        {
            "uuid": "0f3c1a2b-0000-4000-8000-00000000000" + str(n),
            "name": f"Engineer {n}",
            "url": f"https://ats.rippling.com/acme/jobs/{n}",
            "department": {"label": "Engineering"},
            "workLocation": {"label": "Remote (US)"},
        }
        for n in (1, 2)
    ]
    outcome = parse("rippling", json.dumps(rows), RIPPLING_V1)
    assert [p.external_id for p in outcome.postings] == [r["uuid"] for r in rows]
    assert [p.title for p in outcome.postings] == ["Engineer 1", "Engineer 2"]
    assert [p.department for p in outcome.postings] == ["Engineering", "Engineering"]
    assert outcome.quality is Quality.PARTIAL
    shape = next(i for i in outcome.issues if i.code == SHAPE_ISSUE)
    assert "bare array" in shape.message
    assert shape.path == "$"


def test_a_wrapped_envelope_still_gives_its_count_and_next_page() -> None:
    page = {
        "items": [{"id": "a1", "name": "Engineer", "url": "https://ats.rippling.com/acme/jobs/a1"}],
        "page": 0,
        "pageSize": 1,
        "totalItems": 2,
        "totalPages": 2,
    }
    url = "https://ats.rippling.com/api/v2/board/acme/jobs?page=0&pageSize=1"
    outcome = parse("rippling", json.dumps({"result": page}), url)
    assert [p.external_id for p in outcome.postings] == ["a1"]
    assert outcome.total == 2
    assert outcome.next_page_url is not None
    assert "page=1" in outcome.next_page_url
    assert "extra wrapper ($.result)" in next(
        i.message for i in outcome.issues if i.code == SHAPE_ISSUE
    )


def test_an_empty_bare_array_is_no_sign_of_a_listing() -> None:
    """`{"jobs": []}` is an empty board; a bare `[]` where an envelope belongs shows no
    row to recognise, and taking it for an empty board would retire every posting."""
    assert parse("greenhouse", '{"jobs": []}').quality is Quality.ACCEPTED
    assert _codes(parse("greenhouse", "[]")) == ["unexpected_shape"]


def test_a_list_mostly_of_other_things_is_not_a_listing() -> None:
    body = json.dumps({"widgets": [{"id": 1, "title": "Promo"}, 1, 2, 3], "ok": True})
    assert _codes(parse("greenhouse", body)) == ["unexpected_shape"]


def test_a_detail_response_without_its_posting_is_not_searched_for_rows() -> None:
    """A Workday detail lists similar jobs: without `jobPostingInfo` it is rejected,
    never read as a listing of the other jobs."""
    body = json.dumps({"similarJobs": [{"title": "Other", "externalPath": "/job/x/Other_R1"}] * 2})
    url = "https://acme.wd5.myworkdayjobs.com/wday/cxs/acme/Careers/job/x/Role_R9"
    outcome = parse("workday", body, url, kind=DocumentKind.DETAIL)
    assert outcome.quality is Quality.REJECTED
    assert _codes(outcome) == ["unexpected_shape"]


def test_api_errors_are_still_errors() -> None:
    outcome = parse("greenhouse", '{"error": "Could not find a job board"}')
    assert (outcome.quality, outcome.signal) == (Quality.REJECTED, PageSignal.NOT_FOUND)


def test_a_workable_v3_page_at_another_address_is_still_read_as_v3() -> None:
    body = json.dumps(
        {"total": 1, "results": [{"shortcode": "AB12CD", "title": "Designer"}], "nextPage": ""}
    )
    outcome = parse("workable", body, "https://example.com/careers-proxy")
    # The v3 reader's answer (its count; no URL can be built off a v3 address), not
    # the widget reader's shape guess at the same rows.
    assert outcome.total == 1
    assert SHAPE_ISSUE not in _codes(outcome)
    assert "missing_url" in _codes(outcome)


JAZZ_JOB = (
    "<job><id><![CDATA[job_1]]></id><status>Open</status><title>Analyst</title>"
    "<url>https://acme.applytojob.com/apply/abc/analyst</url><city>Leeds</city></job>"
)
JAZZ_FEED = "https://app.jazz.co/feeds/export/jobs/acme"


def test_a_feed_under_another_root_keeps_its_rows_and_their_company() -> None:
    body = f"<export><jobs><company>Acme Ltd</company>{JAZZ_JOB}</jobs></export>"
    outcome = parse("jazzhr", body, JAZZ_FEED)
    assert [(p.external_id, p.company) for p in outcome.postings] == [("job_1", "Acme Ltd")]
    assert SHAPE_ISSUE in _codes(outcome)
    assert outcome.quality is Quality.PARTIAL


def test_feed_rows_without_a_root_element_are_read() -> None:
    outcome = parse(
        "jazzhr", f"<?xml version='1.0'?>{JAZZ_JOB}{JAZZ_JOB.replace('1', '2')}", JAZZ_FEED
    )
    assert [p.external_id for p in outcome.postings] == ["job_1", "job_2"]
    assert "without the <jobs> root element" in outcome.issues[0].message


def test_broken_or_foreign_xml_is_still_rejected() -> None:
    truncated = parse("jazzhr", f"<jobs>{JAZZ_JOB}<job><id>2", JAZZ_FEED)
    assert _codes(truncated) == ["invalid_xml"]
    foreign = parse(
        "jazzhr", "<rss><channel><item><title>x</title></item></channel></rss>", JAZZ_FEED
    )
    assert _codes(foreign) == ["unexpected_shape"]
    text = parse("personio", "Service Unavailable", "https://acme.jobs.personio.de/xml")
    assert _codes(text) == ["invalid_xml"]


def test_the_search_takes_every_list_of_rows_and_stops_at_depth() -> None:
    markers = RowMarkers(("id",), ("title",))
    row = {"id": 1, "title": "x"}
    found = find_rows({"a": {"few": [row]}, "b": [row, row, row]}, markers, ("jobs",))
    assert found is not None
    assert len(found.rows) == 4
    assert found.issue.path == "$.b (and 1 more)"
    deep: object = [row]
    for _ in range(10):
        deep = {"w": deep}
    assert find_rows(deep, markers, ("jobs",)) is None


def _lever(n: int, team: str) -> dict[str, object]:
    return {
        "id": f"lv-{n}",
        "text": f"Role {n}",
        "hostedUrl": f"https://jobs.lever.co/acme/lv-{n}",
        "categories": {"team": team, "location": "Berlin"},
    }


def test_a_grouped_listing_keeps_the_rows_of_every_group() -> None:
    """Lever's `group=team` answers a top-level array of groups, each with its
    postings: the documented place holds a list, but of groups."""
    body = [
        {"title": "Engineering", "postings": [_lever(1, "Engineering"), _lever(2, "Engineering")]},
        {"title": "Sales", "postings": [_lever(3, "Sales")]},
    ]
    outcome = parse("lever", json.dumps(body), "https://api.lever.co/v0/postings/acme?group=team")
    assert [p.external_id for p in outcome.postings] == ["lv-1", "lv-2", "lv-3"]
    assert outcome.quality is Quality.PARTIAL
    assert next(i for i in outcome.issues if i.code == SHAPE_ISSUE).path == "$[*].postings"
    departments = {
        "departments": [
            {
                "id": 1,
                "name": "Eng",
                "jobs": [{"id": 11, "title": "A", "absolute_url": "https://x/11"}],
            },
            {
                "id": 2,
                "name": "Ops",
                "jobs": [{"id": 12, "title": "B", "absolute_url": "https://x/12"}],
            },
        ]
    }
    grouped = parse("greenhouse", json.dumps(departments))
    assert [p.external_id for p in grouped.postings] == ["11", "12"]


def test_a_documented_list_of_rows_is_never_searched_further() -> None:
    """Rows at the documented place are the listing, even beside other row-like lists."""
    body = {
        "jobs": [{"id": 1, "title": "A", "absolute_url": "https://x/1"}],
        "featured": [{"id": 2, "title": "B", "absolute_url": "https://x/2"}],
    }
    outcome = parse("greenhouse", json.dumps(body))
    assert [p.external_id for p in outcome.postings] == ["1"]
    assert SHAPE_ISSUE not in _codes(outcome)
