"""The labelled set and `enrich evaluate`: the rules baseline meets its targets, every
gold span is in its text, and the checker rejects every adversarial answer."""

from __future__ import annotations

import pytest

from pipeline.commands.enrich_evaluate import evaluate, load_cases
from pipeline.enrich.evidence import locate
from pipeline.enrich.text import flat


@pytest.fixture(scope="module")
def report() -> dict:
    return evaluate("rules")


def test_the_set_has_150_postings_stratified_by_source_and_language() -> None:
    cases, _ = load_cases()
    assert len(cases) >= 150
    assert {c.language for c in cases} == {"en", "vi"}
    assert sum(1 for c in cases if c.language == "vi") >= 40
    assert len({c.source for c in cases}) >= 10
    assert sum(1 for c in cases if "traps" in c.subsets) >= 15


def test_every_gold_value_has_its_evidence_in_the_text() -> None:
    cases, _ = load_cases()
    for case in cases:
        text = flat(case.text)
        for name, item in case.gold.items():
            items = item if isinstance(item, list) else [item]
            for one in items:
                assert locate(text, one["evidence"]) is not None, (case.id, name, one)


def test_rules_baseline_meets_the_targets(report) -> None:
    skills = report["skills"]["skills"]["micro"]
    assert skills["precision"] >= 0.95
    assert skills["f1"] >= 0.75
    assert report["trap_false_positives"] == []
    assert report["evidence_valid_rate"] == 1.0
    for name in ("skills_required", "skills_preferred"):
        assert set(report["skills"][name]) == {"micro", "macro"}


def test_the_checker_rejects_every_adversarial_answer(report) -> None:
    assert (
        report["adversarial"]["rejected"] == report["adversarial"]["postings"] == report["postings"]
    )


def test_real_references_are_skipped_visibly_when_the_captures_are_absent(
    monkeypatch, tmp_path
) -> None:
    monkeypatch.setenv("JOBHARBOR_REAL_FIXTURES", str(tmp_path))
    cases, skipped = load_cases()
    assert not any("real" in c.subsets for c in cases)
    assert skipped
    assert all("is absent" in s for s in skipped)


def test_evaluate_through_the_gemini_endpoint_scores_the_same_checked_answers(
    gemini, sandbox, monkeypatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    monkeypatch.setenv("JOBHARBOR_LLM_BASE_URL", sandbox.url)
    monkeypatch.setenv("JOBHARBOR_LLM_RPM", "100000")
    truthful = evaluate("gemini")
    assert truthful["unreadable_answers"] == 0
    assert truthful["skills"] == evaluate("rules")["skills"]
    gemini.answer("adversarial")
    lying = evaluate("gemini")
    assert lying["evidence_valid_rate"] < 1.0
