"""The evidence checker: every value stands on the posting's own words, or is rejected
with a reason."""

from __future__ import annotations

import pytest

from pipeline.enrich.catalog import load_catalog
from pipeline.enrich.evidence import Checker, locate
from pipeline.enrich.rules import baseline
from pipeline.enrich.schema import AnswerError, Extraction, parse_answer
from pipeline.enrich.text import flat, normalize

TEXT = normalize(
    "Senior Data Engineer\nRemote - US\n"
    "Requirements:\n- 3–5 years of experience with Python and Apache Airflow\n"
    "- Bachelor\u2019s degree in a quantitative field\nThis is a full-time position.\n"
    "Nice to have: Kafka\nLàm việc từ xa, ưu tiên ứng viên biết lập trình Go."
)


@pytest.fixture(scope="module")
def checker() -> Checker:
    return Checker(load_catalog())


def check(checker: Checker, **fields):
    base = {"posting_id": "1"} | fields
    return checker.check(flat(TEXT), Extraction.model_validate(base))


def reasons(result) -> dict[str, str]:
    return {r.field: r.reason for r in result.rejected}


def test_the_rules_baseline_passes_its_own_checker(checker) -> None:
    result = checker.check(
        flat(TEXT), Extraction.model_validate(baseline(TEXT, load_catalog(), "1"))
    )
    assert result.rejected == ()
    assert result.values["experience_min"].value == 3
    assert result.values["experience_max"].value == 5
    assert result.values["work_mode"].value == "remote"
    assert result.values["education"].value == "bachelor"
    assert {s.key for s in result.skills["skills_required"]} == {"python", "airflow"}
    assert {s.key for s in result.skills["skills_preferred"]} == {"kafka", "go"}


def test_excerpts_match_after_normalisation_with_offsets_in_normalised_text(checker) -> None:
    # typographic dash and quote, doubled spaces, a line break written as a space
    result = check(
        checker,
        experience_min={"evidence": "3-5  years", "value": 3},
        education={"evidence": "Bachelor's degree", "value": "bachelor"},
    )
    value = result.values["experience_min"]
    assert flat(TEXT)[value.start : value.end] == "3-5 years"
    assert locate(flat(TEXT), "US Requirements:") is not None


def test_a_hallucinated_excerpt_is_rejected(checker) -> None:
    result = check(checker, experience_min={"evidence": "7+ years of experience", "value": 7})
    assert reasons(result) == {"experience_min": "excerpt_not_found"}
    assert "experience_min" not in result.values


def test_no_fuzzy_match_counts_as_evidence(checker) -> None:
    result = check(checker, work_mode={"evidence": "remote - us", "value": "remote"})
    assert reasons(result) == {"work_mode": "excerpt_not_found"}


def test_an_excerpt_that_does_not_support_the_value_is_rejected(checker) -> None:
    result = check(
        checker,
        experience_min={"evidence": "3–5 years", "value": 4},
        work_mode={"evidence": "full-time position", "value": "remote"},
        skills_required=[{"evidence": "Python", "value": "Rust"}],
    )
    assert reasons(result) == {
        "experience_min": "excerpt_does_not_support",
        "work_mode": "excerpt_does_not_support",
        "skills_required": "excerpt_does_not_support",
    }


def test_out_of_range_years_and_min_above_max_are_rejected(checker) -> None:
    assert reasons(check(checker, experience_max={"evidence": "5 years", "value": 55})) == {
        "experience_max": "out_of_range"
    }
    result = check(
        checker,
        experience_min={"evidence": "5 years", "value": 5},
        experience_max={"evidence": "3–5", "value": 3},
    )
    # "3–5" alone says no years: the max is unsupported before min > max is even asked
    assert reasons(result)["experience_max"] == "excerpt_does_not_support"


def test_min_greater_than_max_rejects_both(checker) -> None:
    text = normalize("Minimum 5 years of experience, up to 3 years in a lead role")
    answer = Extraction.model_validate(
        {
            "experience_min": {"evidence": "Minimum 5 years", "value": 5},
            "experience_max": {"evidence": "up to 3 years", "value": 3},
        }
    )
    result = checker.check(flat(text), answer)
    assert [r.reason for r in result.rejected] == ["min_greater_than_max"] * 2
    assert result.values == {}


def test_an_enum_value_outside_the_schema_is_rejected(checker) -> None:
    result = check(checker, seniority={"evidence": "Senior", "value": "ninja"})
    assert reasons(result) == {"seniority": "value_outside_schema"}


def test_a_value_without_evidence_is_rejected_and_missing_stays_unknown(checker) -> None:
    result = check(checker, education={"evidence": None, "value": "phd"})
    assert reasons(result) == {"education": "no_evidence"}
    assert "seniority" not in result.values


def test_unmapped_labels_are_kept_with_evidence_never_invented_into_keys(checker) -> None:
    result = check(checker, skills_required=[{"evidence": "quantitative field", "value": "Quant"}])
    assert [(u.key, u.value, u.evidence) for u in result.unmapped] == [
        (None, "Quant", "quantitative field")
    ]
    assert result.skills["skills_required"] == ()


def test_vietnamese_lexicon_supports_enum_values(checker) -> None:
    result = check(checker, work_mode={"evidence": "Làm việc từ xa", "value": "remote"})
    assert result.values["work_mode"].evidence == "Làm việc từ xa"


def test_structural_problems_fail_the_answer_or_the_member() -> None:
    with pytest.raises(AnswerError, match="empty"):
        parse_answer("", ["1"])
    with pytest.raises(AnswerError, match="not the requested JSON"):
        parse_answer('{"postings": [', ["1"])
    members, errors, stray = parse_answer(
        '{"postings": [{"posting_id": "1", "experience_min": {"evidence": "x", "value": "five"}},'
        ' {"posting_id": "9"}, {"posting_id": "2"}]}',
        ["1", "2"],
    )
    assert set(members) == {"2"}
    assert set(errors) == {"1"}
    assert stray == 1
