"""Golden cases per parser version (see tests/parsers/golden.py to regenerate)."""

from __future__ import annotations

import pytest

from tests.parsers.golden import Case, cases, expected_versions, versions_with_cases


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.id)
def test_golden_case(case: Case) -> None:
    expected = case.expected()
    assert expected is not None, (
        f"{case.id} has no expected.json: run python -m tests.parsers.golden --write {case.id}"
    )
    assert case.actual() == expected


def test_every_current_parser_version_has_golden_cases() -> None:
    missing = expected_versions() - versions_with_cases()
    assert not missing, f"parser versions without golden cases: {sorted(missing)}"


def test_no_golden_cases_for_versions_that_do_not_exist() -> None:
    stale = versions_with_cases() - expected_versions()
    assert not stale, f"golden cases for versions no longer registered: {sorted(stale)}"
