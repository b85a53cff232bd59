"""Why a request parameter is refused, as a code and its arguments.

The search's checks (serving_sync.search, serving_sync.value_rules) and the web app's own
say what is wrong with one of these. The API writes `text()`, the English sentence, as
its 422 `msg`; the pages look the same English template up in the web catalogue
(web/locale) and fill in the same arguments, so every refusal reads in the page's
language, and a new one cannot go untranslated unnoticed (tests/web/test_i18n.py checks
each code has its Vietnamese).

The templates are the catalogue's msgids: `make messages` extracts them from this file
(babel.cfg), marked with `N_` below.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


def N_(message: str) -> str:
    """Marks a template for the catalogue's extraction; the web translates it where it
    shows it (serving_sync cannot import the web's own marker)."""
    return message


# Each code's English template; a `%(name)s` is an argument the refusal carries.
TEMPLATES: Mapping[str, str] = MappingProxyType(
    {
        "once": N_("give it at most once"),
        "too_many_values": N_("at most %(n)s values"),
        "too_long": N_("at most %(n)s characters"),
        "value_too_long": N_("values must be at most %(n)s printable characters"),
        "whole_number": N_("must be a whole number"),
        "number": N_("must be a number"),
        "boolean": N_("must be true or false"),
        "between": N_("must be between %(low)s and %(high)s"),
        "one_of": N_("must be one of %(values)s"),
        "currency": N_("must be an ISO 4217 code such as EUR"),
        "needs_currency": N_("needs salary_currency (amounts are compared in it)"),
        "control_characters": N_("control characters are not allowed"),
        "other_sort": N_("belongs to another sort order"),
        "other_grouping": N_("belongs to another grouping"),
        "malformed": N_("malformed"),
        "not_valid_here": N_("is not valid here"),
        "unknown_parameter": N_("unknown parameter"),
        "value_not_one_of": N_("%(value)s is not one of %(values)s"),
        "not_country": N_("%(value)s is not an ISO 3166 alpha-2 code in capitals or 'unknown'"),
        "not_skill": N_("%(value)s is not a key of the skill catalogue"),
        "not_years": N_("%(value)s is not N, N-M, N+ (years, 0..%(max)s) or 'unknown'"),
    }
)
_ARGUMENT = re.compile(r"%\((\w+)\)s")


def arguments(template: str) -> frozenset[str]:
    """The names a template fills in."""
    return frozenset(_ARGUMENT.findall(template))


@dataclass(frozen=True)
class Problem:
    """One refusal: its code (a key of TEMPLATES) and the arguments its template names,
    exactly those (a refusal is never written with a hole or a stray value)."""

    code: str
    args: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.code not in TEMPLATES:
            raise ValueError(f"no refusal template for code {self.code!r}")
        given, named = frozenset(self.args), arguments(TEMPLATES[self.code])
        if given != named:
            raise ValueError(f"refusal {self.code!r} takes {sorted(named)}, got {sorted(given)}")
        object.__setattr__(self, "args", MappingProxyType(dict(self.args)))

    @property
    def template(self) -> str:
        return TEMPLATES[self.code]

    def text(self) -> str:
        """The refusal in English, as the API writes it."""
        return self.template % dict(self.args)


def problem(code: str, **args: object) -> Problem:
    """A Problem with its arguments as the text they are shown as."""
    return Problem(code, {name: str(value) for name, value in args.items()})


def one_of(values: tuple[str, ...]) -> Problem:
    """ "must be one of newest, relevance"."""
    return problem("one_of", values=", ".join(values))
