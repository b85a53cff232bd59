"""sources.yaml validation: a table of good and bad files with their exact messages
(FILE:LINE: key.path: problem), the shipped sources.yaml and the sandbox profile, and
the keys of single platforms (title filters, Workday tokens, site fields)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pipeline.app import build_registry
from pipeline.config import AtsSource, HtmlSiteSource, SmartRecruitersSource, load_sources
from pipeline.crawl.platforms import board_specs
from pipeline.errors import ConfigError
from pipeline.settings import REPO_ROOT

SITE = """
  site:
    platform: html_site
    base_url: https://jobs.example.vn
    scopes: [{key: all, path: "/jobs?page={page}"}]
    listing: {item: article, link: "a::attr(href)", id_pattern: '-(\\d+)$'}
"""

GOOD = {
    "minimal ats": (
        "sources:\n  gh:\n    platform: greenhouse\n    boards: [acme]\n",
        {"gh": AtsSource},
    ),
    "board objects and pacing": (
        "sources:\n  gh:\n    platform: greenhouse\n    pacing: {rate_per_s: 0.5, burst: 2}\n"
        "    boards: [{token: acme, name: Acme}, {token: beta, enabled: false}]\n",
        {"gh": AtsSource},
    ),
    "html site": ("sources:" + SITE, {"site": HtmlSiteSource}),
    "smartrecruiters public host": (
        "sources:\n  sr:\n    platform: smartrecruiters\n"
        "    public_base: https://jobs.sr.example/\n    boards: [Acme]\n",
        {"sr": SmartRecruitersSource},
    ),
    "env default": (
        "sources:\n  gh:\n    platform: greenhouse\n    api_base: ${NOT_SET_ANYWHERE:-https://gh.example}\n"
        "    boards: [acme]\n",
        {"gh": AtsSource},
    ),
}

BAD = {
    "not a mapping": ("- a\n- b\n", ["{f}: the file must be a mapping with a 'sources' key"]),
    "yaml syntax": (
        "sources:\n  gh: [unclosed\n",
        ["{f}:3: invalid YAML: expected ',' or ']', but got '<stream end>'"],
    ),
    "duplicate source": (
        "sources:\n  gh:\n    platform: greenhouse\n  gh:\n    platform: lever\n",
        ["{f}:4: invalid YAML: duplicate key 'gh' (first defined on line 2)"],
    ),
    "no sources": ("sources: {}\n", ["{f}:1: sources: no sources defined"]),
    "unknown top key": (
        "version: 1\nsourcez: {}\n",
        [
            "{f}:1: sources: required key is missing",
            "{f}:2: sourcez: unknown key (allowed: sources, version)",
        ],
    ),
    "missing platform": (
        "sources:\n  gh:\n    boards: [acme]\n",
        [
            "{f}:2: sources.gh.platform: required key is missing (one of: greenhouse, lever, ashby, smartrecruiters, workable, workday, recruitee, teamtailor, personio, bamboohr, pinpoint, breezy, rippling, oracle, successfactors, jazzhr, jobvite, icims, html_site)"
        ],
    ),
    "unknown platform": (
        "sources:\n  gh:\n    platform: gh\n",
        [
            "{f}:3: sources.gh.platform: unknown platform 'gh' (known: greenhouse, lever, ashby, smartrecruiters, workable, workday, recruitee, teamtailor, personio, bamboohr, pinpoint, breezy, rippling, oracle, successfactors, jazzhr, jobvite, icims, html_site)"
        ],
    ),
    "misspelt key": (
        "sources:\n  gh:\n    platform: greenhouse\n    bords: [acme]\n",
        [
            "{f}:4: sources.gh.bords: unknown key (allowed: api_base, boards, display_name, enabled, exclude_titles, pacing, parser, platform, robots, schedule, transport, validation)"
        ],
    ),
    "bad rate": (
        "sources:\n  gh:\n    platform: greenhouse\n    pacing: {rate_per_s: 0}\n",
        ["{f}:4: sources.gh.pacing.rate_per_s: Input should be greater than 0"],
    ),
    "bad token": (
        "sources:\n  gh:\n    platform: greenhouse\n    boards: [ok, 'has space']\n",
        [
            "{f}:4: sources.gh.boards[1].token: board token must be letters, digits, '.', '_', '-', '/' or '@' (no spaces or URLs)"
        ],
    ),
    "board company and its old spelling": (
        "sources:\n  gh:\n    platform: greenhouse\n    boards:\n"
        "      - {token: acme, company: Acme, name: Acme Inc}\n",
        ["{f}:5: sources.gh.boards[0]: give company (name is its old spelling), not both"],
    ),
    "blank board company": (
        "sources:\n  gh:\n    platform: greenhouse\n    boards:\n      - {token: acme, company: '  '}\n",
        ["{f}:5: sources.gh.boards[0].company: company must name the employer (got only spaces)"],
    ),
    "duplicate board": (
        "sources:\n  gh:\n    platform: greenhouse\n    boards:\n      - acme\n      - acme\n",
        ["{f}:6: sources.gh.boards[1]: duplicate board 'acme' (also boards[0])"],
    ),
    "bad source name": (
        "sources:\n  Bad Name:\n    platform: greenhouse\n",
        [
            "{f}:2: sources.Bad Name: source name must be lowercase letters, digits, '-' or '_' and start with a letter"
        ],
    ),
    "bad transport": (
        "sources:\n  gh:\n    platform: greenhouse\n    transport: carrier-pigeon\n",
        ["{f}:4: sources.gh.transport: must be one of 'http' or 'browser', got 'carrier-pigeon'"],
    ),
    "public host on a platform whose postings name their own pages": (
        "sources:\n  gh:\n    platform: greenhouse\n    public_base: https://jobs.example\n",
        [
            "{f}:4: sources.gh.public_base: unknown key (allowed: api_base, boards, display_name, enabled, exclude_titles, pacing, parser, platform, robots, schedule, transport, validation)"
        ],
    ),
    "api base not a url": (
        "sources:\n  gh:\n    platform: greenhouse\n    api_base: boards-api.greenhouse.io\n",
        [
            "{f}:4: sources.gh.api_base: must be an http:// or https:// URL, got 'boards-api.greenhouse.io'"
        ],
    ),
    "unset env var": (
        "sources:\n  gh:\n    platform: greenhouse\n    api_base: ${NOT_SET_ANYWHERE}/x\n",
        [
            "{f}:4: sources.gh.api_base: environment variable NOT_SET_ANYWHERE is not set (and no ${NOT_SET_ANYWHERE:-default})"
        ],
    ),
    "site without page placeholder": (
        "sources:" + SITE.replace("/jobs?page={page}", "/jobs"),
        ["{f}:5: sources.site.scopes[0].path: path must contain {page} where the page number goes"],
    ),
    "site id pattern without group": (
        "sources:" + SITE.replace("'-(\\d+)$'", "'-\\d+$'"),
        [
            "{f}:6: sources.site.listing.id_pattern: must have exactly one (group) capturing the posting id"
        ],
    ),
    "site missing listing": (
        "sources:"
        + SITE.replace(
            "    listing: {item: article, link: \"a::attr(href)\", id_pattern: '-(\\d+)$'}\n", ""
        ),
        ["{f}:2: sources.site.listing: required key is missing"],
    ),
    "several problems at once": (
        "sources:\n  a:\n    platform: greenhouse\n    pacing: {rate_per_s: -1}\n  b:\n    platform: nope\n",
        [
            "{f}:4: sources.a.pacing.rate_per_s: Input should be greater than 0",
            "{f}:6: sources.b.platform: unknown platform 'nope' (known: greenhouse, lever, ashby, smartrecruiters, workable, workday, recruitee, teamtailor, personio, bamboohr, pinpoint, breezy, rippling, oracle, successfactors, jazzhr, jobvite, icims, html_site)",
        ],
    ),
}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sources.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", list(GOOD), ids=list(GOOD))
def test_good_configs_load(tmp_path: Path, case: str) -> None:
    text, expected = GOOD[case]
    sources = load_sources(write(tmp_path, text), env={})
    assert {name: type(src) for name, src in sources.sources.items()} == expected


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_bad_configs_name_file_line_key_and_problem(tmp_path: Path, case: str) -> None:
    text, expected = BAD[case]
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_sources(path, env={})
    assert caught.value.problems == [line.replace("{f}", str(path)) for line in expected]


def test_env_interpolation_uses_the_environment(tmp_path: Path) -> None:
    path = write(
        tmp_path, "sources:\n  gh:\n    platform: greenhouse\n    api_base: ${GH_BASE}/v\n"
    )
    sources = load_sources(path, env={"GH_BASE": "http://127.0.0.1:9"})
    assert sources.get("gh").api_base == "http://127.0.0.1:9/v"


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_sources(tmp_path / "nope.yaml")
    assert caught.value.problems == [f"{tmp_path / 'nope.yaml'}: file not found"]


def test_enabled_platform_without_crawler_is_reported_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A platform the config knows but this build cannot crawl (e.g. a newer sources.yaml
    run by an older jobharbor) fails before anything runs, naming the key."""
    from pipeline.crawl import platforms

    monkeypatch.delitem(platforms.PLATFORMS, "bamboohr")
    path = write(tmp_path, "sources:\n  wd:\n    platform: bamboohr\n    boards: [acme]\n")
    sources = load_sources(path, env={})
    with pytest.raises(ConfigError) as caught:
        build_registry(sources)
    assert caught.value.problems[0].startswith(
        f"{path}:3: sources.wd.platform: platform 'bamboohr' has no crawler"
    )


def test_unknown_parser_is_reported_with_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "sources:\n  gh:\n    platform: greenhouse\n    parser: greenhouse@99\n    boards: [a]\n",
    )
    with pytest.raises(ConfigError) as caught:
        build_registry(load_sources(path, env={}))
    assert caught.value.problems == [
        f"{path}:4: sources.gh.parser: no parser greenhouse@99 (versions of 'greenhouse': 3)"
    ]


@pytest.mark.parametrize("shipped", ["sources.yaml", "sandbox/sources.yaml"])
def test_shipped_files_are_valid(shipped: str) -> None:
    sources = load_sources(REPO_ROOT / shipped, env={})
    build_registry(sources)
    assert sources.enabled(), f"{shipped} enables no source"


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


def test_a_board_names_its_company_and_name_is_its_old_spelling(tmp_path: Path) -> None:
    text = (
        "sources:\n  gh:\n    platform: greenhouse\n    boards:\n"
        "      - {token: acme, company: ' Acme Robotics '}\n"
        "      - {token: beta, name: Beta Bank}\n"
        "      - gamma\n"
    )
    source = load_sources(write(tmp_path, text), env={}).get("gh")
    assert isinstance(source, AtsSource)
    assert [(b.token, b.company) for b in source.boards] == [
        ("acme", "Acme Robotics"),
        ("beta", "Beta Bank"),
        ("gamma", None),
    ]


def test_workday_tokens_name_tenant_data_center_and_site(tmp_path: Path) -> None:
    problems = _problems(tmp_path, "  workday:\n    platform: workday\n    boards: [nvidia]\n")
    assert problems == [
        "FILE:5: sources.workday.boards: boards[0]: Workday token 'nvidia' must look like "
        "tenant.wd5/SiteName (from https://tenant.wd5.myworkdayjobs.com/SiteName) or "
        "wd3.myworkdaysite.com/recruiting/tenant/SiteName "
        "(from https://wd3.myworkdaysite.com/recruiting/tenant/SiteName)"
    ]


@pytest.mark.parametrize(
    "token",
    [
        "acme.wd3.myworkdaysite.com/Careers",  # no tenant-named myworkdaysite.com host exists
        "wd3.myworkdaysite.com/acme/Careers",  # the shared host's sites are under /recruiting
        "wd3.myworkdaysite.com/en-US/recruiting/acme/Careers",  # tokens carry no locale
        "wd3.myworkdaysite.com/recruiting/acme",  # a tenant without its site
    ],
)
def test_a_shared_host_token_is_its_board_address(tmp_path: Path, token: str) -> None:
    problems = _problems(tmp_path, f"  workday:\n    platform: workday\n    boards: [{token}]\n")
    assert len(problems) == 1
    assert f"Workday token {token!r} must look like" in problems[0]


def test_a_workday_board_on_the_shared_host_crawls_there_in_its_data_centers_lane(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sources.yaml"
    path.write_text(
        "version: 1\nsources:\n  workday:\n    platform: workday\n"
        "    boards: [wd3.myworkdaysite.com/recruiting/acme/Careers, nvidia.wd5/Ext]\n",
        encoding="utf-8",
    )
    shared, own = board_specs(load_sources(path, env={}).get("workday"))
    assert shared.url == "https://wd3.myworkdaysite.com/wday/cxs/acme/Careers/jobs"
    assert (shared.lane, own.lane) == ("workday:wd3", "workday:wd5")
    assert own.url == "https://nvidia.wd5.myworkdayjobs.com/wday/cxs/nvidia/Ext/jobs"


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
