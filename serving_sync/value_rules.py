"""What each repeated filter parameter accepts, in one place: serving_sync.search applies
these rules and web.contract writes them into the OpenAPI document, so the API's
behaviour and its contract cannot drift apart.

One rule for every group. A value given empty is ignored, as forms send them; at most
MAX_VALUES values may be given; a value has at most MAX_VALUE_CHARS characters and no
control character. An enumerated group takes exactly one of its values (anything else
is a 422 naming the parameter); a patterned one a value its pattern matches whole; a
free one (region, city, source, company, employment_type) any text, trimmed of spaces
(spaces alone are ignored too). Patterns use only syntax that ECMA-262 (JSON Schema) and Python read alike:
`[0-9]`, never `\\d`, which is every Unicode digit in Python.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import pycountry

from parsers.common import EMPLOYMENT_JOB_TYPES, JOB_TYPE_RULES
from pipeline.enrich.catalog import load_catalog
from pipeline.enrich.lexicon import ENUMS
from pipeline.normalize.employment import VOCABULARY
from pipeline.normalize.work_mode import REMOTE_ALIAS, WORK_MODES
from serving_sync.problems import Problem, problem

UNKNOWN = "unknown"
MAX_VALUES = 20
MAX_VALUE_CHARS = 200
MAX_SKILLS = 10
MAX_YEARS = 40
SENIORITY_VALUES = (*ENUMS["seniority"], UNKNOWN)
WORK_MODE_VALUES = WORK_MODES
REMOTE_VALUES = tuple(REMOTE_ALIAS)  # yes, hybrid, no and the work modes themselves
EMPLOYMENT_TYPE_VALUES = (*VOCABULARY, UNKNOWN)
# The labels the parsers assign (parsers/common.py), so a filter can name only real ones.
JOB_TYPES = (
    *dict.fromkeys(label for label, _ in (*JOB_TYPE_RULES, *EMPLOYMENT_JOB_TYPES)),
    UNKNOWN,
)
_YEAR = "([0-9]|[1-3][0-9]|40)"  # 0..MAX_YEARS
# "N", "N+" or "N-M" years (a range given high first reads as the same range).
YEARS_PATTERN = f"^{_YEAR}(?:(\\+)|-{_YEAR})?$"
YEARS = re.compile(YEARS_PATTERN)
CONTROL_PATTERN = "^[^\\x00-\\x1f\\x7f]*$"
CURRENCY_PATTERN = "^[A-Za-z]{3}$"
CONTROL = re.compile("[\\x00-\\x1f\\x7f]")


@dataclass(frozen=True)
class ValueRule:
    """What one repeated parameter accepts (the module's docstring: one rule for all)."""

    values: tuple[str, ...] | None = None  # enumerated: exactly one of these
    pattern: str | None = None  # patterned: matched whole
    max_items: int = MAX_VALUES
    # The refusal's code (serving_sync.problems) when it says what the values are
    # (enumerations too long to list); else the enumeration is listed.
    refusal: str = "value_not_one_of"
    refusal_args: tuple[tuple[str, str], ...] = ()

    @property
    def free(self) -> bool:
        return self.values is None and self.pattern is None

    def problem(self, value: str) -> Problem | None:
        """Why `value` is refused (None: accepted). `value` is non-empty."""
        if len(value) > MAX_VALUE_CHARS or CONTROL.search(value):
            return problem("value_too_long", n=MAX_VALUE_CHARS)
        refused = (self.values is not None and value not in self.values) or (
            self.pattern is not None and not re.fullmatch(self.pattern, value)
        )
        if not refused:
            return None
        args = dict(self.refusal_args, value=repr(value[:40]))
        if self.refusal == "value_not_one_of":
            args["values"] = ", ".join(self.values or ())
        return problem(self.refusal, **args)


@cache
def country_values() -> tuple[str, ...]:
    """ISO 3166-1 alpha-2 codes in capitals (with XK, Kosovo's), and "unknown"."""
    return (*sorted({c.alpha_2 for c in pycountry.countries} | {"XK"}), UNKNOWN)


@cache
def rules() -> dict[str, ValueRule]:
    """Each repeated filter parameter's rule; a name not here is free text."""
    return {
        "country": ValueRule(country_values(), refusal="not_country"),
        "remote": ValueRule(REMOTE_VALUES),
        "work_mode": ValueRule(WORK_MODE_VALUES),
        "job_type": ValueRule(JOB_TYPES),
        "seniority": ValueRule(SENIORITY_VALUES),
        "skill": ValueRule(
            tuple(sorted(load_catalog().skills)),
            max_items=MAX_SKILLS,
            refusal="not_skill",
        ),
        "experience_min": ValueRule(
            pattern=f"^({UNKNOWN}|{YEARS_PATTERN[1:-1]})$",
            refusal="not_years",
            refusal_args=(("max", str(MAX_YEARS)),),
        ),
    }


def rule(name: str) -> ValueRule:
    return rules().get(name, ValueRule())


def years_range(value: str) -> tuple[int, int]:
    """ "5" -> (5, 5), "2-4" -> (2, 4), "4-2" -> (2, 4), "10+" -> (10, 40); validated."""
    match = YEARS.match(value)
    assert match is not None
    low = int(match.group(1))
    if match.group(2):
        return low, MAX_YEARS
    high = int(match.group(3)) if match.group(3) else low
    return min(low, high), max(low, high)
