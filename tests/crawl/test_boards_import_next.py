"""`jobharbor boards import` recognises the board URLs of the platforms added in
issue 14 (job, apply and API URLs name their board), and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.app import App
from pipeline.crawl.boards_import import BoardRef, import_boards, recognize


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
def test_new_platform_board_urls_are_recognized(url: str, board: BoardRef) -> None:
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
        "https://jobs.jobvite.com/sitecore/job/oGm1zfwm",  # a slug, not the companyEId
        "https://www.applytojob.com/",
        "https://app.jazz.co/login",
        "https://career2.successfactors.eu/career",
        "https://www.successfactors.com/career?company=x.evil",
        "https://eeho.fa.us2.oraclecloud.com/hcmUI/CandidateExperience/en/",
        "https://www.rippling.com/ats",
        "https://api.rippling.com/platform/api/employees",
    ],
)
def test_new_platform_marketing_and_nested_hosts_are_not_boards(url: str) -> None:
    assert recognize(url) is None


NEW_PLATFORM_URLS = """\
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


def test_new_platform_boards_are_validated_and_registered(app: App, tmp_path: Path) -> None:
    """One request per board through the sandbox; a board that answers 404 is invalid."""
    urls = tmp_path / "urls.txt"
    urls.write_text(NEW_PLATFORM_URLS, encoding="utf-8")
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
