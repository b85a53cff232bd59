"""The shipped sources.yaml, the sandbox profile, and the config keys this issue adds,
with their exact error messages (FILE:LINE: key.path: problem)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.app import build_registry
from pipeline.config import load_sources
from pipeline.crawl.platforms import board_specs
from pipeline.errors import ConfigError
from pipeline.settings import REPO_ROOT

SHIPPED = REPO_ROOT / "sources.yaml"
SANDBOX = REPO_ROOT / "sandbox" / "sources.yaml"


def test_shipped_sources_check_and_enable_lever_and_ashby() -> None:
    sources = load_sources(SHIPPED, env={})
    registry = build_registry(sources)
    enabled = {name for name, _ in sources.enabled()}
    assert {"greenhouse", "lever", "lever-eu", "ashby"} <= enabled
    for name in (
        "smartrecruiters",
        "workable",
        "workday",
        "recruitee",
        "teamtailor",
        "personio",
        "bamboohr",
    ):
        assert not sources.get(name).enabled, name
    for site in ("itviec", "topcv", "topdev", "vietnamworks", "careerviet", "careerlink", "jobsgo"):
        assert sources.get(site).platform == "html_site"
        assert registry.get(site).name == site
    assert (
        board_specs(sources.get("lever-eu"))[0].url
        == "https://api.eu.lever.co/v0/postings/mobileye?mode=json"
    )
    workday = board_specs(sources.get("workday"))
    assert [s.lane for s in workday] == ["workday:wd5", "workday:wd12"]
    assert (
        workday[0].url
        == "https://nvidia.wd5.myworkdayjobs.com/wday/cxs/nvidia/NVIDIAExternalCareerSite/jobs"
    )


@pytest.mark.parametrize("site", ["itviec", "topcv"])
def test_sandbox_sites_use_the_shipped_selectors(site: str) -> None:
    """The sandbox runs the real sites' selectors end to end: they must not drift."""
    shipped = load_sources(SHIPPED, env={}).get(site)
    sandbox = load_sources(SANDBOX, env={}).get(site)
    assert shipped.listing == sandbox.listing
    assert shipped.detail == sandbox.detail


def _problems(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "sources.yaml"
    path.write_text("version: 1\nsources:\n" + body, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_sources(path, env={})
    return [p.replace(str(path), "FILE") for p in info.value.problems]


def test_title_filter_is_for_workday_only(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path, "  lever:\n    platform: lever\n    title_filter: intern\n    boards: [acme]\n"
    )
    assert problems == [
        "FILE:5: sources.lever.title_filter: unknown key (allowed: api_base, boards, display_name, enabled, exclude_titles, pacing, parser, platform, robots, schedule, transport, validation)"
    ]


def test_title_filter_must_be_a_regex(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path,
        "  workday:\n    platform: workday\n    title_filter: '(intern'\n    boards: [acme.wd1/Site]\n",
    )
    assert problems == [
        "FILE:5: sources.workday.title_filter: not a valid regular expression: missing ), unterminated subpattern at position 0"
    ]


def test_workday_tokens_name_tenant_data_center_and_site(tmp_path: Path) -> None:
    problems = _problems(tmp_path, "  workday:\n    platform: workday\n    boards: [nvidia]\n")
    assert problems == [
        "FILE:5: sources.workday.boards: boards[0]: Workday token 'nvidia' must look like "
        "tenant.wd5/SiteName (from https://tenant.wd5.myworkdayjobs.com/SiteName)"
    ]


def test_site_fields_are_known_names(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path,
        "  site:\n    platform: html_site\n    base_url: https://example.com\n"
        "    scopes: [{key: all, path: '/jobs?page={page}'}]\n"
        "    listing:\n      item: div.job\n      link: a::attr(href)\n      id_pattern: '/(\\d+)$'\n"
        "      fields: {title: a::text, salry: .salary::text}\n",
    )
    assert problems == [
        "FILE:11: sources.site.listing.fields: unknown field salry (allowed: title, company, department, "
        "location, description, employment_type, posted, salary, remote, apply_url)"
    ]
