"""`jobharbor boards import`: recognize ATS board URLs (job, apply and API URLs name their
board on every platform), validate each with one request through the project's fetcher
(SSRF guard included), register the valid ones."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pipeline.app import App
from pipeline.cli import main
from pipeline.crawl.boards_import import BoardRef, import_boards, recognize, urls_in
from pipeline.crawl.catalog import sync_catalog
from pipeline.phases.discover import discover
from sandbox.server import RunningSandbox
from tests.apps import set_fault
from tests.conftest import make_settings

if TYPE_CHECKING:
    from tests.conftest import TestDatabases


@pytest.mark.parametrize(
    ("url", "board"),
    [
        ("https://boards.greenhouse.io/acme", BoardRef("greenhouse", "acme")),
        (
            "https://job-boards.greenhouse.io/acme/jobs/4001?gh_src=x",
            BoardRef("greenhouse", "acme"),
        ),
        ("https://job-boards.eu.greenhouse.io/imc/jobs/4940448101", BoardRef("greenhouse", "imc")),
        ("https://boards.greenhouse.io/embed/job_board?for=acme", BoardRef("greenhouse", "acme")),
        ("https://boards-api.greenhouse.io/v1/boards/acme/jobs", BoardRef("greenhouse", "acme")),
        (
            "jobs.lever.co/spotify/2193db3f-77c5-43b8-b030-8f92c9882bf1/apply",
            BoardRef("lever", "spotify"),
        ),
        ("https://jobs.eu.lever.co/mobileye", BoardRef("lever", "mobileye", "eu")),
        ("https://jobs.ashbyhq.com/reedsy/9b29b6b9", BoardRef("ashby", "reedsy")),
        (
            "https://nvidia.wd5.myworkdayjobs.com/en-US/NVIDIAExternalCareerSite/job/US-CA/X_JR1",
            BoardRef("workday", "nvidia.wd5/NVIDIAExternalCareerSite"),
        ),
        (
            "https://salesforce.wd12.myworkdayjobs.com/External_Career_Site",
            BoardRef("workday", "salesforce.wd12/External_Career_Site"),
        ),
        (
            "https://nvidia.wd5.myworkdayjobs.com/wday/cxs/nvidia/Site/jobs",
            BoardRef("workday", "nvidia.wd5/Site"),
        ),
        (
            "https://wd3.myworkdaysite.com/recruiting/acme/Careers",
            BoardRef("workday", "wd3.myworkdaysite.com/recruiting/acme/Careers"),
        ),
        (
            "https://wd3.myworkdaysite.com/en-US/recruiting/acme/Careers/job/Reston/Mechanic_R-3",
            BoardRef("workday", "wd3.myworkdaysite.com/recruiting/acme/Careers"),
        ),
        (
            "https://wd103.myworkdaysite.com/wday/cxs/acme/Careers/jobs",
            BoardRef("workday", "wd103.myworkdaysite.com/recruiting/acme/Careers"),
        ),
        ("https://channable.recruitee.com/o/customer-success", BoardRef("recruitee", "channable")),
        ("https://apply.workable.com/zaelab/j/DD136DD7E7", BoardRef("workable", "zaelab")),
        (
            "https://apply.workable.com/api/v1/widget/accounts/zaelab",
            BoardRef("workable", "zaelab"),
        ),
        ("https://acme.bamboohr.com/careers/12", BoardRef("bamboohr", "acme")),
        ("https://acme.jobs.personio.de/job/1834171", BoardRef("personio", "acme")),
        ("https://acme.teamtailor.com/jobs/7167985-x", BoardRef("teamtailor", "acme")),
        (
            "https://jobs.smartrecruiters.com/Ubisoft2/744000151912444",
            BoardRef("smartrecruiters", "Ubisoft2"),
        ),
        (
            "https://api.smartrecruiters.com/v1/companies/Ubisoft2/postings",
            BoardRef("smartrecruiters", "Ubisoft2"),
        ),
    ],
)
def test_board_urls_are_recognized(url: str, board: BoardRef) -> None:
    assert recognize(url) == board


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/careers",
        "https://www.bamboohr.com/pricing",
        "https://apply.workable.com/j/DD136DD7E7",  # a job without its account
        "https://boards.greenhouse.io/",
        "https://nvidia.wd5.myworkdayjobs.com/",
        "https://wd3.myworkdaysite.com/recruiting/acme",  # a tenant without its site
        "https://wd3.myworkdaysite.com/en-US/acme/Careers",  # not a recruiting path
        "https://wd3.myworkdaysite.com.evil.example/recruiting/acme/Careers",
        "https://acme.wd3.myworkdaysite.com/Careers",  # no such host: tenants are in the path
        "https://greenhouse.io.evil.example/acme",
    ],
)
def test_other_urls_are_not_boards(url: str) -> None:
    assert recognize(url) is None


def test_urls_are_found_in_index_lines() -> None:
    lines = [
        'io,lever,jobs)/acme 20240101 {"url": "https://jobs.lever.co/acme/x", "status": "200"}',
        "https://boards.greenhouse.io/a, https://boards.greenhouse.io/b",
    ]
    assert list(urls_in(lines)) == [
        "https://jobs.lever.co/acme/x",
        "https://boards.greenhouse.io/a",
        "https://boards.greenhouse.io/b",
    ]


IMPORT = """\
https://boards.greenhouse.io/new-greenhouse-co
https://job-boards.greenhouse.io/new-greenhouse-co/jobs/123
https://job-boards.eu.greenhouse.io/gone-eu-co
https://boards.greenhouse.io/harbor-labs
io,lever,jobs)/fresh-lever 20240101 {"url": "https://jobs.lever.co/fresh-lever/0f1e2d3c-0000-4000-a000-000000000000"}
https://jobs.eu.lever.co/eu-co
https://acme.wd5.myworkdayjobs.com/en-US/Careers/job/Remote/Engineer_JR1
https://example.com/careers
https://apply.workable.com/new-account/j/ABC123
https://jobs.ashbyhq.com/new-ashby
https://newco.bamboohr.com/careers/12
https://newco.recruitee.com/o/some-offer
https://newco.jobs.personio.de/job/1
https://newco.teamtailor.com/jobs/1-x
https://jobs.smartrecruiters.com/NewCo/744000
"""


def imported(app: App) -> list[tuple[str, str, bool]]:
    with app.db.connect() as conn:
        rows = conn.execute(
            "SELECT source_id, board_key, enabled FROM crawl.boards WHERE origin = 'import' ORDER BY 1, 2"
        ).fetchall()
    return [(r["source_id"], r["board_key"], r["enabled"]) for r in rows]


def test_import_validates_and_registers(
    app: App, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text(IMPORT, encoding="utf-8")
    report = import_boards(app, urls)
    assert (report.urls, report.recognized, report.unrecognized) == (15, 14, 1)
    assert report.duplicates == 2  # a second URL of one board, and a board already configured
    assert sorted(url for url, _ in report.invalid) == [
        "https://job-boards.eu.greenhouse.io/gone-eu-co",
        "https://jobs.eu.lever.co/eu-co",
    ]
    reasons = dict(report.invalid)
    assert "HTTP 404" in reasons["https://job-boards.eu.greenhouse.io/gone-eu-co"]
    assert "no lever (EU instance" in reasons["https://jobs.eu.lever.co/eu-co"]
    assert (report.valid, report.registered) == (10, 10)
    assert ("workday", "acme.wd5/Careers", True) in imported(app)
    assert ("greenhouse", "new-greenhouse-co", True) in imported(app)

    sync_catalog(app)  # the catalog sync never disables imported boards
    assert all(enabled for _, _, enabled in imported(app))
    found = discover(app, "greenhouse", force=True)
    assert found.stats["boards"] == 6  # five configured plus the imported one

    again = import_boards(app, urls)  # idempotent: now every board is a duplicate
    assert (again.registered, again.duplicates) == (0, 12)


def test_dry_run_registers_nothing(app: App, tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("https://jobs.ashbyhq.com/dry-co\n", encoding="utf-8")
    report = import_boards(app, urls, dry_run=True)
    assert (report.valid, report.registered) == (1, 0)
    assert imported(app) == []


def test_the_ssrf_guard_stays_on(
    databases: TestDatabases, sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """The sandbox is on loopback: without allow_private_networks the check is refused."""
    app = App.create(settings=make_settings(databases, tmp_path, allow_private_networks=False))
    urls = tmp_path / "urls.txt"
    urls.write_text("https://boards.greenhouse.io/new-co\n", encoding="utf-8")
    report = import_boards(app, urls)
    assert report.valid == 0
    ((_, reason),) = report.invalid
    assert "refused to connect to a loopback address" in reason
    assert imported(app) == []


def test_the_cli_reports_counts(
    app: App, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text(
        "https://jobs.ashbyhq.com/cli-co\nhttps://job-boards.greenhouse.io/gone-x\n",
        encoding="utf-8",
    )
    monkeypatch.setattr("pipeline.cli._app", lambda args: app)
    assert main(["boards", "import", str(urls)]) == 0
    out = capsys.readouterr().out
    assert "2 URLs: 2 boards recognized, 0 duplicates, 1 valid (1 registered), 1 invalid" in out
    assert "invalid: https://job-boards.greenhouse.io/gone-x: HTTP 404" in out
    assert "registered: ashby cli-co: Posting API job board (includeCompensation=true) (" in out


def test_each_accepted_board_names_the_format_its_listing_is_read_in(
    app: App, tmp_path: Path
) -> None:
    """One Workable account URL, two formats: the source chosen decides which API the
    board is read with, and the report says which (and whether it was registered)."""
    urls = tmp_path / "urls.txt"
    urls.write_text("https://apply.workable.com/format-co/j/ABC123\n", encoding="utf-8")
    (v3,) = import_boards(app, urls, source="workable_v3", dry_run=True).accepted
    assert (v3.source, v3.token, v3.registered) == ("workable_v3", "format-co", False)
    assert v3.format == "careers-page API v3 (POST jobs, paged)"
    assert v3.listing_url.endswith("/workable/api/v3/accounts/format-co/jobs")
    (v1,) = import_boards(app, urls).accepted
    assert (v1.source, v1.registered) == ("workable", True)
    assert v1.format == "widget API v1 (details=true)"
    assert v1.listing_url.endswith("/api/v1/widget/accounts/format-co?details=true")
    assert v1.line().startswith("registered: workable format-co: widget API v1")


def test_every_platform_names_its_listing_format() -> None:
    """No adapter leaves the format blank: an import would report an empty name."""
    from pipeline.crawl.platforms import PLATFORMS

    blank = [name for name, platform in PLATFORMS.items() if not platform.format_name]
    assert blank == []


@pytest.mark.parametrize(
    ("url", "board"),
    [
        ("https://made-tech.pinpointhq.com/", BoardRef("pinpoint", "made-tech")),
        (
            "https://harnham.pinpointhq.com/en/postings/0b5f2d3c-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
            BoardRef("pinpoint", "harnham"),
        ),
        ("https://Made-Tech.pinpointhq.com/postings.json", BoardRef("pinpoint", "made-tech")),
        ("https://safe-global.breezy.hr/json", BoardRef("breezy", "safe-global")),
        (
            "https://careers-h.icims.com/jobs/5446/2027-summer-internship/job?in_iframe=1",
            BoardRef("icims", "careers-h"),
        ),
        ("https://careers-rambus.icims.com/jobs/search?ss=1", BoardRef("icims", "careers-rambus")),
        (
            "https://app.jobvite.com/CompanyJobs/Xml.aspx?c=qyy9VfwU&cf=e",
            BoardRef("jobvite", "qyy9VfwU"),
        ),
        (
            "https://firstadvantage.applytojob.com/apply/hWkx/Software",
            BoardRef("jazzhr", "firstadvantage"),
        ),
        ("https://app.jazz.co/feeds/export/jobs/Riverdale", BoardRef("jazzhr", "riverdale")),
        (
            "https://career5.successfactors.eu/career?company=1657261P&career_ns=job_listing_summary",
            BoardRef("successfactors", "career5.successfactors.eu/1657261P"),
        ),
        (
            "https://career17.sapsf.com/career?company=TTCPRODUCTION&career_ns=job_listing"
            "&career_job_req_id=12",
            BoardRef("successfactors", "career17.sapsf.com/TTCPRODUCTION"),
        ),
        (
            "https://eeho.fa.us2.oraclecloud.com/hcmUI/CandidateExperience/en/sites/CX_1/job/12345/",
            BoardRef("oracle", "eeho.fa.us2.oraclecloud.com/CX_1"),
        ),
        (
            "https://fa-eqid-saasfaprod1.fa.ocs.oraclecloud.com/hcmUI/CandidateExperience/en/sites/CX_1/requisitions",
            BoardRef("oracle", "fa-eqid-saasfaprod1.fa.ocs.oraclecloud.com/CX_1"),
        ),
        (
            "https://eofd.fa.us6.oraclecloud.com/hcmRestApi/resources/latest/recruitingCEJobRequisitions"
            "?onlyData=true&finder=findReqs;siteNumber=CX_1001,limit=25",
            BoardRef("oracle", "eofd.fa.us6.oraclecloud.com/CX_1001"),
        ),
        ("https://ats.rippling.com/mytra/jobs", BoardRef("rippling", "mytra")),
        (
            "https://ats.rippling.com/acme/jobs/2a8414fe-b145-4753-a4a9-d8f0f279aecc",
            BoardRef("rippling", "acme"),
        ),
        (
            "https://ats.rippling.com/api/v2/board/acme/jobs?page=0&pageSize=50",
            BoardRef("rippling", "acme"),
        ),
        (
            "https://api.rippling.com/platform/api/ats/v1/board/zrg-partners-careers/jobs",
            BoardRef("rippling", "zrg-partners-careers"),
        ),
        (
            "https://telespazio-be.breezy.hr/p/0cd4d6b2f8c0-systems-engineer/apply",
            BoardRef("breezy", "telespazio-be"),
        ),
    ],
)
def test_job_apply_and_api_urls_name_their_board(url: str, board: BoardRef) -> None:
    assert recognize(url) == board


@pytest.mark.parametrize(
    "url",
    [
        "https://www.pinpointhq.com/pricing",
        "https://pinpointhq.com/",
        "https://a.b.pinpointhq.com/",
        "https://breezy.hr/pricing",
        "https://app.breezy.hr/signin",
        "https://ats.rippling.com/",
        "https://www.oraclecloud.com/cloud",
        "https://www.icims.com/products/",
        "https://developer.icims.com/",
        "https://jobs.jobvite.com/",
        "https://career2.successfactors.eu/googlefeed.xml",  # a legacy host names no site
        "https://www.applytojob.com/",
        "https://app.jazz.co/login",
        "https://career2.successfactors.eu/career",
        "https://www.successfactors.com/career?company=x.evil",
        "https://eeho.fa.us2.oraclecloud.com/hcmUI/CandidateExperience/en/",
        "https://www.rippling.com/ats",
        "https://api.rippling.com/platform/api/employees",
    ],
)
def test_marketing_and_nested_hosts_are_not_boards(url: str) -> None:
    assert recognize(url) is None


@pytest.mark.parametrize(
    ("url", "board"),
    [
        # A career-site URL names the slug, not the companyEId: the career site is the board.
        ("https://jobs.jobvite.com/sitecore/job/oGm1zfwm", BoardRef("jobvite", "@sitecore")),
        ("https://jobs.jobvite.com/feedingamerica/search", BoardRef("jobvite", "@feedingamerica")),
        # A Career Site Builder site's RSS feed: the site's host is the board.
        (
            "https://jobs.quietbank.example/googlefeed.xml",
            BoardRef("successfactors", "jobs.quietbank.example"),
        ),
    ],
)
def test_career_site_urls_name_boards_read_from_their_career_site(
    url: str, board: BoardRef
) -> None:
    assert recognize(url) == board


def url_file(tmp_path: Path, *urls: str) -> Path:
    path = tmp_path / "urls.txt"
    path.write_text("".join(f"https://{url}\n" for url in urls), encoding="utf-8")
    return path


def test_a_board_whose_best_format_is_gone_is_registered_in_the_next_and_says_why(
    app: App, sandbox: RunningSandbox, tmp_path: Path
) -> None:
    set_fault(sandbox, "workable", "probe-co", status=404, path="/api/v1/")

    (board,) = import_boards(app, url_file(tmp_path, "apply.workable.com/probe-co")).accepted

    assert board.format == "careers-page API v3 (POST jobs, paged)"
    assert board.listing_url.endswith("/workable/api/v3/accounts/probe-co/jobs")
    assert board.why.startswith(
        "widget API v1 (details=true) did not answer with a listing (HTTP 404"
    )
    assert board.line().endswith(board.why)
    with app.db.connect() as conn:
        row = conn.execute(
            "SELECT format, url FROM crawl.boards WHERE board_key = 'probe-co'"
        ).fetchone()
    assert row == {"format": "careers_v3", "url": board.listing_url}
    asked = [r.path for r in sandbox.state.log if "probe-co" in r.path]
    assert len(asked) == 2, "the widget once, then v3 once"


def test_a_best_format_failing_for_now_is_reported_not_passed_over(
    app: App, sandbox: RunningSandbox, tmp_path: Path
) -> None:
    set_fault(sandbox, "workable", "flaky-co", status=503, path="/api/v1/")

    report = import_boards(app, url_file(tmp_path, "apply.workable.com/flaky-co"))

    assert report.accepted == []
    ((_url, reason),) = report.invalid
    assert "503" in reason
    assert "v3" not in reason
    assert not [r for r in sandbox.state.log if "/api/v3/accounts/flaky-co" in r.path]


def test_boards_named_by_their_career_sites_are_read_there(app: App, tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text(
        "https://jobs.jobvite.com/harborjobs/job/oAbc1234\n"
        "https://jobs.northwind.example/googlefeed.xml\n",
        encoding="utf-8",
    )

    report = import_boards(app, urls)

    formats = {(b.source, b.token): (b.format, b.registered) for b in report.accepted}
    assert formats == {
        ("jobvite", "@harborjobs"): (
            "career-site search page (jobs.jobvite.com/{slug}/search)",
            True,
        ),
        ("successfactors", "jobs.northwind.example"): (
            "Career Site Builder RSS feed (/googlefeed.xml)",
            True,
        ),
    }
    with app.db.connect() as conn:
        rows = conn.execute(
            "SELECT board_key, format FROM crawl.boards WHERE origin = 'import' ORDER BY 1"
        ).fetchall()
    assert [(r["board_key"], r["format"]) for r in rows] == [
        ("@harborjobs", "career_site"),
        ("jobs.northwind.example", "rss_feed"),
    ]


BOARD_URLS_OF_EVERY_KIND = """\
https://newco.pinpointhq.com/en/postings/0b5f2d3c-1a2b-4c3d-8e9f-0a1b2c3d4e5f
https://newco.breezy.hr/p/0cd4d6b2f8c0-engineer
https://missing-co.breezy.hr/
https://ats.rippling.com/newco/jobs
https://newco.fa.us2.oraclecloud.com/hcmUI/CandidateExperience/en/sites/CX_1/job/12345
https://career2.successfactors.eu/career?company=NewCo&career_ns=job_listing_summary
https://newco.applytojob.com/apply/AbCd123/engineer
https://app.jobvite.com/CompanyJobs/Xml.aspx?c=qNewCo12
https://careers-newco.icims.com/jobs/search?ss=1
"""


def test_boards_of_every_url_kind_are_validated_and_registered(app: App, tmp_path: Path) -> None:
    """One request per board through the sandbox; a board that answers 404 is invalid."""
    urls = tmp_path / "urls.txt"
    urls.write_text(BOARD_URLS_OF_EVERY_KIND, encoding="utf-8")
    report = import_boards(app, urls)
    assert (report.urls, report.recognized) == (9, 9)
    assert [url for url, _ in report.invalid] == ["https://missing-co.breezy.hr/"]
    assert (report.valid, report.registered) == (8, 8)
    with app.db.connect() as conn:
        rows = conn.execute(
            "SELECT source_id, board_key FROM crawl.boards WHERE origin = 'import' ORDER BY 1"
        ).fetchall()
    assert {(r["source_id"], r["board_key"]) for r in rows} == {
        ("pinpoint", "newco"),
        ("breezy", "newco"),
        ("rippling", "newco"),
        ("oracle", "newco.fa.us2.oraclecloud.com/CX_1"),
        ("successfactors", "career2.successfactors.eu/NewCo"),
        ("jazzhr", "newco"),
        ("jobvite", "qNewCo12"),
        ("icims", "careers-newco"),
    }


SHARED_HOST_BOARDS = """\
https://wd3.myworkdaysite.com/recruiting/anchorbay/Careers
https://wd3.myworkdaysite.com/en-US/recruiting/anchorbay/Careers
https://wd5.myworkdaysite.com/en-US/recruiting/quiet-bank/External
https://wd1.myworkdaysite.com/recruiting/north-wind/Jobs/job/Reston-VA/Buyer_R12345-1
"""


def test_shared_host_workday_boards_are_validated_on_their_host_and_registered(
    app: App, sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """A board URL, the same with a locale, and a posting's URL each name a board on a
    data center's shared host; each is checked with one listing request there."""
    urls = tmp_path / "urls.txt"
    urls.write_text(SHARED_HOST_BOARDS, encoding="utf-8")
    report = import_boards(app, urls)
    assert (report.urls, report.recognized, report.duplicates) == (4, 4, 1)
    assert report.invalid == []
    assert (report.valid, report.registered) == (3, 3)
    with app.db.connect() as conn:
        rows = conn.execute(
            """SELECT board_key, url, lane, company, company_source FROM crawl.boards
               WHERE origin = 'import' ORDER BY board_key"""
        ).fetchall()
    base = f"{sandbox.url}/workday"
    assert [tuple(r.values()) for r in rows] == [
        (
            "wd1.myworkdaysite.com/recruiting/north-wind/Jobs",
            f"{base}/wd1.myworkdaysite.com/wday/cxs/north-wind/Jobs/jobs",
            "workday:wd1",
            "North Wind",
            "derived",
        ),
        (
            "wd3.myworkdaysite.com/recruiting/anchorbay/Careers",
            f"{base}/wd3.myworkdaysite.com/wday/cxs/anchorbay/Careers/jobs",
            "workday:wd3",
            "Anchorbay",
            "derived",
        ),
        (
            "wd5.myworkdaysite.com/recruiting/quiet-bank/External",
            f"{base}/wd5.myworkdaysite.com/wday/cxs/quiet-bank/External/jobs",
            "workday:wd5",
            "Quiet Bank",
            "derived",
        ),
    ]
    asked = [e.path for e in sandbox.state.requests(platform="workday")]
    assert sorted(asked) == sorted(row["url"].removeprefix(sandbox.url) for row in rows)
