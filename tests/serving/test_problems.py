"""Refusals as a code and arguments (serving_sync.problems): the English the API writes
is the template filled in, and a refusal with an unknown code or with a hole or a stray
argument cannot be made."""

from __future__ import annotations

import pytest

from serving_sync import search
from serving_sync.problems import TEMPLATES, Problem, arguments, problem
from serving_sync.value_rules import rule


def test_the_english_text_is_the_template_filled_in() -> None:
    assert problem("between", low=1, high=50).text() == "must be between 1 and 50"
    assert problem("once").text() == "give it at most once"


def test_an_unknown_code_is_refused() -> None:
    with pytest.raises(ValueError, match="no refusal template"):
        Problem("a_brand_new_refusal")


def test_a_missing_or_stray_argument_is_refused() -> None:
    with pytest.raises(ValueError, match="takes"):
        problem("between", low=1)
    with pytest.raises(ValueError, match="takes"):
        problem("once", n=3)


def test_every_template_names_its_arguments_as_placeholders_only() -> None:
    for code, template in TEMPLATES.items():
        filled = template % dict.fromkeys(arguments(template), "X")
        assert "%" not in filled, code


@pytest.mark.parametrize(
    ("raw", "param", "code", "text"),
    [
        ({"sort": ["oldest"]}, "sort", "one_of", "must be one of newest, relevance"),
        ({"limit": ["500"]}, "limit", "between", "must be between 1 and 50"),
        ({"q": ["a", "b"]}, "q", "once", "give it at most once"),
        (
            {"country": ["ZZ"]},
            "country",
            "not_country",
            "'ZZ' is not an ISO 3166 alpha-2 code in capitals or 'unknown'",
        ),
        (
            {"work_mode": ["moon"]},
            "work_mode",
            "value_not_one_of",
            "'moon' is not one of onsite, hybrid, remote, unknown",
        ),
        ({"salary_min": ["10"]}, "salary_min", "needs_currency", None),
        ({"cursor": ["!!"]}, "cursor", "malformed", "malformed"),
    ],
)
def test_the_search_refuses_with_a_code_and_the_same_english(
    raw: dict[str, list[str]], param: str, code: str, text: str | None
) -> None:
    with pytest.raises(search.InvalidParameter) as refused:
        search.parse_request(raw)
    assert refused.value.param == param
    assert refused.value.refusal.code == code
    assert refused.value.problem == refused.value.refusal.text()
    if text is not None:
        assert refused.value.problem == text


def test_a_value_rule_names_the_refused_value_shortened() -> None:
    found = rule("seniority").problem("x" * 60)
    assert found is not None
    assert found.args["value"] == repr("x" * 40)
