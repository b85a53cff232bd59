"""The pinned test grid: real location forms and what they must give."""

from __future__ import annotations

import pytest

from pipeline.normalize.locations import locate

from .locations_cases import ALL_CASES, ANY, Case


def _codes(text: str) -> set[str]:
    return set(text.split())


@pytest.mark.parametrize("case", ALL_CASES, ids=str)
def test_case(case: Case) -> None:
    result = locate(case.text)
    countries = set(result.countries)
    if case.countries is not None:
        assert countries == _codes(case.countries), result.to_dict()
    assert _codes(case.includes) <= countries, result.to_dict()
    for code in _codes(case.excludes):
        assert code not in countries, result.to_dict()
        assert not result.could_be_in(code), result.to_dict()
    if case.offices is not None:
        assert len(result.offices) == case.offices, result.to_dict()
    first = result.offices[0] if result.offices else None
    for field in ("city", "region", "country"):
        expected = getattr(case, field)
        if expected is not ANY:
            assert first is not None, result.to_dict()
            assert getattr(first, field) == expected, result.to_dict()
    if case.ambiguous is not None:
        assert first is not None, result.to_dict()
        assert first.ambiguous is case.ambiguous, result.to_dict()
    if case.remote is not None:
        assert result.remote == case.remote, result.to_dict()
    if case.more is not None:
        assert result.more_offices == case.more, result.to_dict()
    if case.unresolved is not None:
        assert bool(result.unresolved) is case.unresolved, result.to_dict()


def test_grid_is_large_enough() -> None:
    assert len(ALL_CASES) >= 200
    assert len({case.text for case in ALL_CASES}) == len(ALL_CASES), "duplicate cases"


@pytest.mark.parametrize("case", [c for c in ALL_CASES if c.countries], ids=str)
def test_never_hides_a_job_from_a_country_it_names(case: Case) -> None:
    """The governing rule, checked the way a consumer reads the result."""
    result = locate(case.text)
    for code in _codes(case.countries or ""):
        assert result.could_be_in(code)
