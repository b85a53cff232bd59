"""The pages' language: English or Vietnamese, chosen per request, and the strings, dates
and numbers in it.

The choice: `?lang=vi|en` in the URL wins (and sets a cookie, so the switch sticks),
then that cookie, then `Accept-Language` (q-values honoured), else English. The
catalogue is web/locale/vi/LC_MESSAGES/messages.po, compiled in memory when this module
is imported: there is no .mo file to go stale. English is the msgids themselves.

The request's language lives in a context variable set by the app's middleware, so the
templates' `_()`/`ngettext()` and the Python code that writes page text read it without
passing it around, and the Jinja environment is built once.
"""

from __future__ import annotations

import contextvars
import gettext as gettext_module
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

from babel.dates import format_date, format_datetime, format_skeleton, format_timedelta
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent
from babel.support import Translations
from markupsafe import escape

from serving_sync.problems import Problem, one_of, problem

LOCALES = ("en", "vi")
DEFAULT = "en"
PARAM = "lang"
COOKIE = "lang"
COOKIE_MAX_AGE_S = 365 * 24 * 3600
NAMES = {"en": "English", "vi": "Tiếng Việt"}
LOCALE_DIR = Path(__file__).parent / "locale"
# A day as each language writes it short: English keeps "3 Nov 2026"; Vietnamese uses
# its CLDR medium form, "3 thg 11, 2026".
_DAY_FORMATS = {"en": "d MMM y", "vi": "medium"}
_TIME_FORMATS = {"en": "d MMM y HH:mm 'UTC'", "vi": "HH:mm 'UTC', d MMM, y"}
_LANGUAGE_RANGE = re.compile(r"^\s*([A-Za-z]{1,8}|\*)(?:-[A-Za-z0-9]{1,8})*\s*$")


def _compiled(locale: str) -> gettext_module.NullTranslations:
    """The locale's catalogue, compiled from its .po in memory."""
    source = LOCALE_DIR / locale / "LC_MESSAGES" / "messages.po"
    if not source.exists():
        return gettext_module.NullTranslations()
    with source.open("rb") as po:
        catalog = read_po(po, locale=locale)
    binary = io.BytesIO()
    write_mo(binary, catalog)
    binary.seek(0)
    return Translations(binary)


TRANSLATIONS: dict[str, gettext_module.NullTranslations] = {
    locale: (gettext_module.NullTranslations() if locale == DEFAULT else _compiled(locale))
    for locale in LOCALES
}


@dataclass(frozen=True)
class Choice:
    """The request's language, and whether its URL named it (links then keep it)."""

    locale: str = DEFAULT
    from_url: bool = False


_ENGLISH = Choice()
_current: contextvars.ContextVar[Choice] = contextvars.ContextVar("ui_locale")


class InvalidLang(ValueError):
    """`lang` names no language the pages are written in."""

    def __init__(self, refusal: Problem) -> None:
        super().__init__(refusal.text())
        self.refusal = refusal


def choose(
    query: Mapping[str, list[str]], cookie: str | None, accept_language: str | None
) -> Choice:
    """The URL's `lang`, else the cookie's, else the best of `Accept-Language`, else
    English. A `lang` the pages do not speak is refused (as other enumerated
    parameters are); an unknown cookie is ignored (it may come from an older site)."""
    given = [v for v in query.get(PARAM, ()) if v != ""]
    if len(given) > 1:
        raise InvalidLang(problem("once"))
    if given:
        if given[0] not in LOCALES:
            raise InvalidLang(one_of(LOCALES))
        return Choice(given[0], from_url=True)
    if cookie in LOCALES:
        return Choice(cookie)
    return Choice(negotiate(accept_language))


def negotiate(header: str | None) -> str:
    """The first of LOCALES by `Accept-Language` preference: highest q first, the
    header's order among equals; `q=0` means "not this"; `*` takes the default."""
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate((header or "").split(",")):
        tag, _, params = part.partition(";")
        match = _LANGUAGE_RANGE.match(tag)
        if not match:
            continue
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > 0:
            ranked.append((-q, index, match.group(1).lower()))
    for _, _, primary in sorted(ranked):
        if primary == "*":
            return DEFAULT
        if primary in LOCALES:
            return primary
    return DEFAULT


def activate(choice: Choice) -> contextvars.Token[Choice]:
    return _current.set(choice)


def current() -> Choice:
    """The request's choice (English outside a request: scripts, the API's own code)."""
    return _current.get(_ENGLISH)


def locale() -> str:
    return current().locale


def gettext(message: str) -> str:
    return TRANSLATIONS[locale()].gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return TRANSLATIONS[locale()].ngettext(singular, plural, n)


def escaped_gettext(message: str) -> str:
    """gettext for the templates. Jinja takes what a newstyle gettext returns as markup
    (it fills in the arguments escaped), so the text is escaped here: a quote in a
    translation cannot end the attribute it is written in (`placeholder="e.g. "data
    engineer""` did), and the catalogue holds text, never markup."""
    return str(escape(gettext(message)))


def escaped_ngettext(singular: str, plural: str, n: int) -> str:
    return str(escape(ngettext(singular, plural, n)))


def N_(message: str) -> str:
    """Marks a string for the catalogue where it is defined (the name extraction looks
    for); it is translated where it is shown."""
    return message


# ---------------------------------------------------------------- links keep the choice


def link_pairs() -> list[tuple[str, str]]:
    """The parameter a link adds to keep the page's language: only when the URL named a
    language other than the default (the default needs no parameter: a cookie or the
    browser's preference chose the rest)."""
    choice = current()
    return [(PARAM, choice.locale)] if choice.from_url and choice.locale != DEFAULT else []


def localized(path: str) -> str:
    """`path` (with or without a query) carrying the page's language, when a link must."""
    extra = link_pairs()
    if not extra:
        return path
    base, _, query = path.partition("?")
    return base + "?" + urlencode([*_without_lang(query), *extra])


def switch_url(path: str, query: str, target: str) -> str:
    """This page in `target`: the same address with `lang` set (the switch link)."""
    return path + "?" + urlencode([*_without_lang(query), (PARAM, target)])


def alternates(path: str, query: str) -> list[tuple[str, str]]:
    """This page in each language, as `<link rel="alternate" hreflang>` and the sitemap
    name them: (hreflang, address). English, the default, is the address without `lang`
    (as the canonical links write it), which is also the x-default: the address whose
    language the cookie or the browser chooses, English for a crawler that asks none.
    Every other language is the address with its `lang`, which always answers in it."""
    pairs = _without_lang(query)
    plain = path + ("?" + urlencode(pairs) if pairs else "")
    found = [(DEFAULT, plain)]
    found += [(other, switch_url(path, query, other)) for other in LOCALES if other != DEFAULT]
    return [*found, ("x-default", plain)]


def _without_lang(query: str) -> list[tuple[str, str]]:
    return [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != PARAM]


# ---------------------------------------------------------------- numbers and dates


def number(value: int | float | Decimal, decimals: int = 0) -> str:
    pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
    return format_decimal(value, format=pattern, locale=locale())


def percent(share: float) -> str:
    return format_percent(share, format="#,##0%", locale=locale())


def day(value: date | datetime) -> str:
    return format_date(value, _DAY_FORMATS[locale()], locale=locale())


def month(value: str) -> str:
    """A "YYYY-MM" month as a reader names it: "December 2026", "tháng 12 năm 2026".
    Anything else is shown as it is (a label never fails a page)."""
    try:
        first = date.fromisoformat(f"{value}-01")
    except ValueError:
        return value
    return format_skeleton("yMMMM", first, locale=locale())


def moment_utc(value: datetime) -> str:
    """A day and time in UTC: "3 Nov 2026 14:05 UTC" (a naive time is taken as UTC)."""
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    return format_datetime(value, _TIME_FORMATS[locale()], tzinfo=UTC, locale=locale())


def ago(count: int, unit: str) -> str:
    """ "3 days ago" / "3 ngày trước" in exactly `unit` (day, week, month, year): the
    caller chose the unit a reader would say."""
    seconds = {"day": 86400, "week": 7 * 86400, "month": 30 * 86400, "year": 365 * 86400}
    delta = timedelta(seconds=-count * seconds[unit])
    # A threshold no count reaches makes Babel use the granularity unit as it is.
    return format_timedelta(
        delta, granularity=unit, threshold=1e12, add_direction=True, locale=locale()
    )
