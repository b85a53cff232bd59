"""`jobharbor boards import`: recognize ATS board URLs, validate each with one request
through the project's fetcher (SSRF guard included), register the valid ones."""

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
