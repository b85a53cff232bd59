"""Invariants every parse must keep, checked over every golden case and every real
capture (../shared/fixtures/real, skipped with the reason when absent):

- ids are unique within one document (distinct postings never share an id);
- a posting's URL is never a site root, and is http(s);
- a company never carries an internal entity code ("631 Example Corp_United States");
- an office is never a legal-entity name ("… Private Limited");
- names and places carry no invisible characters and no empty segments.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from parsers.entities import has_entity_code, looks_like_legal_entity
from parsers.registry import REGISTRY
from parsers.types import DocumentKind, ParseOutcome
from parsers.urls import is_site_root
from tests.parsers.conftest import doc, read_real
from tests.parsers.golden import cases
from tests.parsers.test_conformance import ATS_FOLDERS, files, run

_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\u00ad]")
_EMPTY_SEGMENT = re.compile(r",\s*,")


def problems(outcome: ParseOutcome) -> list[str]:
    found: list[str] = []
    ids = [p.external_id for p in outcome.postings]
    if len(ids) != len(set(ids)):
        found.append(f"duplicate ids: {sorted(i for i in set(ids) if ids.count(i) > 1)}")
    for posting in outcome.postings:
        where = posting.external_id
        if urlsplit(posting.url).scheme not in ("http", "https") or is_site_root(posting.url):
            found.append(f"{where}: url {posting.url!r} is a site root or not http(s)")
        if has_entity_code(posting.company):
            found.append(f"{where}: company {posting.company!r} is an entity code")
        for office in posting.offices:
            if looks_like_legal_entity(office.text):
                found.append(f"{where}: office {office.text!r} is a legal-entity name")
        texts = [posting.title, posting.company, posting.location_text]
        texts += [o.text for o in posting.offices]
        for text in filter(None, texts):
            if _INVISIBLE.search(text):
                found.append(f"{where}: invisible characters in {text!r}")
        for text in filter(None, [posting.location_text, *(o.text for o in posting.offices)]):
            if _EMPTY_SEGMENT.search(text):
                found.append(f"{where}: empty location segment in {text!r}")
    return found


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.id)
def test_golden_cases_keep_the_invariants(case) -> None:  # type: ignore[no-untyped-def]
    outcome = case.resolve_parser().parse(case.document())
    assert problems(outcome) == []


@pytest.mark.real_fixtures
@pytest.mark.parametrize("platform", ATS_FOLDERS)
def test_real_captures_keep_the_invariants(real_dir: Path, platform: str) -> None:
    for path in files(real_dir, platform):
        assert problems(run(platform, path)) == [], path.name


@pytest.mark.real_fixtures
def test_real_jsonld_pages_keep_the_invariants(real_dir: Path) -> None:
    for path in files(real_dir, "jsonld"):
        for url in (f"https://example.com/{path.stem}", "https://example.com/"):
            outcome = REGISTRY.get("jsonld").parse(doc(read_real(path), url, DocumentKind.DETAIL))
            if url.endswith("/"):
                # Fetched at a root, a posting keeps where it was read unless the page
                # names a more specific address of its own; never another root.
                assert all(p.url == url or not is_site_root(p.url) for p in outcome.postings)
                continue
            assert problems(outcome) == [], path.name


def test_the_invariants_catch_what_they_guard() -> None:
    """Each check fails on the defect it names (so a green run means something)."""
    from dataclasses import replace

    from parsers.types import Posting, Quality, RawOffice

    good = Posting(external_id="1", url="https://jobs.example.com/job/1", title="Engineer")
    assert problems(ParseOutcome(Quality.ACCEPTED, (good,))) == []
    bad = [
        (good, good),
        (replace(good, url="https://jobs.example.com/"),),
        (replace(good, company="631 Example Corp_United States"),),
        (replace(good, offices=(RawOffice("Harbor Software India Private Limited"),)),),
        (replace(good, title="Engi\u200bneer"),),
        (replace(good, location_text="Szczecin, , Poland"),),
    ]
    for postings in bad:
        assert problems(ParseOutcome(Quality.ACCEPTED, postings)), postings
