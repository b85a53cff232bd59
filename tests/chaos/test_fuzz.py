"""Fuzzing (docs/reliability.md §5), one round of each target within a short budget: every parser, the evidence checker and
the location normalizer over hypothesis-made inputs (arbitrary bytes, JSON of any
shape, mutated real captures). `python -m chaos` fuzzes for 10 minutes."""

from __future__ import annotations

import pytest

from chaos.fuzz import (
    FuzzReport,
    fuzz_checker,
    fuzz_locations,
    fuzz_parsers,
    real_captures,
)
from parsers import REGISTRY
from pipeline.lifecycle.check_rules import CheckedResponse, judge


def test_every_parser_survives_fuzzed_bytes() -> None:
    report = FuzzReport()
    fuzz_parsers(report, budget_s=12, examples=25, rounds=1)
    assert report.targets == [f"parser {p.ref}" for p in REGISTRY]
    assert report.crashes == []
    assert report.inputs >= 25 * len(report.targets)


@pytest.mark.real_fixtures
def test_the_fuzzer_mutates_real_captures_when_present() -> None:
    captures = real_captures()
    if not captures:
        pytest.skip("../shared/fixtures/real is absent: fuzzing arbitrary and JSON bytes only")
    assert len(captures) >= 10


def test_the_evidence_checker_survives_fuzzed_responses_and_errors_never_close() -> None:
    report = FuzzReport()
    fuzz_checker(report, budget_s=6, examples=50, rounds=1)
    assert report.crashes == []
    assert report.inputs >= 50


def test_the_location_normalizer_survives_fuzzed_text() -> None:
    report = FuzzReport()
    fuzz_locations(report, budget_s=4, examples=100, rounds=1)
    assert report.crashes == []
    assert report.inputs >= 100


@pytest.mark.parametrize("url", ["http://[::1", "http://[fe80::1%zz/jobs/1", "https://x]/"])
def test_the_checker_judges_a_posting_with_an_unparsable_url_without_raising(url: str) -> None:
    """Regression (found by the fuzzer): urlsplit's ValueError on a broken IPv6 literal
    escaped judge() and would end the check batch; such a redirect is never evidence."""
    response = CheckedResponse(url, "https://x.example/jobs", 200, b"<html></html>", (url,))
    verdict = judge(response, external_id="1", title="Engineer")
    assert not verdict.conclusive
    back = CheckedResponse("https://x.example/jobs/1", url, 200, b"", ("https://x.example/",))
    assert not judge(back, external_id="1", title=None).conclusive
