"""Accuracy on real location strings (../shared/fixtures/real; never copied in).

The Ashby export is the answer key: each row is a location string with the
postal address the ATS itself stored. Definitions are in
pipeline/normalize/locations/evaluate.py and docs/locations.md.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from pipeline.normalize.locations import evaluate, locate, place_duplicates
from pipeline.normalize.locations.text import spelling_key

FIXTURES = evaluate.real_fixtures_dir()
if not (FIXTURES / evaluate.ASHBY_KEY).exists():
    pytest.skip(
        f"real fixtures not found at {FIXTURES} (set JOBHARBOR_REAL_FIXTURES to the "
        "shared fixtures/real folder)",
        allow_module_level=True,
    )

pytestmark = pytest.mark.real_fixtures


@pytest.fixture(scope="module")
def ashby() -> dict[str, float | int]:
    return evaluate.score_ashby(evaluate.read_ashby_key(), locate).summary()


def test_the_key_is_the_real_export(ashby: dict[str, float | int]) -> None:
    assert ashby["rows"] >= 2500
    assert ashby["us_rows"] >= 1000


def test_us_recall(ashby: dict[str, float | int]) -> None:
    """Rows whose ATS address is in the US and that our output still allows in the US."""
    assert ashby["us_recall"] >= 0.995


def test_country_agreement(ashby: dict[str, float | int]) -> None:
    assert ashby["country_agreement"] >= 0.97


def test_coverage(ashby: dict[str, float | int]) -> None:
    assert ashby["coverage"] >= 0.90


def test_no_job_hidden_from_its_own_country(ashby: dict[str, float | int]) -> None:
    """The same rule for every country the key names, not only the US."""
    assert ashby["recall"] >= 0.99


@pytest.mark.parametrize(
    ("name", "share"),
    [("stapply-ats-mix", 0.95), ("workday-autodesk", 1.0), ("itviec", 0.85), ("vn-sites", 0.95)],
)
def test_other_real_strings_name_a_country(name: str, share: float) -> None:
    strings = evaluate.other_location_sets()[name]
    counts = evaluate.resolve_counts(strings, locate)
    assert counts["strings"] == len(strings) > 10
    assert counts["name_a_country"] >= share * counts["strings"], counts


def test_vietnamese_sites_stay_in_vietnam() -> None:
    """Vietnamese job sites list Vietnamese places: no stray country may slip in."""
    strings = evaluate.other_location_sets()["vn-sites"] + evaluate.other_location_sets()["itviec"]
    foreign_ok = {"JP"}  # "Nhật Bản": Japan, listed as such
    for text in strings:
        result = locate(text)
        stray = set(result.countries) - {"VN"} - foreign_ok
        assert not stray, (text, result.countries)


def _every_real_string() -> list[str]:
    sets = evaluate.other_location_sets()
    return [row.location for row in evaluate.read_ashby_key()] + [
        text for strings in sets.values() for text in strings
    ]


def test_real_postings_list_each_place_once() -> None:
    """No real string's offices repeat a place (same GeoNames id, or one label twice)."""
    repeated = [text for text in _every_real_string() if place_duplicates(locate(text).offices) > 0]
    assert repeated == []


def test_real_regions_and_cities_have_one_spelling_per_country() -> None:
    """What the region and city facets list from the real strings: within a country, no
    name shows under two spellings, in one facet or across the two (region "Ha Noi"
    beside city "Hanoi")."""
    spellings: dict[tuple[str, str], set[str]] = defaultdict(set)
    for text in _every_real_string():
        for office in locate(text).offices:
            for name in (office.region, office.city):
                if name and office.country:
                    spellings[(office.country, spelling_key(name))].add(name)
    assert len(spellings) > 300  # the real strings name many places
    assert {k: v for k, v in spellings.items() if len(v) > 1} == {}
