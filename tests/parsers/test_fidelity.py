"""The defect classes found on real data (docs/parsers.md), each pinned at its shared rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parsers.entities import has_entity_code, looks_like_legal_entity
from parsers.plausible import implausible_salary
from parsers.text import clean_place, clean_space, parse_salary_text
from parsers.types import DocumentKind, Quality
from parsers.urls import is_site_root, posting_url
from parsers.workday import site_base
from tests.parsers.conftest import doc, parse, read_real

PAGE = "https://careers.example.org/vacancies/backend-engineer-4411"


# ---------------------------------------------------------------- page URLs


@pytest.mark.parametrize(
    "url",
    [
        "https://careers.example.org",
        "https://careers.example.org/",
        "https://careers.example.org/en",
        "https://careers.example.org/en-US/jobs/",
        "https://www.topcv.vn/viec-lam",
    ],
)
def test_site_roots_are_roots(url: str) -> None:
    assert is_site_root(url)


@pytest.mark.parametrize(
    "url", [PAGE, "https://careers.example.org/jobs?id=42", "https://x.io/jobs/7/apply"]
)
def test_posting_pages_are_not_roots(url: str) -> None:
    assert not is_site_root(url)


def test_a_site_root_claim_never_replaces_the_fetched_url() -> None:
    assert posting_url(PAGE, "https://careers.example.org/", "/en") == PAGE


def test_another_hosts_url_is_never_taken_from_the_page() -> None:
    assert posting_url(PAGE, "https://aggregator.example.net/job/9/x/y/z") == PAGE


def test_a_claim_no_more_specific_than_the_fetched_url_loses() -> None:
    claim = "https://careers.example.org/Backend%20Engineer/4411"
    assert posting_url(PAGE, claim) == PAGE


def test_a_more_specific_or_cleaner_claim_wins() -> None:
    fetched = "https://careers.example.org/jobs"
    assert (
        posting_url(fetched, "/jobs/4411-backend")
        == "https://careers.example.org/jobs/4411-backend"
    )
    assert posting_url(PAGE + "?utm_source=feed", PAGE) == PAGE  # same page, no tracking


def test_postings_of_one_page_without_ids_stay_distinct() -> None:
    nodes = [
        {"@type": "JobPosting", "title": title, "description": "<p>x</p>", "url": "/"}
        for title in ("Planner", "Analyst", "Planner ")
    ]
    body = "".join(f"<script type='application/ld+json'>{json.dumps(n)}</script>" for n in nodes)
    outcome = parse("jsonld", f"<html><head>{body}</head></html>", "https://x.io/jobs?p=1")
    ids = [p.external_id for p in outcome.postings]
    assert len(ids) == 2 == len(set(ids))  # "Planner " is "Planner": one posting repeated
    assert all(p.url == "https://x.io/jobs?p=1" for p in outcome.postings)


def test_ashby_hosted_page_and_api_name_a_posting_alike(real_dir: Path) -> None:
    api = json.loads(
        read_real(real_dir / "ashby" / "ashby-langchain-board-secondary-locations.json")
    )
    job_url = api["jobs"][0]["jobUrl"]
    body = read_real(real_dir / "jsonld" / "ashby-job-page-echotwin-jsonld.html")
    fetched = "https://jobs.ashbyhq.com/echotwin/93888d8f-d32c-4213-8768-93b2bc63fc03/application"
    page = parse("ashby", body, fetched, kind=DocumentKind.DETAIL).postings[0]
    assert page.url == fetched.removesuffix("/application")
    assert job_url.count("/") == page.url.count("/")  # https://jobs.ashbyhq.com/{board}/{id}
    display = read_real(real_dir / "jsonld" / "ashby-job-page-superhuman-tpm-growth-jsonld.html")
    fetched = "https://jobs.ashbyhq.com/superhuman/700c8d97-6ee3-4cb3-afff-b1e2fa157b1c"
    for name in ("ashby", "jsonld"):
        posting = parse(name, display, fetched, kind=DocumentKind.DETAIL).postings[0]
        assert posting.url == fetched, name  # not og:url's ".../Superhuman%20Platform%20Inc/..."


# ---------------------------------------------------------------- legal entities


@pytest.mark.parametrize(
    "label", ["631 Example Corp_United States", "IL00 Subsidiary Technologies, Ltd.", "US01 - Acme"]
)
def test_entity_codes_are_recognised(label: str) -> None:
    assert has_entity_code(label)


@pytest.mark.parametrize("brand", ["NVIDIA", "3M", "7-Eleven", "C3 AI", "23andMe", "1Password"])
def test_brands_with_digits_are_not_entity_codes(brand: str) -> None:
    assert not has_entity_code(brand)
    assert not looks_like_legal_entity(brand)


def test_workday_company_keeps_the_entity_apart() -> None:
    body = {
        "jobPostingInfo": {"title": "Buyer", "jobReqId": "R-1", "location": "Reston, VA"},
        "hiringOrganization": {"name": "631 Example Corp_United States"},
    }
    url = "https://ex.wd1.myworkdayjobs.com/wday/cxs/ex/Site/job/Reston/Buyer_R-1"
    (posting,) = parse("workday", json.dumps(body), url, kind=DocumentKind.DETAIL).postings
    assert (posting.company, posting.legal_entity) == (None, "631 Example Corp_United States")
    body["hiringOrganization"] = {"name": "NVIDIA"}
    (posting,) = parse("workday", json.dumps(body), url, kind=DocumentKind.DETAIL).postings
    assert (posting.company, posting.legal_entity) == ("NVIDIA", None)
    assert "legal_entity" not in posting.to_dict()  # only sources that name one carry the key


def test_greenhouse_office_without_location_is_not_its_name() -> None:
    job = {
        "id": 1,
        "title": "Engineer",
        "absolute_url": "https://job-boards.greenhouse.io/x/jobs/1",
        "location": {"name": "Bengaluru"},
        "offices": [{"name": "Harbor Software India Private Limited", "location": None}],
    }
    (posting,) = parse("greenhouse", json.dumps({"jobs": [job]})).postings
    assert posting.offices == ()
    assert posting.location_text == "Bengaluru"


# ---------------------------------------------------------------- work modes


@pytest.mark.parametrize(
    ("label", "remote"),
    [("Flex", "hybrid"), ("Hybrid", "hybrid"), ("Remote", "yes"), ("On-site", "unknown")],
)
def test_workday_remote_type(label: str, remote: str) -> None:
    row = {
        "title": "X",
        "externalPath": "/job/a/X_R1",
        "locationsText": "Remote",
        "remoteType": label,
    }
    url = "https://ex.wd1.myworkdayjobs.com/wday/cxs/ex/Site/jobs"
    (posting,) = parse("workday", json.dumps({"total": 1, "jobPostings": [row]}), url).postings
    assert posting.remote == remote  # "On-site" is explicit: the "Remote" text does not override


@pytest.mark.parametrize(
    ("flags", "remote"),
    [((True, False, False), "yes"), ((False, True, False), "hybrid"), ((True, False, True), "hybrid"),
     ((False, False, True), "unknown")],
)  # fmt: skip
def test_recruitee_flags(flags: tuple[bool, bool, bool], remote: str) -> None:
    offer = dict(zip(("remote", "hybrid", "on_site"), flags, strict=True))
    offer |= {
        "id": 1,
        "title": "X",
        "careers_url": "https://x.recruitee.com/o/x",
        "location": "Utrecht",
    }
    (posting,) = parse("recruitee", json.dumps({"offers": [offer]})).postings
    assert posting.remote == remote


def test_myworkdaysite_public_links_name_the_tenant() -> None:
    public, api = site_base("https://wd3.myworkdaysite.com/wday/cxs/acme/Careers/jobs")  # type: ignore[misc]
    assert public == "https://wd3.myworkdaysite.com/recruiting/acme/Careers"
    assert api == "https://wd3.myworkdaysite.com/wday/cxs/acme/Careers"
    public, _ = site_base("https://acme.wd5.myworkdayjobs.com/wday/cxs/acme/Careers/jobs")  # type: ignore[misc]
    assert public == "https://acme.wd5.myworkdayjobs.com/Careers"
    # Served under a base (the sandbox), the shared host is the base's last segment.
    public, _ = site_base(
        "http://127.0.0.1:8765/workday/wd3.myworkdaysite.com/wday/cxs/acme/C/jobs"
    )  # type: ignore[misc]
    assert public == "http://127.0.0.1:8765/workday/wd3.myworkdaysite.com/recruiting/acme/C"
    # No tenant-named myworkdaysite.com host exists: such a URL is read as an own host.
    public, _ = site_base("https://acme.wd3.myworkdaysite.com/wday/cxs/acme/Careers/jobs")  # type: ignore[misc]
    assert public == "https://acme.wd3.myworkdaysite.com/Careers"


# ---------------------------------------------------------------- Workday requisition ids


@pytest.mark.parametrize(
    ("path", "bullets", "external_id"),
    [
        ("/job/Reston/Buyer_R12345-1", ["R12345"], "R12345"),  # a repost of R12345
        ("/job/Reston/Buyer_JR-0001234-2", ["JR-0001234"], "JR-0001234"),
        ("/job/Reston/Buyer_R12345", ["R12345"], "R12345"),
        ("/job/Reston/Buyer_R-7", ["R-7"], "R-7"),  # the dash is the id's own
        ("/job/Reston/Buyer_JR-0001234", ["JR-0001234"], "JR-0001234"),
        ("/job/Reston/Buyer_R12345-1", [], "R12345-1"),  # nothing confirms a repost
        ("/job/Reston/Buyer_R12345-1", ["Reston, VA"], "R12345-1"),
        ("/job/Reston/Buyer_R12345-1", ["R12346"], "R12345-1"),  # another requisition
        ("/job/Reston/Buyer_R12345-1", ["R12345-1", "R12345"], "R12345-1"),  # the row says both
    ],
)
def test_a_workday_row_is_its_requisition_not_its_repost(
    path: str, bullets: list[str], external_id: str
) -> None:
    row = {
        "title": "Buyer",
        "externalPath": path,
        "locationsText": "Reston",
        "bulletFields": bullets,
    }
    url = "https://wd3.myworkdaysite.com/wday/cxs/acme/Careers/jobs"
    (posting,) = parse("workday", json.dumps({"total": 1, "jobPostings": [row]}), url).postings
    assert posting.external_id == external_id
    assert posting.url == f"https://wd3.myworkdaysite.com/recruiting/acme/Careers{path}"  # as named


def test_a_workday_detail_is_its_requisition_whatever_its_page_is_named() -> None:
    body = {"jobPostingInfo": {"title": "Buyer", "jobReqId": "R12345", "location": "Reston"}}
    url = "https://wd3.myworkdaysite.com/wday/cxs/acme/Careers/job/Reston/Buyer_R12345-1"
    (posting,) = parse("workday", json.dumps(body), url, kind=DocumentKind.DETAIL).postings
    assert posting.external_id == "R12345"
    assert posting.url == (
        "https://wd3.myworkdaysite.com/recruiting/acme/Careers/job/Reston/Buyer_R12345-1"
    )


# ---------------------------------------------------------------- text


def test_invisible_characters_are_dropped_from_names() -> None:
    assert clean_space("\u200bBer\u200blin\u200e\ufeff") == "Berlin"
    assert clean_space("Port\u00adland") == "Portland"
    assert clean_space("می\u200cخواهم") == "می\u200cخواهم"  # a joiner that shapes Persian stays


def test_empty_location_segments_are_dropped() -> None:
    assert clean_place("Szczecin, , Poland") == "Szczecin, Poland"
    assert clean_place(", ,") is None


def test_jsonld_salary_is_readable_and_structured() -> None:
    node = {
        "@type": "JobPosting",
        "title": "X",
        "description": "<p>x</p>",
        "baseSalary": {
            "@type": "MonetaryAmount",
            "currency": "EUR",
            "value": {"minValue": 52000, "maxValue": 64000.5, "unitText": "YEAR"},
        },
    }
    body = f"<script type='application/ld+json'>{json.dumps(node)}</script>"
    salary = parse("jsonld", body, PAGE, kind=DocumentKind.DETAIL).postings[0].salary
    assert salary.raw == "52,000–64,000.5 EUR per year"
    assert (salary.min, salary.max, salary.currency, salary.period) == (
        52000,
        64000.5,
        "EUR",
        "year",
    )


def test_implausible_salary_is_flagged_not_changed() -> None:
    salary = parse_salary_text("75–95 USD a year")
    assert (salary.min, salary.max, salary.period) == (75, 95, "year")
    assert implausible_salary(salary)
    assert implausible_salary(parse_salary_text("75,000–95,000 USD a year")) is None
    assert implausible_salary(parse_salary_text("25 - 30 triệu /tháng")) is None
    assert implausible_salary(parse_salary_text("150 USD per hour")) is None
    job = {
        "id": 1,
        "title": "X",
        "absolute_url": "https://job-boards.greenhouse.io/x/jobs/1",
        "location": {"name": "Austin"},
        "content": "&lt;p&gt;x&lt;/p&gt;&lt;div class=&quot;content-pay-transparency&quot;&gt;"
        "&lt;div class=&quot;pay-range&quot;&gt;75 - 95 USD per year&lt;/div&gt;&lt;/div&gt;",
    }
    outcome = parse("greenhouse", json.dumps({"jobs": [job]}))
    assert outcome.quality is Quality.PARTIAL
    assert [i.code for i in outcome.issues] == ["implausible_salary"]


# ---------------------------------------------------------------- Workable v3


def test_workable_v3_pages_by_token_and_builds_urls() -> None:
    row = {"shortcode": "AB12CD34EF", "title": "X", "workplace": "remote", "department": ["A", "B"]}
    url = "https://apply.workable.com/api/v3/accounts/acme/jobs"
    body = json.dumps({"total": 11, "results": [row], "nextPage": "tok2"})
    outcome = parse("workable", body, url)
    (posting,) = outcome.postings
    assert posting.url == "https://apply.workable.com/acme/j/AB12CD34EF/"
    assert posting.detail_url == "https://apply.workable.com/api/v2/accounts/acme/jobs/AB12CD34EF"
    assert (posting.remote, posting.department) == ("yes", "A / B")
    assert outcome.total == 11
    assert outcome.paging["next_token"] == "tok2"
    last = parse("workable", json.dumps({"total": 11, "results": [row]}), url)
    assert last.paging["next_token"] is None


def test_workable_v3_shape_is_recognised_without_its_url() -> None:
    row = {"shortcode": "AB12CD34EF", "title": "X"}
    outcome = parse("workable", json.dumps({"total": 1, "results": [row]}), "https://x.io/feed")
    # Read as v3 (not "unexpected shape"); without the account's URL no link can be built.
    assert [i.code for i in outcome.issues] == ["missing_url"]
    assert outcome.total == 1


def test_real_workable_widget_still_parses(real_dir: Path) -> None:
    body = read_real(real_dir / "workable" / "workable-zaelab-widget-api-details-trimmed.json")
    outcome = parse("workable", body, "https://apply.workable.com/api/v1/widget/accounts/zaelab")
    assert len(outcome.postings) == 1
    assert doc(body).body == body


def test_a_listing_that_names_its_board_says_so_and_one_item_does_not(real_dir: Path) -> None:
    # The Workable widget's top-level name is the account's: the board's owner. The
    # parse phase records it on the board (crawl.boards, company_source = board).
    body = read_real(real_dir / "workable" / "workable-zaelab-widget-api-details-trimmed.json")
    outcome = parse("workable", body, "https://apply.workable.com/api/v1/widget/accounts/zaelab")
    assert outcome.board_company == "Zaelab"
    row = {"shortcode": "AB12CD34EF", "title": "X", "url": "https://x.io/j/AB12CD34EF"}
    unnamed = parse(
        "workable", json.dumps({"jobs": [row]}), "https://x.io/api/v1/widget/accounts/x"
    )
    assert unnamed.board_company is None
    # Platforms whose items name their company carry no board name.
    job = {"id": 1, "title": "X", "absolute_url": "https://x.io/jobs/1", "company_name": "Acme"}
    assert parse("greenhouse", json.dumps({"jobs": [job]})).board_company is None


@pytest.mark.parametrize("platform", ["greenhouse", "jsonld"])
def test_an_entity_code_is_never_a_company_on_any_platform(platform: str) -> None:
    label = "US01 - Harbor Holdings_United States"
    if platform == "greenhouse":
        job = {"id": 1, "title": "X", "absolute_url": "https://x.io/jobs/1", "company_name": label}
        (posting,) = parse("greenhouse", json.dumps({"jobs": [job]})).postings
    else:
        node = {"@type": "JobPosting", "title": "X", "description": "<p>x</p>"}
        node["hiringOrganization"] = {"@type": "Organization", "name": label}
        body = f"<script type='application/ld+json'>{json.dumps(node)}</script>"
        (posting,) = parse("jsonld", body, PAGE, kind=DocumentKind.DETAIL).postings
    assert (posting.company, posting.legal_entity) == (None, label)


@pytest.mark.parametrize("value", [{"date": "2026-01-01"}, ["2026-01-01"], True])
def test_a_posted_date_of_another_type_is_unknown_not_an_error(value: object) -> None:
    from parsers.text import parse_posted

    assert parse_posted(value) == (None, "unknown")  # type: ignore[arg-type]
    job = {"id": "a", "text": "X", "hostedUrl": "https://jobs.lever.co/x/a", "createdAt": value}
    (posting,) = parse("lever", json.dumps([job])).postings
    assert posting.posted_precision == "unknown"
