"""Conformance against the real public captures committed in the project
(`tests/fixtures/real_public/<platform>/`, provenance and licences in its PROVENANCE.md).

Each capture has an `<capture>.expected.json` written by reading the raw file: the
parser and the URL the capture was fetched from, the outcome's quality, the number
of postings, the listing's own total, and per posting its id, title, URL, location
text, work mode (and, where the file names several, its offices). The invariants of
test_invariants.py are checked on them too. Unlike the held-out set in
../shared/fixtures/real (test_conformance.py), these always run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from parsers.registry import REGISTRY
from parsers.types import DocumentKind, ParseOutcome, Posting, Quality
from pipeline.platform_names import ATS_PLATFORMS
from tests.parsers.conftest import doc, read_real
from tests.parsers.test_invariants import problems

REAL_PUBLIC = Path(__file__).resolve().parents[1] / "fixtures" / "real_public"
SUFFIX = ".expected.json"


@dataclass(frozen=True)
class Capture:
    path: Path
    expected: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.path.parent.name}/{self.path.name}"


def captures() -> list[Capture]:
    found = []
    for expected in sorted(REAL_PUBLIC.glob(f"*/*{SUFFIX}")):
        capture = expected.with_name(expected.name.removesuffix(SUFFIX))
        found.append(Capture(capture, json.loads(expected.read_text(encoding="utf-8"))))
    return found


CAPTURES = captures()


def run(capture: Capture) -> ParseOutcome:
    kind = DocumentKind(capture.expected.get("kind", "listing"))
    body = read_real(capture.path)
    return REGISTRY.get(capture.expected["parser"]).parse(doc(body, capture.expected["url"], kind))


def observed(posting: Posting, with_offices: bool) -> dict[str, Any]:
    seen = {
        "external_id": posting.external_id,
        "title": posting.title,
        "url": posting.url,
        "location_text": posting.location_text,
        "remote": posting.remote,
    }
    if with_offices:
        seen["offices"] = [office.text for office in posting.offices]
    return seen


def test_every_capture_has_its_expectations_and_every_expectation_its_capture() -> None:
    for folder in (p for p in REAL_PUBLIC.iterdir() if p.is_dir()):
        for path in folder.iterdir():
            if path.name.endswith(SUFFIX):
                assert path.with_name(path.name.removesuffix(SUFFIX)).is_file(), path
            else:
                assert path.with_name(path.name + SUFFIX).is_file(), f"{path}: no expectations"


def test_every_capture_has_its_provenance_row() -> None:
    """A capture without its repository, commit and licence in PROVENANCE.md must not
    be committed."""
    provenance = (REAL_PUBLIC / "PROVENANCE.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip() for line in provenance.splitlines() if line.startswith("| ")}
    assert sorted(c.id for c in CAPTURES if c.id not in rows) == []


def test_folders_are_platforms_and_their_parsers() -> None:
    for capture in CAPTURES:
        platform = capture.path.parent.name
        assert platform in ATS_PLATFORMS, capture.id
        assert capture.expected["parser"] == platform, capture.id


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda c: c.id)
def test_capture_parses_to_what_the_raw_file_says(capture: Capture) -> None:
    expected = capture.expected
    outcome = run(capture)
    assert outcome.quality is Quality(expected["quality"]), (capture.id, outcome.issues)
    assert len(outcome.postings) == expected["count"], capture.id
    assert outcome.total == expected["total"], capture.id
    for want in expected["postings"]:
        got = observed(outcome.posting(want["external_id"]), "offices" in want)
        assert got == want, capture.id


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda c: c.id)
def test_capture_keeps_the_parse_invariants(capture: Capture) -> None:
    """Unique ids, no site-root URLs, no entity codes or invisible characters
    (tests/parsers/test_invariants.py) hold on these captures too."""
    assert problems(run(capture)) == []


def test_a_wrong_expectation_fails() -> None:
    """The comparison is not vacuous: one changed field makes a capture disagree."""
    capture = next(c for c in CAPTURES if c.expected["postings"])
    want = dict(capture.expected["postings"][0], title="Not the title in the file")
    got = observed(run(capture).posting(want["external_id"]), "offices" in want)
    assert got != want


def test_a_card_layout_icims_search_reads_each_cards_labelled_location() -> None:
    """iCIMS cards label fields with a `.field-label` span and its next sibling, not
    dt/dd; a label without a value next to it gives nothing (never the label itself)."""
    html = (
        '<li><div class="row"><div class="header"><span class="sr-only field-label">'
        "Job Locations</span><span>US-WI-Madison</span></div>"
        '<a class="iCIMS_Anchor" href="/jobs/1/a/job?in_iframe=1"><h3>A</h3></a></div></li>'
        '<li><div class="row"><div class="header"><span class="sr-only field-label">'
        'Job Locations</span></div><a class="iCIMS_Anchor" href="/jobs/2/b/job?in_iframe=1">'
        "<h3>B</h3></a></div></li>"
    )
    outcome = REGISTRY.get("icims").parse(
        doc(f"<html><body><ul>{html}</ul></body></html>", "https://careers-x.icims.com/jobs/search")
    )
    assert outcome.posting("1").location_text == "US-WI-Madison"
    assert outcome.posting("2").location_text is None


def test_a_rippling_v1_row_names_its_location_by_label() -> None:
    """The v1 board API's rows (a bare array) carry `workLocation.label`; repeats of a
    posting, one per location, are one posting with every office."""
    rows = [
        {"uuid": "u1", "name": "Analyst", "url": "https://ats.rippling.com/x/jobs/u1",
         "workLocation": {"label": "Remote (Texas, US)", "id": "t"}},
        {"uuid": "u1", "name": "Analyst", "url": "https://ats.rippling.com/x/jobs/u1",
         "workLocation": {"label": "Austin, TX", "id": "a"}},
    ]  # fmt: skip
    outcome = REGISTRY.get("rippling").parse(
        doc(json.dumps(rows), "https://api.rippling.com/platform/api/ats/v1/board/x/jobs")
    )
    (posting,) = outcome.postings
    assert [o.text for o in posting.offices] == ["Remote (Texas, US)", "Austin, TX"]
    assert posting.remote == "yes"


def _icims_listings_page(message: str) -> str:
    return (
        '<html><body><div class="iCIMS_MainWrapper iCIMS_ListingsPage">'
        f'<div class="iCIMS_Message iCIMS_ErrorMessage iCIMS_GenericMessage">{message}</div>'
        "</div></body></html>"
    )


def test_an_icims_page_without_rows_is_an_empty_board_only_when_it_says_so() -> None:
    """iCIMS's own "no jobs were found" is an empty listing; a login wall or an error in
    the same box stays a rejection that names it, so it never passes for an empty board."""
    url = "https://careers-x.icims.com/jobs/search?ss=1&in_iframe=1&pr=0"
    parse_page = REGISTRY.get("icims").parse
    empty = parse_page(doc(_icims_listings_page("Sorry, no jobs were found."), url))
    assert (empty.quality, empty.postings) == (Quality.ACCEPTED, ())
    for message in ("Error: Login is required to search for jobs.", "An error occurred."):
        refused = parse_page(doc(_icims_listings_page(message), url))
        assert refused.quality is Quality.REJECTED
        assert message in refused.issues[-1].message
    foreign = parse_page(doc("<html><body><p>Sorry, no jobs were found.</p></body></html>", url))
    assert foreign.quality is Quality.REJECTED  # the words alone, outside iCIMS's box


def test_a_recruitee_offer_named_only_by_city_and_country_keeps_its_place() -> None:
    """Without `location` or `locations[]`, the offer's own city, state and country are
    its place (a part repeating the one before it once); with them, they are not read."""
    offers = {
        "offers": [
            {"id": 1, "title": "A", "careers_url": "https://x.io/o/a", "city": "Berlin",
             "country": "Germany"},
            {"id": 2, "title": "B", "careers_url": "https://x.io/o/b", "city": "Germany",
             "country": "Germany"},
            {"id": 3, "title": "C", "careers_url": "https://x.io/o/c", "city": "Utrecht",
             "country": "Netherlands", "location": "Utrecht, Netherlands"},
        ]
    }  # fmt: skip
    outcome = REGISTRY.get("recruitee").parse(
        doc(json.dumps(offers), "https://x.recruitee.com/api/offers/")
    )
    assert [p.location_text for p in outcome.postings] == [
        "Berlin, Germany",
        "Germany",
        "Utrecht, Netherlands",
    ]
    assert [o.text for o in outcome.posting("3").offices] == []  # `location` stands alone


def test_a_pinpoint_row_with_only_the_workplace_text_keeps_its_work_mode() -> None:
    """`workplace_type_text` decides only where the `workplace_type` code is absent."""
    rows = [
        {"id": "1", "title": "A", "url": "https://x.pinpointhq.com/en/postings/a",
         "workplace_type_text": "Hybrid"},
        {"id": "2", "title": "B", "url": "https://x.pinpointhq.com/en/postings/b",
         "workplace_type_text": "Fully remote"},
        {"id": "3", "title": "C", "url": "https://x.pinpointhq.com/en/postings/c",
         "workplace_type": "onsite", "workplace_type_text": "Hybrid"},
    ]  # fmt: skip
    outcome = REGISTRY.get("pinpoint").parse(
        doc(json.dumps({"data": rows}), "https://x.pinpointhq.com/postings.json")
    )
    assert [p.remote for p in outcome.postings] == ["hybrid", "yes", "unknown"]
