"""Every platform has its full kit: the name in `pipeline.platform_names` is the one
list, and each piece a platform needs is found from it, or named as missing.

The pieces (see docs/adding-a-platform.md for the steps that make them):
- adapter: `pipeline.crawl.platforms.PLATFORMS[name]`, named `name`;
- parser: registered as `name` in `parsers.REGISTRY` (an HTML site gets one per
  configured site), and every sandbox source of the platform resolves its parser;
- sandbox format: a `sandbox.formats.FORMATS` entry named `name`;
- sandbox source: an enabled source of the platform in sandbox/sources.yaml, which
  the sources.yaml validation accepts;
- golden cases: `tests/golden/<parser>/<current version>/` holds at least one case;
- direct check: the adapter builds an http(s) check request for a posting of the
  sandbox source's first board;
- docs row: a row of the platform in docs/parsers.md.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

import parsers
from parsers.html_site import CODE_VERSION
from pipeline.app import build_registry
from pipeline.config import Sources, load_sources
from pipeline.crawl import platforms
from pipeline.crawl.platforms.simple import Lever
from pipeline.db.rows import DueCheck
from pipeline.errors import ConfigError
from pipeline.platform_names import ATS_PLATFORMS, HTML_PLATFORMS, PLATFORMS
from pipeline.settings import REPO_ROOT
from sandbox.formats import FORMATS
from tests.parsers.golden import GOLDEN, SITE_PARSER

SANDBOX_SOURCES = REPO_ROOT / "sandbox" / "sources.yaml"
PARSERS_DOC = REPO_ROOT / "docs" / "parsers.md"


@cache
def sandbox_sources() -> Sources:
    return load_sources(SANDBOX_SOURCES, env={})


@cache
def sandbox_registry_problems() -> tuple[str, ...]:
    """What building the parsers of the sandbox sources reports (a crawler or a parser
    missing for a source), each naming the source's key."""
    try:
        build_registry(sandbox_sources())
    except ConfigError as exc:
        return tuple(exc.problems)
    return ()


def _golden_folder(name: str) -> tuple[str, str | None]:
    """The golden folder of a platform's current parser: `parser/version`."""
    if name in HTML_PLATFORMS:
        return SITE_PARSER, CODE_VERSION
    versions = parsers.REGISTRY.versions(name)
    return name, versions[-1] if versions else None


def _has_docs_row(name: str) -> bool:
    text = PARSERS_DOC.read_text(encoding="utf-8")
    if name in HTML_PLATFORMS:  # one section for every configured site
        return f"`{name}`" in text
    return re.search(rf"^\| {re.escape(name)}\b", text, flags=re.MULTILINE) is not None


def _check_url_problem(name: str, source_name: str) -> str | None:
    source = sandbox_sources().get(source_name)
    specs = platforms.board_specs(source)
    if not specs:
        return f"direct check (sandbox source {source_name!r} has no boards)"
    row = DueCheck(
        1, "1", 1, "https://example.invalid/postings/1", None, "missing", specs[0].key, specs[0].url
    )
    url = platforms.platform_of(source).check_request(row).url
    if not re.match(r"^https?://", str(url)):
        return f"direct check (the check request's URL is {url!r})"
    return None


def missing_pieces(name: str) -> list[str]:
    """The pieces of a platform's kit that are not there, each named for the fix."""
    missing: list[str] = []
    if name not in PLATFORMS:
        missing.append("name (pipeline/platform_names.py)")
    adapter = platforms.PLATFORMS.get(name)
    if adapter is None or adapter.name != name:
        missing.append("adapter (pipeline/crawl/platforms/, registered in its __init__.py)")
    if name not in HTML_PLATFORMS and name not in parsers.REGISTRY.names():
        missing.append("parser (parsers/<platform>.py, imported in parsers/__init__.py)")
    if name not in {fmt.name for fmt in FORMATS}:
        missing.append("sandbox format (sandbox/formats/<platform>.py, in FORMATS)")
    own = [src_name for src_name, src in sandbox_sources().enabled() if src.platform == name]
    if not own:
        missing.append("sandbox source (an enabled source in sandbox/sources.yaml)")
    for source_name in own:
        missing.extend(
            f"parser of sandbox source {source_name!r}: {problem}"
            for problem in sandbox_registry_problems()
            if f"sources.{source_name}." in problem
        )
    if own and (problem := _check_url_problem(name, own[0])):
        missing.append(problem)
    folder, version = _golden_folder(name)
    cases = GOLDEN / folder / (version or "?")
    if not (cases.is_dir() and any(case.is_dir() for case in cases.iterdir())):
        missing.append(f"golden cases (tests/golden/{folder}/{version or '<version>'}/<case>/)")
    if not _has_docs_row(name):
        missing.append("docs row (a `| platform |` row in docs/parsers.md)")
    return missing


@pytest.mark.parametrize("name", PLATFORMS)
def test_every_platform_has_its_full_kit(name: str) -> None:
    assert missing_pieces(name) == []


def test_a_platform_without_a_kit_is_told_every_missing_piece() -> None:
    missing = missing_pieces("nonesuch")
    assert [piece.partition(" (")[0] for piece in missing] == [
        "name",
        "adapter",
        "parser",
        "sandbox format",
        "sandbox source",
        "golden cases",
        "docs row",
    ]


def test_the_platform_names_are_the_adapters_and_the_config_lists() -> None:
    import pipeline.config

    assert set(platforms.PLATFORMS) == set(PLATFORMS)
    assert pipeline.config.PLATFORMS is PLATFORMS  # derived, not a copy
    assert set(ATS_PLATFORMS) <= set(parsers.REGISTRY.names())


def test_adapters_that_disagree_with_the_names_fail_at_import() -> None:
    adapters = list(platforms.PLATFORMS.values())
    with pytest.raises(RuntimeError, match=r"no adapter for \['icims'\]"):
        platforms.registry_of(a for a in adapters if a.name != "icims")
    extra = Lever()
    extra.name = "nonesuch"
    with pytest.raises(RuntimeError, match=r"not a platform name: \['nonesuch'\]"):
        platforms.registry_of([*adapters, extra])
    with pytest.raises(RuntimeError, match="'lever' is registered twice"):
        platforms.registry_of([*adapters, Lever()])
