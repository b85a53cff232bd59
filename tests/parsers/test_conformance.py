"""Conformance against real captured responses (../shared/fixtures/real, see its
PROVENANCE.md). Read from there, never copied in; skipped with a reason when absent.

Every file of a supported platform parses without an exception; the number of
postings equals the number of items in the payload after the documented dedup
(Workable repeats a job per country, the Personio capture repeats a position);
ids, titles and URLs are non-empty; block pages are blocked; closed and
not-found pages say so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from parsers.registry import REGISTRY
from parsers.types import DocumentKind, PageSignal, ParseOutcome, Quality
from pipeline.platform_names import ATS_PLATFORMS
from tests.parsers.conftest import FETCHED_AT, doc, read_real, shipped_site_parser

pytestmark = pytest.mark.real_fixtures

# Every ATS platform with real captures in the held-out set: none are there for
# BambooHR, nor for the platforms from pinpoint on (their golden cases, sandbox tests
# and the committed captures of test_real_public.py stand in; see docs/parsers.md for
# where their format facts come from).
WITHOUT_CAPTURES = frozenset(
    {
        "bamboohr",
        "pinpoint",
        "breezy",
        "rippling",
        "oracle",
        "successfactors",
        "jazzhr",
        "jobvite",
        "icims",
    }
)
ATS_FOLDERS = tuple(p for p in ATS_PLATFORMS if p not in WITHOUT_CAPTURES)

# Where each capture was fetched from (PROVENANCE.md): parsers build URLs from it.
URLS = {
    "workday-cxs-job-detail": "https://nvidia.wd5.myworkdayjobs.com/wday/cxs/nvidia/NVIDIAExternalCareerSite/job/US-CA-Santa-Clara/DFT-Engineer---New-College-Grad_JR2016865",
    "workday-cxs-salesforce": "https://salesforce.wd12.myworkdayjobs.com/wday/cxs/salesforce/External_Career_Site/jobs",
    "workday": "https://nvidia.wd5.myworkdayjobs.com/wday/cxs/nvidia/NVIDIAExternalCareerSite/jobs",
    "smartrecruiters-knight": "https://api.smartrecruiters.com/v1/companies/knight/postings",
    "smartrecruiters-servicenow": "https://api.smartrecruiters.com/v1/companies/ServiceNow/postings/744000154532199",
    "smartrecruiters": "https://api.smartrecruiters.com/v1/companies/Ubisoft2/postings?limit=2",
    "greenhouse-job-boards-anthropic": "https://job-boards.greenhouse.io/anthropic/jobs/5111783008",
    "greenhouse-job-boards-affirm": "https://job-boards.greenhouse.io/affirm/jobs/7728589003?gh_src=3b5f7ab93us",
    "greenhouse": "https://boards-api.greenhouse.io/v1/boards/x/jobs?content=true",
    "lever-apply-page": "https://jobs.lever.co/zoox/3bc964e4-41e5-47e7-b704-c6284d613593/apply",
    "lever": "https://api.lever.co/v0/postings/x?mode=json",
    "ashby": "https://api.ashbyhq.com/posting-api/job-board/x?includeCompensation=true",
    "workable": "https://apply.workable.com/api/v1/widget/accounts/zaelab?details=true",
    "recruitee": "https://channable.recruitee.com/api/offers/",
    "teamtailor": "https://career.teamtailor.com/jobs.json",
    "personio": "https://acme.jobs.personio.de/xml?language=en",
}


def url_for(path: Path) -> str:
    return next(url for prefix, url in URLS.items() if path.name.startswith(prefix))


def files(real_dir: Path, folder: str) -> list[Path]:
    return sorted(p for p in (real_dir / folder).iterdir() if p.is_file())


def payload_items(platform: str, path: Path) -> int:
    """How many postings the payload holds, after the documented dedup."""
    body = read_real(path)
    if path.suffix == ".html":
        return 1
    if platform == "personio":
        return len(set(re.findall(rb"<position>\s*<id>(\d+)</id>", body)))
    data = json.loads(body)
    lists = {
        "greenhouse": "jobs",
        "ashby": "jobs",
        "smartrecruiters": "content",
        "workday": "jobPostings",
        "recruitee": "offers",
        "teamtailor": "items",
    }
    if platform == "lever":
        return len(data) if isinstance(data, list) else 1
    if platform == "workable":
        return len({job["shortcode"] for job in data["jobs"]})
    key = lists[platform]
    return len(data[key]) if isinstance(data.get(key), list) else 1


def run(platform: str, path: Path) -> ParseOutcome:
    kind = DocumentKind.DETAIL if path.suffix == ".html" else DocumentKind.LISTING
    return REGISTRY.get(platform).parse(doc(read_real(path), url_for(path), kind))


@pytest.mark.parametrize("platform", ATS_FOLDERS)
def test_every_capture_parses_to_its_items(real_dir: Path, platform: str) -> None:
    for path in files(real_dir, platform):
        outcome = run(platform, path)
        assert outcome.quality is not Quality.REJECTED, (path.name, outcome.issues)
        assert len(outcome.postings) == payload_items(platform, path), path.name
        for posting in outcome.postings:
            assert posting.external_id.strip(), path.name
            assert posting.title.strip(), path.name
            assert urlsplit(posting.url).scheme in ("http", "https"), (path.name, posting.url)


@pytest.mark.parametrize("platform", [*ATS_PLATFORMS, "jsonld"])
def test_block_pages_are_blocked_for_every_parser(real_dir: Path, platform: str) -> None:
    for path in files(real_dir, "block-pages"):
        for kind in DocumentKind:
            outcome = REGISTRY.get(platform).parse(
                doc(read_real(path), "https://example.com/x", kind)
            )
            assert outcome.quality is Quality.REJECTED, path.name
            assert outcome.signal is PageSignal.BLOCKED, (platform, path.name, outcome.issues)


def test_block_pages_are_blocked_for_configured_sites(real_dir: Path) -> None:
    parser = shipped_site_parser("topcv")
    for path in files(real_dir, "block-pages"):
        for kind in DocumentKind:
            outcome = parser.parse(doc(read_real(path), "https://www.topcv.vn/x", kind))
            assert outcome.signal is PageSignal.BLOCKED, path.name


@pytest.mark.parametrize(
    "name",
    [
        "greenhouse-api-job-not-found-400-2013-vcr.json",
        "greenhouse-api-board-not-found-400-2013-vcr.json",
    ],
)
def test_greenhouse_api_errors_say_not_found(real_dir: Path, name: str) -> None:
    body = read_real(real_dir / "closed-pages" / name)
    outcome = REGISTRY.get("greenhouse").parse(
        doc(body, "https://boards-api.greenhouse.io/v1/boards/x/jobs/123", status=400)
    )
    assert outcome.quality is Quality.REJECTED
    assert outcome.signal is PageSignal.NOT_FOUND
    assert outcome.gone
    assert "Could not find" in outcome.issues[0].message


def test_itviec_404_page_is_not_found(real_dir: Path) -> None:
    body = read_real(
        real_dir / "closed-pages" / "itviec-404-oops-this-page-has-found-a-better-job.html"
    )
    url = "https://itviec.com/it-jobs/gone-1234"
    for outcome in (
        REGISTRY.get("jsonld").parse(doc(body, url, DocumentKind.DETAIL, status=404)),
        shipped_site_parser("itviec").parse(doc(body, url, DocumentKind.DETAIL, status=404)),
        # Even without the status (a site answering 200), the page says what it is.
        shipped_site_parser("itviec").parse(doc(body, url, DocumentKind.DETAIL, status=200)),
    ):
        assert outcome.quality is Quality.REJECTED
        assert outcome.signal is PageSignal.NOT_FOUND


# ---------------------------------------------------------------- JSON-LD pages


def test_every_jsonld_page_parses_to_one_posting(real_dir: Path) -> None:
    for path in files(real_dir, "jsonld"):
        outcome = REGISTRY.get("jsonld").parse(
            doc(read_real(path), f"https://example.com/{path.stem}", DocumentKind.DETAIL)
        )
        assert outcome.quality is not Quality.REJECTED, (path.name, outcome.issues)
        assert len(outcome.postings) == 1, path.name
        posting = outcome.postings[0]
        assert posting.external_id, path.name
        assert posting.title, path.name
        assert posting.url, path.name
        assert posting.description_text, path.name
        assert "&lt;" not in posting.description_text, path.name


def test_jsonld_quirks(real_dir: Path) -> None:
    def one(name: str) -> object:
        body = read_real(real_dir / "jsonld" / name)
        return (
            REGISTRY.get("jsonld")
            .parse(doc(body, "https://example.com/page", DocumentKind.DETAIL))
            .postings[0]
        )

    builtin = one("builtin-sf-job-page-superhuman-jsonld-graph-entity-encoded-type.html")
    assert builtin.external_id == "9383286"  # in @graph, under type="application/ld&#x2B;json"
    assert (builtin.salary.min, builtin.salary.max, builtin.salary.period) == (
        192000,
        264000,
        "year",
    )
    linkedin = one("linkedin-guest-job-view-rai-italy-jsonld-escaped-description.html")
    assert linkedin.description_html.startswith("<p>")  # escaped once more, unescaped once
    assert linkedin.external_id != "Rai - Radiotelevisione Italiana"  # a name is not an id
    assert linkedin.posted_precision == "exact"
    autodesk = one("workday-autodesk-job-page-ssr-with-jsonld.html")
    assert autodesk.external_id == "24WD81528"
    assert autodesk.offices[0].city == "AMER - Canada - Quebec - Montreal - 10 Rue Duke"
    ashby = one("ashby-job-page-superhuman-tpm-growth-jsonld.html")
    assert ashby.remote == "yes"  # jobLocationType TELECOMMUTE
    assert ashby.posted_precision == "day"


# ---------------------------------------------------------------- platform quirks


def _outcome(real_dir: Path, folder: str, name: str, **kw: object) -> ParseOutcome:
    path = real_dir / folder / name
    kind = DocumentKind.DETAIL if path.suffix == ".html" else DocumentKind.LISTING
    return REGISTRY.get(folder).parse(doc(read_real(path), url_for(path), kind, **kw))  # type: ignore[arg-type]


def test_greenhouse_quirks(real_dir: Path) -> None:
    eu = _outcome(
        real_dir, "greenhouse", "greenhouse-eu-imc-jobs-content-true-3jobs-pay-transparency.json"
    )
    assert all(urlsplit(p.url).netloc == "job-boards.eu.greenhouse.io" for p in eu.postings)
    pay = eu.posting("4913612101").salary
    assert (pay.min, pay.max, pay.currency) == (65000, 85000, "USD")
    assert eu.posting("4940448101").job_type == "new_grad"  # "Campus Programme"
    single = _outcome(
        real_dir, "greenhouse", "greenhouse-single-job-vercel-6136160004-content-trimmed.json"
    )
    assert single.postings[0].remote == "hybrid"  # "Hybrid - London"
    amplitude = _outcome(
        real_dir, "greenhouse", "greenhouse-amplitude-jobs-content-true-trimmed-2jobs.json"
    )
    assert amplitude.total == 37  # meta.total of the untrimmed board: the count is the board's own
    assert amplitude.postings[0].employment_type == "Regular"
    assert "<p>" in (
        amplitude.postings[0].description_html or ""
    )  # entity-escaped content unescaped


def test_greenhouse_hosted_page_from_remix_state(real_dir: Path) -> None:
    outcome = _outcome(
        real_dir, "greenhouse", "greenhouse-job-boards-anthropic-job-page-remix.html"
    )
    posting = outcome.postings[0]
    assert posting.external_id == "5111783008"
    assert posting.title == "Technical Program Manager, Infrastructure"
    assert posting.location_text == "San Francisco, CA | New York City, NY | Seattle, WA"
    assert (
        posting.salary.min,
        posting.salary.max,
        posting.salary.currency,
        posting.salary.period,
    ) == (
        290000,
        365000,
        "USD",
        "year",
    )
    affirm = _outcome(
        real_dir, "greenhouse", "greenhouse-job-boards-affirm-job-page-remix-gh_src.html"
    )
    assert affirm.postings[0].external_id == "7728589003"
    assert affirm.postings[0].remote == "yes"  # "Remote US"


def test_lever_quirks(real_dir: Path) -> None:
    spotify = _outcome(
        real_dir,
        "lever",
        "lever-spotify-postings-hybrid-allLocations-hochiminh-trimmed-strings.json",
    )
    first = spotify.postings[0]
    assert [o.text for o in first.offices] == ["London", "Stockholm"]
    assert first.remote == "hybrid"
    assert first.posted_precision == "exact"  # epoch milliseconds
    page = _outcome(real_dir, "lever", "lever-apply-page-zoox.html")
    posting = page.postings[0]
    assert (posting.company, posting.location_text, posting.remote) == (
        "Zoox",
        "Foster City, CA",
        "hybrid",
    )
    assert posting.external_id == "3bc964e4-41e5-47e7-b704-c6284d613593"


def test_ashby_quirks(real_dir: Path) -> None:
    reedsy = _outcome(real_dir, "ashby", "ashby-reedsy-board-with-compensation.json")
    first = reedsy.postings[0]
    assert (first.salary.min, first.salary.max, first.salary.period) == (25000, 45000, "year")
    assert len(first.offices) > 1  # secondaryLocations
    empty = _outcome(real_dir, "ashby", "ashby-superhuman-board-empty.json")
    assert empty.quality is Quality.ACCEPTED
    assert empty.postings == ()
    newer = _outcome(real_dir, "ashby", "ashby-highlightta-board-workplacetype-trimmed-2.json")
    assert [p.remote for p in newer.postings] == ["yes", "hybrid"]  # workplaceType wins


def test_smartrecruiters_quirks(real_dir: Path) -> None:
    ubisoft = _outcome(
        real_dir, "smartrecruiters", "smartrecruiters-ubisoft-postings-list-limit2.json"
    )
    assert ubisoft.total == 310
    assert ubisoft.next_page_url
    assert "offset=2" in ubisoft.next_page_url
    assert ubisoft.posting("744000151872065").job_type == "intern"  # typeOfEmployment: intern
    assert all(p.detail_url for p in ubisoft.postings)
    detail = _outcome(
        real_dir,
        "smartrecruiters",
        "smartrecruiters-servicenow-posting-detail-jobad-sections-trimmed.json",
    )
    assert "Company Description" in (detail.postings[0].description_text or "")


def test_workday_quirks(real_dir: Path) -> None:
    page = _outcome(
        real_dir, "workday", "workday-cxs-jobs-list-vietnam-hanoi-2-locations-trimmed.json"
    )
    assert page.total is None  # 2,000 is Workday's ceiling, not a count
    first, second = page.postings
    assert (first.external_id, first.more_offices, first.offices) == ("JR2021061", 2, ())
    assert first.posted_precision == "unknown"  # "Posted 30+ Days Ago"
    assert second.posted_at.date().isoformat() == "2026-09-27"  # "Posted 4 Days Ago"
    assert first.detail_url.endswith(
        "/wday/cxs/nvidia/NVIDIAExternalCareerSite/job/Vietnam-Hanoi/Director--Engineering---Software-Engineering_JR2021061"
    )
    salesforce = _outcome(real_dir, "workday", "workday-cxs-salesforce-jobs-trimmed-2.json")
    assert salesforce.total == 2
    assert salesforce.postings[0].posted_at.date() == (FETCHED_AT.date().replace(day=30, month=9))
    detail = _outcome(real_dir, "workday", "workday-cxs-job-detail-nvidia-trimmed.json")
    posting = detail.postings[0]
    assert (posting.external_id, posting.job_type, posting.posted_precision) == (
        "JR2016865",
        "new_grad",
        "day",
    )
    assert posting.offices[0].country == "US"


def test_workable_repeats_are_one_posting(real_dir: Path) -> None:
    outcome = _outcome(real_dir, "workable", "workable-zaelab-widget-api-details-trimmed.json")
    (posting,) = outcome.postings
    assert [o.country for o in posting.offices] == ["Spain", "Portugal"]
    assert posting.company == "Zaelab"
    assert posting.remote == "yes"
    assert len(posting.payload["_repeats"]) == 1


def test_recruitee_quirks(real_dir: Path) -> None:
    outcome = _outcome(
        real_dir,
        "recruitee",
        "recruitee-channable-offers-salary-open-questions-trimmed-strings.json",
    )
    first = outcome.postings[0]
    assert (first.salary.min, first.salary.max, first.salary.period) == (3750, 5250, "month")
    assert first.posted_precision == "exact"  # "2026-09-18 13:27:28 UTC"
    assert first.url.startswith(
        "https://jobs.channable.com/"
    )  # careers_url on the company's domain
    assert first.remote == "hybrid"


def test_teamtailor_and_personio(real_dir: Path) -> None:
    feed = _outcome(real_dir, "teamtailor", "teamtailor-career-jobs-json-feed-trimmed.json")
    assert [p.external_id for p in feed.postings] == ["7167985", "7069633"]
    assert [o.city for o in feed.postings[1].offices] == ["Stockholm", "København"]
    xml = _outcome(real_dir, "personio", "personio-xml-feed-sanitized-trimmed.xml")
    (position,) = xml.postings  # the capture repeats one position
    assert [o.text for o in position.offices] == ["Munich", "Berlin"]
    assert position.employment_type == "permanent, full-time"
    assert position.url == "https://acme.jobs.personio.de/job/1834171"


# ---------------------------------------------------------------- HTML job sites


def test_itviec_cards_with_shipped_selectors(real_dir: Path) -> None:
    body = read_real(real_dir / "html-sites" / "itviec-company-mb-bank-job-cards.html")
    outcome = shipped_site_parser("itviec").parse(doc(body, "https://itviec.com/companies/mb-bank"))
    assert outcome.quality is Quality.ACCEPTED
    assert len(outcome.postings) == 34
    first = outcome.postings[0]
    assert (
        first.url == "https://itviec.com/it-jobs/senior-it-risks-management-specialist-mb-bank-3404"
    )
    assert (first.external_id, first.company, first.salary) == ("3404", "MB Bank", None)
    assert first.offices[0].region == "Hà Nội"
    assert (first.posted_at, first.posted_precision) == (
        FETCHED_AT.replace(hour=0),
        "day",
    )  # "Posted 7 hours ago"
    assert {p.remote for p in outcome.postings} == {"unknown"}  # "At office" is not a "no"


def test_topcv_cards_with_shipped_selectors(real_dir: Path) -> None:
    body = read_real(real_dir / "html-sites" / "topcv-search-results-ke-toan-page112.html.gz")
    url = "https://www.topcv.vn/tim-viec-lam-ke-toan-cr392cb393?page=112"
    outcome = shipped_site_parser("topcv").parse(doc(body, url))
    assert len(outcome.postings) == 43
    assert outcome.total == 5593  # "Tuyển dụng 5.593 việc làm Kế toán"
    assert outcome.next_page_url is None  # the last page: no rel=next link
    first = outcome.postings[0]
    assert first.url == "https://www.topcv.vn/viec-lam/nhan-vien-ke-toan/1253999.html"
    assert (first.salary.min, first.salary.max, first.salary.currency) == (12e6, 18e6, "VND")
    negotiable = [p.salary for p in outcome.postings if p.salary and p.salary.min is None]
    assert negotiable
    assert all("th" in s.raw.lower() for s in negotiable)
    two = next(p for p in outcome.postings if p.location_text == "Hà Nội, Hồ Chí Minh")
    assert [o.region for o in two.offices] == ["Hà Nội", "Hồ Chí Minh"]


@pytest.mark.parametrize(
    "name",
    [
        "gem-job-board-lumalabs-spa-shell.html",
        "yc-workatastartup-job-detail-vectorshift.html",
        "workday-autodesk-search-results-rendered-dom.html",
    ],
)
def test_pages_without_jsonld_are_rejected_with_a_reason(real_dir: Path, name: str) -> None:
    body = read_real(real_dir / "html-sites" / name)
    outcome = REGISTRY.get("jsonld").parse(
        doc(body, "https://example.com/job", DocumentKind.DETAIL)
    )
    assert outcome.quality is Quality.REJECTED
    assert outcome.issues[-1].code == "no_jobposting"


@pytest.mark.parametrize(
    ("platform", "name", "url", "external_id"),
    [
        (
            "ashby",
            "ashby-job-page-superhuman-tpm-growth-jsonld.html",
            "https://jobs.ashbyhq.com/superhuman/700c8d97-6ee3-4cb3-afff-b1e2fa157b1c",
            "700c8d97-6ee3-4cb3-afff-b1e2fa157b1c",
        ),
        (
            "ashby",
            "ashby-job-page-echotwin-jsonld.html",
            "https://jobs.ashbyhq.com/echotwin/93888d8f-d32c-4213-8768-93b2bc63fc03/application",
            "93888d8f-d32c-4213-8768-93b2bc63fc03",
        ),
        (
            "workday",
            "workday-autodesk-job-page-ssr-with-jsonld.html",
            "https://autodesk.wd1.myworkdayjobs.com/Ext/job/Montreal-QC-CAN/Senior-Industry-Strategy-Manager_24WD81528",
            "24WD81528",
        ),
    ],
)
def test_hosted_pages_parse_under_their_platform(
    real_dir: Path, platform: str, name: str, url: str, external_id: str
) -> None:
    body = read_real(real_dir / "jsonld" / name)
    outcome = REGISTRY.get(platform).parse(doc(body, url, DocumentKind.DETAIL))
    assert outcome.signal is PageSignal.NORMAL
    (posting,) = outcome.postings
    assert posting.external_id == external_id
    assert posting.description_text
