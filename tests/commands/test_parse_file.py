"""`jobharbor parse-file`: JSON lines on stdout, quality and issues on stderr, a clear
exit code; gzip, listings and single postings, configured HTML sites."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pipeline.cli import main
from tests.parsers.golden import GOLDEN

LEVER = GOLDEN / "lever" / "1"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict], str]:
    code = main(["parse-file", *args])
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines() if line.strip()]
    return code, lines, captured.err


def test_a_listing_prints_one_json_line_per_posting(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "--parser", "lever", str(LEVER / "listing" / "input.json"))
    assert code == 0
    expected = json.loads((LEVER / "listing" / "expected.json").read_text())
    assert [line["external_id"] for line in lines] == [
        p["external_id"] for p in expected["postings"]
    ]
    assert {
        "external_id",
        "url",
        "title",
        "offices",
        "posted_precision",
        "remote",
        "salary",
        "payload",
    } <= set(lines[0])
    assert lines[0]["payload"]["id"] == lines[0]["external_id"]  # the platform's own item
    assert "lever@1 (listing): accepted, 7 posting(s)" in err


def test_gzip_and_a_single_posting_detail(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "posting.bin"  # gzip is recognized by its bytes, not the name
    saved.write_bytes(gzip.compress((LEVER / "single-posting" / "input.json").read_bytes()))
    code, lines, err = run(capsys, "--parser", "lever@1", str(saved), "--no-payload")
    assert code == 0
    assert len(lines) == 1
    assert "payload" not in lines[0]
    assert "lever@1" in err


def test_a_configured_html_site_and_its_url(capsys: pytest.CaptureFixture[str]) -> None:
    case = GOLDEN / "html_site" / "3" / "itviec-listing"
    url = json.loads((case / "meta.json").read_text())["url"]
    code, lines, _ = run(
        capsys,
        "--parser",
        "itviec",
        str(case / "input.html"),
        "--url",
        url,
        "--fetched-at",
        "2026-02-01T12:00:00+00:00",
    )
    assert code == 0
    assert len(lines) == 5
    assert all(line["url"].startswith("https://sandbox.example/sites/itviec/") for line in lines)
    assert {line["posted_precision"] for line in lines} == {"day"}


def test_auto_kind_falls_back_to_a_detail_page(capsys: pytest.CaptureFixture[str]) -> None:
    case = GOLDEN / "html_site" / "3" / "itviec-detail-jsonld"
    url = json.loads((case / "meta.json").read_text())["url"]
    code, lines, err = run(capsys, "--parser", "itviec", str(case / "input.html"), "--url", url)
    assert code == 0
    assert len(lines) == 1
    assert "(detail): accepted" in err


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"", "empty_body"),
        (b'{"jobs": [', "invalid_json"),
        (b"<html><head><title>Just a moment...</title></head></html>", "blocked"),
        (b'{"ok": false, "error": "Document not found"}', "not_found"),
    ],
)
def test_rejected_input_exits_3_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, body: bytes, reason: str
) -> None:
    saved = tmp_path / "response"
    saved.write_bytes(body)
    code, lines, err = run(capsys, "--parser", "lever", str(saved))
    assert code == 3
    assert lines == []
    assert "rejected" in err
    assert reason in err


def test_a_broken_gzip_is_rejected(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    saved = tmp_path / "listing.json.gz"
    saved.write_bytes(gzip.compress(b'{"jobs": []}')[:12])
    code, _, err = run(capsys, "--parser", "ashby", str(saved))
    assert code == 3
    assert "does not decompress" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "--parser", "nosuch", str(tmp_path / "x"))
    assert code == 2
    assert "no parser named 'nosuch'" in err
    code, _, err = run(capsys, "--parser", "lever@9", str(LEVER / "listing" / "input.json"))
    assert code == 2
    assert "versions of 'lever': 1" in err
    code, _, err = run(capsys, "--parser", "lever", str(tmp_path / "missing.json"))
    assert code == 2
    assert "cannot read" in err


@pytest.mark.parametrize(
    ("parser", "case"),
    [
        ("bamboohr", "bamboohr/2/careers-list"),
        ("personio", "personio/2/xml-feed"),
        ("workday", "workday/3/search-first-page"),
    ],
)
def test_platforms_that_build_urls_say_they_need_the_fetch_url(
    capsys: pytest.CaptureFixture[str], parser: str, case: str
) -> None:
    (found,) = (GOLDEN / case).glob("input.*")
    code, lines, err = run(capsys, "--parser", parser, str(found))
    assert code == 3
    assert lines == []
    assert "pass --url URL (the listing's address) or --board TOKEN" in err


@pytest.mark.parametrize(
    ("parser", "case", "board", "url_start"),
    [
        ("bamboohr", "bamboohr/2/careers-list", "quiet-works", "https://quiet-works.bamboohr.com/careers/"),
        ("personio", "personio/2/xml-feed", "delta-systems", "https://delta-systems.jobs.personio.de/job/"),
        ("workday", "workday/3/search-first-page", "harbor.wd5/HarborCareers", "https://harbor.wd5.myworkdayjobs.com/HarborCareers/job/"),
    ],
)  # fmt: skip
def test_a_board_token_builds_the_fetch_url(
    capsys: pytest.CaptureFixture[str], parser: str, case: str, board: str, url_start: str
) -> None:
    (found,) = (GOLDEN / case).glob("input.*")
    code, lines, err = run(capsys, "--parser", parser, str(found), "--board", board)
    assert code == 0, err
    assert lines
    assert all(line["url"].startswith(url_start) for line in lines)


def test_a_malformed_board_token_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    found = GOLDEN / "workday" / "3" / "search-first-page" / "input.json"
    code, _, err = run(capsys, "--parser", "workday", str(found), "--board", "not-a-token")
    assert code == 2
    assert "--board 'not-a-token'" in err
