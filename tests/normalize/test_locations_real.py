"""Accuracy on real location strings (../shared/fixtures/real; never copied in).

The Ashby export is the answer key: each row is a location string with the
postal address the ATS itself stored. Definitions are in
pipeline/normalize/locations/evaluate.py and docs/locations.md.
"""

from __future__ import annotations

import pytest

from pipeline.normalize.locations import evaluate, locate

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
