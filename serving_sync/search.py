"""Search, filters, facets and stats over the serving schema, as the web app asks them.

The SQL lives in serving_sync/sql/functions/ (`web_search.sql`, `web_facet.sql`, ...): the
web role may only call those functions. This module validates what a user typed into
bounded, typed values and passes them as parameters; no SQL is ever built from input.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

import psycopg

from pipeline.normalize.employment import employment_types
from pipeline.normalize.salary import converted, reference_rates
from pipeline.normalize.work_mode import REMOTE_ALIAS
from serving_sync import highlight, spelling
from serving_sync.companies import slug as company_slug
from serving_sync.dates import DateKind, date_kind
from serving_sync.problems import Problem, one_of, problem
from serving_sync.text import fold
from serving_sync.value_rules import (  # noqa: F401  (the vocabularies, named here too)
    CONTROL,
    CURRENCY_PATTERN,
    EMPLOYMENT_TYPE_VALUES,
    JOB_TYPES,
    MAX_SKILLS,
    MAX_VALUE_CHARS,
    MAX_VALUES,
    MAX_YEARS,
    REMOTE_VALUES,
    SENIORITY_VALUES,
    UNKNOWN,
    WORK_MODE_VALUES,
    ValueRule,
    rule,
    years_range,
)

BLANK = ValueRule()  # a blank value is ignored if it is short and printable

MAX_Q_CHARS = 200
MAX_LIMIT = 50
DEFAULT_LIMIT = 20
MAX_DAYS = 3650
RELEVANCE_CANDIDATES = 1000
# The shortest prefix, in folded word characters; serving.typed_tsquery holds the same
# minimum for each OR alternative (it applies the prefixes this module allows).
PREFIX_MIN_CHARS = 3

# The location and parse groups: filters and facets, counted in one shared pass
# (serving.web_facets_all). Work mode is one of them: the published value is the
# parser's field, else the location text, else the enrichment (docs/data-model.md).
GROUPS = (
    "country",
    "region",
    "city",
    "work_mode",
    "job_type",
    "employment_type",
    "source",
    "company",
)
# The leading lists of serving.web_filter, in its order. `remote` is no filter of its
# own any more: the parameter is an alias of work_mode (REMOTE_ALIAS), always NULL here.
FILTER_ROW_GROUPS = (
    "country", "region", "city", "remote", "job_type", "employment_type", "source", "company",
)  # fmt: skip
# The enrichment's groups: always counted apart (serving.web_facet),
# never in the shared single pass of the location and parse groups.
ENRICH_GROUPS = ("skill", "experience", "seniority")
FACET_GROUPS = GROUPS
# What the search page shows: the filter groups, then the enrichment's.
PAGE_FACET_GROUPS = (*GROUPS, *ENRICH_GROUPS)
STATS_GROUPS = ("country", "work_mode", "job_type", "employment_type", "source", "company", "month")
# "enrichment": extracted or not, the denominator of "not extracted" in the stats.
ENRICH_STATS_GROUPS = (*ENRICH_GROUPS, "enrichment")
# A posting can have several (skills: several keys; experience: every band it overlaps).
ARRAY_GROUPS = frozenset({"country", "region", "city", "employment_type", "skill", "experience"})
# A group's filter parameter, where the two names differ.
GROUP_PARAMS = {"experience": "experience_min"}
SKILL_FIELDS = ("skills_required", "skills_preferred")
SKILL_MATCHES = ("any", "all")
SKILL_SCOPES = ("required", "all")
# The experience bands of the facet (serving.experience_bands); any "N", "N-M" or "N+"
# is also accepted as a filter value.
EXPERIENCE_BANDS = ("0-1", "2-4", "5-9", "10+")
SORTS = ("newest", "relevance")
# How the list is grouped beyond duplicate listings: "none" (the default) lists every
# match; "company" lists at most COMPANY_CAP postings of each company, its first ones in
# the list's order, over the whole list (not per page: see _company_page), and its last
# listed one says how many more it has ("N more at Acme", more_at_company).
GROUPINGS = ("none", "company")
COMPANY_CAP = 3
# A grouped page walks at most this many of web_search's pages (MAX_LIMIT + 1 rows each)
# looking for postings of companies not yet listed 3 times: deep in a list one large
# company fills, the page may list fewer than `limit` and goes on from where it stopped.
COMPANY_WALK_PAGES = 4
# The time the "N more" counts of one page share (facet bitmaps: milliseconds; past it
# the count is null, and the page says "More at Acme" without a number).
MORE_COUNT_BUDGET_MS = 500
_CURRENCY = re.compile(CURRENCY_PATTERN)
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class InvalidParameter(ValueError):
    """A request parameter that cannot be used; says which and why (HTTP 422): `refusal`
    as a code and arguments (the pages translate it), `problem` its English text (the
    API's `msg`)."""

    def __init__(self, param: str, refusal: Problem) -> None:
        super().__init__(f"{param}: {refusal.text()}")
        self.param = param
        self.refusal = refusal
        self.problem = refusal.text()


@dataclass(frozen=True)
class Filters:
    q: str = ""
    country: tuple[str, ...] = ()
    region: tuple[str, ...] = ()
    city: tuple[str, ...] = ()
    work_mode: tuple[str, ...] = ()  # with the `remote` parameter's values (its alias)
    job_type: tuple[str, ...] = ()
    employment_type: tuple[str, ...] = ()
    source: tuple[str, ...] = ()
    company: tuple[str, ...] = ()
    posted_within_days: int | None = None
    # With posted_within_days: also the postings whose age is unknown ("listed since").
    include_undated: bool = False
    has_salary: bool | None = None
    salary_min: Decimal | None = None
    salary_currency: str | None = None
    skill: tuple[str, ...] = ()
    skill_match: str = "any"
    skill_scope: str = "required"
    experience_min: tuple[str, ...] = ()
    seniority: tuple[str, ...] = ()
    # The query as typed, never corrected for typos ("search instead for ...").
    verbatim: bool = False

    def values(self, group: str) -> tuple[str, ...]:
        if group in ("enrichment", "remote"):  # a stats group; an alias folded into work_mode
            return ()
        return getattr(self, GROUP_PARAMS.get(group, group))

    def as_params(self) -> list[tuple[str, str]]:
        """The filters as (name, value) pairs for a URL: repeated names mean OR."""
        pairs: list[tuple[str, str]] = [("q", self.q)] if self.q else []
        for group in GROUPS:
            pairs.extend((group, value) for value in self.values(group))
        for name in ("posted_within_days", "salary_min", "salary_currency"):
            if getattr(self, name) is not None:
                pairs.append((name, str(getattr(self, name))))
        if self.include_undated:
            pairs.append(("include_undated", "true"))
        if self.has_salary is not None:
            pairs.append(("has_salary", "true" if self.has_salary else "false"))
        for name in ("skill", "experience_min", "seniority"):
            pairs.extend((name, value) for value in getattr(self, name))
        if self.skill and self.skill_match != "any":
            pairs.append(("skill_match", self.skill_match))
        if self.skill and self.skill_scope != "required":
            pairs.append(("skill_scope", self.skill_scope))
        if self.verbatim and self.q:
            pairs.append(("verbatim", "true"))
        return pairs

    def experience_ranges(self) -> list[tuple[int, int]] | None:
        """The selected year ranges, inclusive (None: no range selected)."""
        ranges = [years_range(v) for v in self.experience_min if v != UNKNOWN]
        return ranges or None


@dataclass(frozen=True)
class Cursor:
    """Where the previous page ended: its sort, last sort key and id. Newest first, `at`
    None is a posting of unknown age (the list's tail, sorted by id alone)."""

    sort: str
    id: int
    at: datetime | None = None
    rank: float | None = None
    # How many postings the pages before this one listed (None: a cursor written before
    # positions were kept), so a page can say "21–40 of 408".
    offset: int | None = None
    # Where the pages before the previous one started, oldest first (each with no `back`
    # of its own): a keyset list only reads forward, so "Previous" follows the way taken.
    # The last BACK_PAGES are kept; the first page needs none (it has no cursor).
    back: tuple[Cursor, ...] = ()
    # The list's grouping (GROUPINGS): a position in one list is none in another.
    group: str = "none"

    def position(self) -> Cursor:
        return replace(self, back=())


@dataclass(frozen=True)
class SearchRequest:
    filters: Filters = field(default_factory=Filters)
    sort: str = "newest"
    cursor: Cursor | None = None
    limit: int = DEFAULT_LIMIT
    group: str = "none"


@dataclass(frozen=True)
class Page:
    items: tuple[dict[str, Any], ...]
    next_cursor: str | None
    # The query the page answers when the one typed was corrected for typos.
    corrected_query: str | None = None
    # The postings the page lists, duplicates grouped with their first one among them.
    listed: int = 0
    # The way back: has_previous with previous_cursor None is the first page.
    has_previous: bool = False
    previous_cursor: str | None = None


@dataclass(frozen=True)
class GroupCounts:
    """One facet or distribution: buckets (unknown among them), and what they are out of."""

    group: str
    buckets: tuple[tuple[str, int], ...]
    denominator: int
    unknown: int
    other: int  # postings in buckets cut off by top N (single-valued groups only)

    @property
    def coverage(self) -> float | None:
        """The share of postings with a known value."""
        if self.denominator == 0:
            return None
        return round((self.denominator - self.unknown) / self.denominator, 4)


@dataclass(frozen=True)
class Counts:
    """Facets or stats; a group that ran past its budget is None ("unavailable")."""

    total: int | None
    computed_at: datetime
    groups: Mapping[str, GroupCounts | None]


# ---------------------------------------------------------------- validation


def _one(raw: Mapping[str, Sequence[str]], name: str) -> str | None:
    values = [v for v in raw.get(name, ()) if v != ""]
    if len(values) > 1:
        raise InvalidParameter(name, problem("once"))
    return values[0] if values else None


def _given(raw: Mapping[str, Sequence[str]], *names: str) -> list[str]:
    """The values of repeated parameters under the one rule of serving_sync.value_rules:
    empty ones dropped (free text: blank ones), each checked, free text trimmed."""
    kept = []
    for n in names:
        if len(raw.get(n, ())) > rule(n).max_items:
            raise InvalidParameter(n, problem("too_many_values", n=rule(n).max_items))
        for value in raw.get(n, ()):
            blank = value == "" or (rule(n).free and not value.strip(" "))
            refused = (BLANK if blank else rule(n)).problem(value)
            if refused is not None:
                raise InvalidParameter(n, refused)
            if blank:
                continue
            kept.append(REMOTE_ALIAS[value] if n == "remote" else value.strip(" "))
    return list(dict.fromkeys(kept))


def _group_values(raw: Mapping[str, Sequence[str]], group: str) -> tuple[str, ...]:
    names = ("work_mode", "remote") if group == "work_mode" else (group,)
    cleaned = _given(raw, *names)
    if group == "employment_type":
        # Any spelling reads as the published vocabulary ("Full-time" is full_time), so
        # a link made before the vocabulary still selects what it meant.
        cleaned = [t for v in cleaned for t in ((v,) if v == UNKNOWN else employment_types(v))]
    return tuple(dict.fromkeys(cleaned))


def _integer(raw: Mapping[str, Sequence[str]], name: str, low: int, high: int) -> int | None:
    text = _one(raw, name)
    if text is None:
        return None
    try:
        number = int(text)
    except ValueError:
        raise InvalidParameter(name, problem("whole_number")) from None
    if not low <= number <= high:
        raise InvalidParameter(name, problem("between", low=low, high=high))
    return number


def _boolean(raw: Mapping[str, Sequence[str]], name: str) -> bool | None:
    text = _one(raw, name)
    if text is None:
        return None
    if text.lower() in _TRUE:
        return True
    if text.lower() in _FALSE:
        return False
    raise InvalidParameter(name, problem("boolean"))


def _salary(raw: Mapping[str, Sequence[str]]) -> tuple[Decimal | None, str | None]:
    text, currency = _one(raw, "salary_min"), _one(raw, "salary_currency")
    if currency is not None and not _CURRENCY.match(currency):
        raise InvalidParameter("salary_currency", problem("currency"))
    if text is None:
        return None, currency.upper() if currency else None
    try:
        amount = Decimal(text)
    except InvalidOperation:
        raise InvalidParameter("salary_min", problem("number")) from None
    if not amount.is_finite() or amount < 0 or amount > Decimal(10) ** 12:
        raise InvalidParameter("salary_min", problem("between", low=0, high="10^12"))
    if currency is None:
        raise InvalidParameter("salary_min", problem("needs_currency"))
    return amount, currency.upper()


def _skills(raw: Mapping[str, Sequence[str]]) -> tuple[str, str, tuple[str, ...]]:
    keys = tuple(_given(raw, "skill"))
    match = _one(raw, "skill_match") or "any"
    if match not in SKILL_MATCHES:
        raise InvalidParameter("skill_match", one_of(SKILL_MATCHES))
    scope = _one(raw, "skill_scope") or "required"
    if scope not in SKILL_SCOPES:
        raise InvalidParameter("skill_scope", one_of(SKILL_SCOPES))
    return match, scope, keys


def parse_filters(raw: Mapping[str, Sequence[str]]) -> Filters:
    """Filters from query parameters (each name -> every value given for it)."""
    q = _one(raw, "q") or ""
    if len(q) > MAX_Q_CHARS:
        raise InvalidParameter("q", problem("too_long", n=MAX_Q_CHARS))
    if CONTROL.search(q):
        raise InvalidParameter("q", problem("control_characters"))
    q = q.strip()
    salary_min, currency = _salary(raw)
    skill_match, skill_scope, skills = _skills(raw)
    return Filters(
        q=q,
        **{group: _group_values(raw, group) for group in GROUPS},
        posted_within_days=_integer(raw, "posted_within_days", 1, MAX_DAYS),
        include_undated=bool(_boolean(raw, "include_undated")),
        has_salary=_boolean(raw, "has_salary"),
        salary_min=salary_min,
        salary_currency=currency,
        skill=skills,
        skill_match=skill_match,
        skill_scope=skill_scope,
        experience_min=tuple(_given(raw, "experience_min")),
        seniority=tuple(_given(raw, "seniority")),
        verbatim=bool(_boolean(raw, "verbatim")),
    )


def parse_request(raw: Mapping[str, Sequence[str]]) -> SearchRequest:
    filters = parse_filters(raw)
    sort = _one(raw, "sort") or "newest"
    if sort not in SORTS:
        raise InvalidParameter("sort", one_of(SORTS))
    limit = _integer(raw, "limit", 1, MAX_LIMIT)
    text = _one(raw, "cursor")
    cursor = decode_cursor(text) if text else None
    if cursor and cursor.sort != effective_sort(filters, sort):
        raise InvalidParameter("cursor", problem("other_sort"))
    group = _one(raw, "group") or "none"
    if group not in GROUPINGS:
        raise InvalidParameter("group", one_of(GROUPINGS))
    if cursor and cursor.group != group:
        raise InvalidParameter("cursor", problem("other_grouping"))
    return SearchRequest(filters, sort, cursor, limit or DEFAULT_LIMIT, group)


def effective_sort(filters: Filters, sort: str) -> str:
    """Relevance needs words to rank by; without a query it is the newest order."""
    return "relevance" if sort == "relevance" and filters.q else "newest"


# Terms as serving.typed_tsquery reads them: an -exclusion or "phrase", or a word.
_TERMS = re.compile(r'-?"[^"]*"|\S+')


def _prefix_terms(q: str) -> list[str]:
    """The words of `q` that also match as a prefix (serving.typed_tsquery): the last
    plain word (not quoted, not excluded, not the OR operator) of each OR alternative,
    of at least 3 folded characters, wherever exclusions and phrases stand. None after
    a trailing space (the word is finished) or with unbalanced quotes."""
    if not q or q.rstrip() != q or q.count('"') % 2 == 1:
        return []
    found: list[str] = []
    last: str | None = None
    for term in [*_TERMS.findall(q), "or"]:
        if term.lower() == "or":
            if last is not None and len(re.sub(r"\W", "", fold(last))) >= PREFIX_MIN_CHARS:
                found.append(last)
            last = None
        elif not term.startswith('"') and not (term.startswith("-") and len(term) > 1):
            last = term
    return found


def prefix_applies(q: str) -> bool:
    """Does any word of `q` also match as a prefix (see _prefix_terms)?"""
    return bool(_prefix_terms(q))


# ---------------------------------------------------------------- cursors


# How many earlier pages a cursor remembers for "Previous" (each costs ~60 characters of
# URL); further back, a page offers the first page instead.
BACK_PAGES = 8
MAX_CURSOR_CHARS = 1200


def encode_cursor(cursor: Cursor) -> str:
    body = _position_body(cursor)
    if cursor.back:
        body["b"] = [_position_body(c) for c in cursor.back[-BACK_PAGES:]]
    raw = json.dumps(body, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _position_body(cursor: Cursor) -> dict[str, Any]:
    body: dict[str, Any] = {"s": cursor.sort, "i": cursor.id}
    if cursor.at is not None:
        body["t"] = cursor.at.isoformat()
    elif cursor.sort == "newest":
        body["u"] = 1  # after a posting of unknown age
    if cursor.rank is not None:
        body["r"] = cursor.rank
    if cursor.offset is not None:
        body["n"] = cursor.offset
    if cursor.group != "none":
        body["g"] = cursor.group
    return body


def decode_cursor(text: str) -> Cursor:
    """An opaque cursor back into typed values; anything else is a 422, never a 500."""
    if len(text) > MAX_CURSOR_CHARS:
        raise InvalidParameter("cursor", problem("malformed"))
    try:
        body = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        back = body.get("b", [])
        if type(back) is not list or len(back) > BACK_PAGES:
            raise ValueError
        cursor = _position(body)
        history = tuple(_position(entry) for entry in back)
        if any(c.sort != cursor.sort or c.group != cursor.group for c in history):
            raise ValueError
    except (ValueError, TypeError, KeyError, binascii.Error, UnicodeDecodeError):
        raise InvalidParameter("cursor", problem("malformed")) from None
    return replace(cursor, back=history)


def _position(body: Any) -> Cursor:
    """One page's start from its JSON: ValueError, TypeError or KeyError when malformed."""
    sort, job_id = body["s"], body["i"]
    if sort not in SORTS or type(job_id) is not int or not 0 <= job_id < 2**63:
        raise ValueError
    at = datetime.fromisoformat(body["t"]) if "t" in body else None
    rank = float(body["r"]) if "r" in body else None
    if rank is not None and not abs(rank) < 1e30:  # also rejects nan and inf
        raise ValueError
    offset = body.get("n")
    if offset is not None and (type(offset) is not int or not 0 < offset < 2**31):
        raise ValueError
    group = body.get("g", "none")
    if group not in GROUPINGS:
        raise ValueError
    unknown_age = body.get("u") == 1 and at is None
    if (sort == "newest" and at is None and not unknown_age) or (
        sort == "relevance" and rank is None
    ):
        raise ValueError
    return Cursor(sort, job_id, at, rank, offset, group=group)


def previous_page(cursor: Cursor | None, limit: int) -> tuple[bool, str | None]:
    """(is there a way back, the previous page's cursor: None is the first page). Past
    the pages a cursor remembers there is none but the first page."""
    if cursor is None:
        return False, None
    if cursor.back:
        return True, encode_cursor(replace(cursor.back[-1], back=cursor.back[:-1]))
    if cursor.offset is not None and cursor.offset <= limit:
        return True, None
    return False, None


# ---------------------------------------------------------------- queries

# The filters as one serving.web_filter value (its fields in this order), from the
# arguments filter_args() gives after the text query and its prefix flag.
FILTERS_SQL = (
    "ROW(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::int, %s::boolean, %s::numeric, %s::text"
    # skill, skill_match, skill_scope, experience ranges, experience unknown, seniority, work_mode
    ", %s::text[], %s::text, %s::text, %s::int4range[], %s::boolean, %s::text[], %s::text[]"
    # include_undated, salary_min_eur
    ", %s::boolean, %s::numeric"
    ")::serving.web_filter"
)
_FILTER_SQL = f"%s, %s, {FILTERS_SQL}"
SEARCH_SQL = f"SELECT * FROM serving.web_search({_FILTER_SQL}, %s, %s::timestamptz, %s::real, %s::bigint, %s, %s)"
FACET_SQL = f"SELECT * FROM serving.web_facet(%s, {_FILTER_SQL}, %s)"
FACETS_ALL_SQL = f"SELECT * FROM serving.web_facets_all({_FILTER_SQL}, %s)"
FACET_BITS_SQL = f"SELECT * FROM serving.web_facet_bits({_FILTER_SQL}, %s::text[], %s)"
# What the bitmaps count (serving.web_facet_bits).
BITS_GROUPS = frozenset({*GROUPS, "month", *ENRICH_STATS_GROUPS})


def filter_args(filters: Filters) -> tuple[Any, ...]:
    """The arguments of the text query and the filters every web_* function takes after
    its own: the query, its prefix flag, then the fields of FILTERS_SQL."""
    arrays = tuple(list(filters.values(g)) or None for g in FILTER_ROW_GROUPS)
    return (
        filters.q or None,
        prefix_applies(filters.q),
        *arrays,
        filters.posted_within_days,
        filters.has_salary,
        filters.salary_min,
        filters.salary_currency,
        list(filters.skill) or None,
        filters.skill_match,
        filters.skill_scope,
        _ranges_literal(filters.experience_ranges()),
        True if UNKNOWN in filters.experience_min else None,
        list(filters.seniority) or None,
        list(filters.work_mode) or None,
        filters.include_undated or None,
        _in_eur(filters.salary_min, filters.salary_currency),
    )


def _in_eur(amount: Decimal | None, currency: str | None) -> Decimal | None:
    """salary_min in euros at the shipped reference rates (None: a currency they lack,
    so postings in other currencies are not compared with it)."""
    return None if amount is None else reference_rates().to_eur(amount, currency)


def _ranges_literal(ranges: list[tuple[int, int]] | None) -> str | None:
    """Inclusive year ranges as an int4range[] literal (integers only, validated)."""
    if ranges is None:
        return None
    return "{" + ",".join(f'"[{low},{high}]"' for low, high in ranges) + "}"


SPELLING_SQL = "SELECT * FROM serving.web_spelling(%s, %s, %s)"


@dataclass(frozen=True)
class _SpellCheck:
    """What typo correction looks up for a query: its correctable words (serving_sync.
    spelling), their folded forms, and the folded words that take the prefix."""

    words: tuple[spelling.Word, ...]
    folded: tuple[str, ...]
    prefixes: tuple[str, ...]


def _spell_check(filters: Filters) -> _SpellCheck | None:
    """None when nothing could be corrected (no such word, or the query is verbatim)."""
    words = [] if filters.verbatim else spelling.correctable_words(filters.q)
    if not words:
        return None
    prefixes = tuple(fold(term) for term in _prefix_terms(filters.q))
    folded = tuple(dict.fromkeys(w.folded for w in words))
    return _SpellCheck(tuple(words), folded, prefixes)


def spelled(conn: psycopg.Connection, filters: Filters) -> Filters | None:
    """The filters with the query's typos corrected (serving_sync.spelling), or None when
    there is nothing to correct, the user asked for the query verbatim, or no word of
    the lexicon is near enough."""
    check = _spell_check(filters)
    if check is None:
        return None
    # First which words no posting has (and the long ones' candidates); only then the
    # short ones' one-edit variants, a few hundred each, for those alone.
    rows = conn.execute(SPELLING_SQL, (list(check.folded), list(check.prefixes), None)).fetchall()
    return _corrected(conn, filters, check, rows)


def _corrected(
    conn: psycopg.Connection,
    filters: Filters,
    check: _SpellCheck,
    rows: Sequence[Mapping[str, Any]],
) -> Filters | None:
    """The correction from web_spelling's first answer (`rows`: the unknown words as
    `word`, the long ones' candidates), asking for the short words' variants."""
    unknown = [r["word"] for r in rows if r["word"] is not None]
    edits = spelling.lookup_edits([w for w in check.words if w.folded in unknown])
    found = list(rows)
    if edits:
        found += conn.execute(SPELLING_SQL, ([], [], edits)).fetchall()
    candidates = {r["candidate"]: r["share"] for r in found if r["candidate"] is not None}
    corrections = {}
    for word in unknown:
        nearest = spelling.nearest(word, candidates)
        if nearest is not None:
            corrections[word] = nearest
    if not corrections:
        return None
    return replace(filters, q=spelling.corrected(filters.q, list(check.words), corrections))


def search(conn: psycopg.Connection, request: SearchRequest) -> Page:
    """One page, fetching one row more than asked to know whether another follows.
    The query is corrected for typos first (unless verbatim), so every page of a list
    answers the same corrected query. The list's page is one call (serving.web_page):
    the spelling check, its rows and their details; only a query with a word no
    posting has takes another (the correction, then the page of the corrected query)."""
    if request.group == "company":
        corrected = spelled(conn, request.filters)
        if corrected is None:
            return _company_page(conn, request)
        page = _company_page(conn, replace(request, filters=corrected))
        return replace(page, corrected_query=corrected.q)
    check = _spell_check(request.filters)
    rows = _list_rows(conn, request, check)
    if check is None or not rows or rows[0]["id"] is not None:
        return _list_page(request, rows)
    spelled_rows = [
        {"word": r["unknown_word"], "candidate": r["candidate"], "share": r["share"]} for r in rows
    ]
    corrected = _corrected(conn, request.filters, check, spelled_rows)
    if corrected is None:
        return _list_page(request, _list_rows(conn, request, None))
    request = replace(request, filters=corrected)
    page = _list_page(request, _list_rows(conn, request, None))
    return replace(page, corrected_query=corrected.q)


PAGE_SQL = (
    f"SELECT * FROM serving.web_page({_FILTER_SQL}, %s, %s::timestamptz, %s::real,"
    " %s::bigint, %s, %s, %s, %s::text[], %s::text[])"
)
# serving.web_page's columns beyond web_search's: a row's details, and the spelling's.
DETAIL_COLUMNS = ("duplicate_group", "other_ids", "other_sources", "description")
SPELLING_COLUMNS = ("unknown_word", "candidate", "share")
_NOT_LISTED = frozenset({*DETAIL_COLUMNS, *SPELLING_COLUMNS})


def _list_rows(
    conn: psycopg.Connection, request: SearchRequest, check: _SpellCheck | None
) -> list[dict[str, Any]]:
    """serving.web_page's rows: the spelling's when a word of `check` is unknown, else
    the page's (one more than asked) with their details."""
    after = request.cursor
    q = request.filters.q
    args = (
        *filter_args(request.filters),
        effective_sort(request.filters, request.sort),
        after.at if after else None,
        after.rank if after else None,
        after.id if after else None,
        request.limit + 1,
        RELEVANCE_CANDIDATES,
        bool(_snippet_words(q)),
        None if check is None else list(check.folded),
        None if check is None else list(check.prefixes),
    )
    return conn.execute(PAGE_SQL, args).fetchall()


def _list_page(request: SearchRequest, rows: Sequence[Mapping[str, Any]]) -> Page:
    """The ungrouped page from serving.web_page's rows."""
    sort = effective_sort(request.filters, request.sort)
    query = _snippet_words(request.filters.q)
    currency = request.filters.salary_currency
    shown = rows[: request.limit]
    items = [{**_item(row, currency, _NOT_LISTED), **_detail(row, query)} for row in shown]
    last = rows[request.limit - 1] if len(rows) > request.limit else None
    next_at = Cursor(sort, last["id"], last["sort_at"], last["rank"]) if last else None
    return _paged(request, collapsed(items), len(shown), next_at)


def _page_items(
    conn: psycopg.Connection, request: SearchRequest, rows: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The page's rows as API items, with their snippets and duplicate groups."""
    currency = request.filters.salary_currency
    details = _details(conn, request.filters.q, rows)
    return collapsed([{**_item(row, currency), **details.get(row["id"], {})} for row in rows])


def _paged(
    request: SearchRequest, items: list[dict[str, Any]], listed: int, next_at: Cursor | None
) -> Page:
    """A page of `listed` postings; `next_at`: where the next page starts (None: the end).
    Its cursor counts what the pages so far listed and remembers where they started."""
    after = request.cursor
    next_cursor = None
    if next_at is not None:
        before = 0 if after is None else after.offset  # None: an old cursor's, unknown
        offset = None if before is None else before + listed
        back = () if after is None else (*after.back, after.position())[-BACK_PAGES:]
        next_cursor = encode_cursor(replace(next_at, offset=offset or None, back=back))
    has_previous, previous_cursor = previous_page(after, request.limit)
    return Page(
        items,
        next_cursor,
        listed=listed,
        has_previous=has_previous,
        previous_cursor=previous_cursor,
    )


COMPANY_LISTED_SQL = (
    f"SELECT * FROM serving.web_company_listed({_FILTER_SQL}, %s, %s::timestamptz, %s::real,"
    " %s::bigint, %s::text[], %s)"
)


def _company_page(conn: psycopg.Connection, request: SearchRequest) -> Page:
    """One page of the list grouped by company: a posting is listed when it is one of its
    company's first COMPANY_CAP matches in the list's order (over the whole list, so a
    company met on an earlier page shows only what is left of its 3 here), and the
    company's last listed posting carries `more_at_company`: how many more it has under
    the same filters and query, all of them, none of which the list shows. Postings
    without a company are not grouped. Paging stays the list's keyset: the page walks
    web_search's rows after the cursor, counting per company what the pages before
    listed (serving.web_company_listed) and what it listed itself, and its next cursor
    is where its walk stopped, so every posting of the list is listed once or counted
    in its company's "more", none twice. In one snapshot, so the counts and the rows
    agree."""
    outermost = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    with conn.transaction():
        if outermost:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _company_walk(conn, request)


def _company_walk(conn: psycopg.Connection, request: SearchRequest) -> Page:
    sort = effective_sort(request.filters, request.sort)
    after = request.cursor
    args = filter_args(request.filters)
    listed: dict[str, int] = {}  # per company: its postings listed up to the walk's place
    kept: list[tuple[dict[str, Any], int | None]] = []  # (row, its place in its company)
    walk_from, stopped_at, ended = after, None, False
    for _ in range(COMPANY_WALK_PAGES):
        rows = _rows(conn, args, sort, walk_from, MAX_LIMIT + 1)
        met = sorted({r["company"] for r in rows if r["company"] is not None} - listed.keys())
        listed.update(_listed_before(conn, args, sort, after, met))
        for row in rows:
            company = row["company"]
            if company is not None and listed[company] >= COMPANY_CAP:
                stopped_at = row  # its company's "more": walked past
                continue
            if len(kept) == request.limit + 1:
                break
            place = None
            if company is not None:
                listed[company] += 1
                place = listed[company]
            kept.append((row, place))
            stopped_at = row
        if len(kept) > request.limit or len(rows) <= MAX_LIMIT:
            ended = len(kept) <= request.limit  # the list's end, not a full page
            break
        walk_from = _cursor_at(sort, rows[-1])
    shown = kept[: request.limit]
    next_row = None
    if len(kept) > request.limit:
        next_row = shown[-1][0]
    elif not ended and stopped_at is not None:
        next_row = stopped_at  # the walk's bound: the next page goes on from here
    more = _more_at_company(conn, request, [r for r, place in shown if place == COMPANY_CAP])
    items = _with_more(_page_items(conn, request, [row for row, _ in shown]), more)
    next_at = _cursor_at(sort, next_row) if next_row is not None else None
    return _paged(request, items, len(shown), next_at)


def _rows(
    conn: psycopg.Connection,
    args: tuple[Any, ...],
    sort: str,
    after: Cursor | None,
    page_rows: int,
) -> list[dict[str, Any]]:
    """web_search's rows after `after`, as the ungrouped list has them."""
    position = (after.at, after.rank, after.id) if after else (None, None, None)
    return conn.execute(
        SEARCH_SQL, (*args, sort, *position, page_rows, RELEVANCE_CANDIDATES)
    ).fetchall()


def _cursor_at(sort: str, row: Mapping[str, Any]) -> Cursor:
    return Cursor(sort, row["id"], row["sort_at"], row["rank"], group="company")


def _listed_before(
    conn: psycopg.Connection,
    args: tuple[Any, ...],
    sort: str,
    after: Cursor | None,
    companies: Sequence[str],
) -> dict[str, int]:
    """Per company, how many of its postings the pages before `after` listed (0..3)."""
    found = dict.fromkeys(companies, 0)
    if after is None or not companies:
        return found
    sql_args = (*args, sort, after.at, after.rank, after.id, list(companies),
                RELEVANCE_CANDIDATES)  # fmt: skip
    for row in conn.execute(COMPANY_LISTED_SQL, sql_args).fetchall():
        found[row["company"]] = row["listed"]
    return found


def _more_at_company(
    conn: psycopg.Connection, request: SearchRequest, thirds: Sequence[Mapping[str, Any]]
) -> dict[int, dict[str, Any]]:
    """For each company whose third listed posting is on this page (that posting's id):
    its matches beyond the 3 listed, as `more_at_company` ({"company", "slug", "count"}),
    when it has any. The count is every match of the company under the request's filters
    and query (what its company page lists with them), less the 3; null when counting
    ran past the page's budget, and then the company is still named if a fourth exists."""
    deadline = time.monotonic() + MORE_COUNT_BUDGET_MS / 1000
    found = {}
    for third in thirds:
        company = third["company"]
        filters = replace(request.filters, company=(company,))
        budget_ms = int((deadline - time.monotonic()) * 1000)
        total = None
        if budget_ms >= 1:
            total = counts(conn, filters, ("source",), budget_ms=budget_ms, top_n=1).total
        if total is None:
            with conn.transaction():  # the counts' own time limit lasts no further
                conn.execute("SET LOCAL statement_timeout TO DEFAULT")
                fourth = _rows(conn, filter_args(filters), "newest", None, COMPANY_CAP + 1)
            if len(fourth) <= COMPANY_CAP:
                continue
        elif total <= COMPANY_CAP:
            continue
        more = None if total is None else total - COMPANY_CAP
        found[third["id"]] = {"company": company, "slug": company_slug(company), "count": more}
    return found


def _with_more(
    items: Sequence[dict[str, Any]], more: Mapping[int, dict[str, Any]]
) -> tuple[dict[str, Any], ...]:
    """Each item with `more_at_company` (null but on its company's last listed posting;
    if the page showed that posting within an earlier member of its duplicate group,
    on that member)."""
    placed = []
    for item in items:
        ids = (item["id"], *item.get("other_ids", ()))
        here = next((more[i] for i in ids if i in more), None)
        placed.append({**item, "more_at_company": here})
    return tuple(placed)


PAGE_DETAILS_SQL = "SELECT * FROM serving.web_page_details(%s, %s)"
NO_SNIPPET: dict[str, Any] = {"snippet": None, "snippet_marks": []}


def _details(
    conn: psycopg.Connection, q: str, rows: Sequence[Mapping[str, Any]]
) -> dict[int, dict[str, Any]]:
    """Per listed posting, what serving.web_page_details gives for it (see _detail)."""
    if not rows:
        return {}
    query = _snippet_words(q)
    ids = [row["id"] for row in rows]
    found = conn.execute(PAGE_DETAILS_SQL, (ids, bool(query))).fetchall()
    return {row["id"]: _detail(row, query) for row in found}


@lru_cache(maxsize=4096)
def _snippet_words(q: str) -> highlight.QueryWords | None:
    """The words a snippet marks (None without a query: nothing to show a match of).
    Kept per query text: a page asks twice (whether to read the text, then the
    snippets), and a query's words and their compiled pattern (QueryWords.candidates)
    depend on its text alone, so the next search for the same words reuses them."""
    return highlight.query_words(q, _prefix_terms(q)) if q else None


def _detail(row: Mapping[str, Any], query: highlight.QueryWords | None) -> dict[str, Any]:
    """What a listed posting shows beyond its row: where else it is listed (its duplicate
    group: `group`, `also_on`, the other sources, and `listings`, how many postings in
    all, with `other_ids`); with a query, the snippet of its description around the best
    match (serving_sync.highlight) and its marks as [start, end] offsets into the
    snippet. No query, no snippet: there is nothing to show a match of."""
    others = row["other_sources"] or []
    detail: dict[str, Any] = {
        "group": row["duplicate_group"],
        "also_on": sorted(set(others)),
        "listings": 1 + len(others),
        "other_ids": row["other_ids"] or [],
        **NO_SNIPPET,
    }
    cut = highlight.snippet(row["description"], query) if query else None
    if cut is not None:
        detail.update(snippet=cut.text, snippet_marks=[list(m) for m in cut.marks])
    return detail


def collapsed(items: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    """The page with each duplicate group shown once, where its first posting stands
    (the others are named in its `also_on`). A group met on an earlier page is not
    known here, so it can show again there."""
    seen: set[int] = set()
    kept = []
    for item in items:
        group = item.get("group")
        if group is not None and group in seen:
            continue
        if group is not None:
            seen.add(group)
        kept.append(item)
    return tuple(kept)


def marked_spans(text: str | None, q: str) -> list[tuple[int, int]]:
    """The spans of `text` the query's words mark (the job page's description)."""
    if not q or not text:
        return []
    return highlight.mark_spans(text, highlight.query_words(q, _prefix_terms(q)))


def converted_body(row: Mapping[str, Any], currency: str | None) -> dict[str, Any] | None:
    """The yearly salary in the requested currency when the posting pays in another, with
    the day of the reference rates it was converted at; None otherwise."""
    if currency is None:
        return None
    moved = converted(
        row.get("salary_year_min"), row.get("salary_year_max"), row.get("salary_currency"),
        currency,
    )  # fmt: skip
    if moved is None:
        return None
    return {
        "currency": moved.currency,
        "min": moved.low,
        "max": moved.high,
        "reference_rates_of": moved.rates_day.isoformat(),
    }


def legacy_remote(work_mode: str | None) -> str:
    """The old `remote` tri-state of a work mode, for clients that still read it."""
    return {"remote": "yes", "hybrid": "hybrid"}.get(work_mode or "", UNKNOWN)


_NOT_ITEMS = frozenset({"sort_at", "rank"})


def _item(
    row: Mapping[str, Any], currency: str | None = None, leave_out: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """A listed posting as the API shows it; `leave_out`: the row's columns that are no
    item's (web_page's details and spelling columns, which _detail reads)."""
    item = {k: v for k, v in row.items() if k not in _NOT_ITEMS and k not in leave_out}
    item["salary_year_converted"] = converted_body(row, currency)
    item["remote"] = legacy_remote(row.get("work_mode"))
    # The date shown and what it is (docs/data-model.md, "Dates").
    kind = date_kind(row["posted_at"], row["age_known"])
    item["date"] = row["posted_at"] if kind is DateKind.POSTED else row["first_seen_at"]
    item["date_kind"] = kind.value
    item["reposts"] = max(0, (row.get("openings_12m") or 1) - 1)
    if row.get("rank") is not None:
        item["rank"] = row["rank"]
    return item


def _group_counts(group: str, rows: list[Mapping[str, Any]], top_n: int | None) -> GroupCounts:
    denominator = next((r["count"] for r in rows if r["value"] is None), 0)
    buckets = [(r["value"], r["count"]) for r in rows if r["value"] is not None]
    unknown = next((c for v, c in buckets if v == UNKNOWN), 0)
    known = [(v, c) for v, c in buckets if v != UNKNOWN]
    # The top N by count (ties by value, as the SQL ranks them in the C collation), then
    # in the order the group reads in.
    known.sort(key=lambda b: (-b[1], b[0]))
    shown = known[:top_n] if top_n else known
    if group == "month":  # a time series reads in time order, newest first
        shown.sort(reverse=True)
    if group == "experience":  # bands read in order of years
        shown.sort(key=lambda b: EXPERIENCE_BANDS.index(b[0]) if b[0] in EXPERIENCE_BANDS else 99)
    other = 0
    if group not in ARRAY_GROUPS:
        other = denominator - unknown - sum(c for _, c in shown)
    return GroupCounts(group, (*shown, (UNKNOWN, unknown)), denominator, unknown, other)


def counts(
    conn: psycopg.Connection,
    filters: Filters,
    groups: Sequence[str],
    *,
    budget_ms: int,
    top_n: int | None = None,
) -> Counts:
    """Disjunctive counts per group within one time budget for the whole request: a
    part that would run past it is reported unavailable (None), never as a partial count.

    The facet bitmaps answer first (serving.web_facet_bits: milliseconds), while they are
    current and for the groups and filters they hold. What they leave is counted by
    queries: groups without a filter of their own share one context (all filters),
    counted in a single pass with the total; each group with its own filter set is one
    more pass. The parts share the budget (each gets what the earlier ones left), so a
    request with several filtered groups still answers within about `budget_ms`."""
    deadline = time.monotonic() + budget_ms / 1000
    args = filter_args(filters)
    results: dict[str, GroupCounts | None] = {}
    outermost = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    with conn.transaction():
        if outermost:  # one snapshot for every part: the bitmaps' and the queries' counts
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        total, answered = _bitmap_counts(conn, deadline, args, groups, top_n)
        results.update(answered)
        rest = [g for g in groups if g not in answered]
        if rest or total is None:
            counted_total, counted = _query_counts(
                conn, deadline, args, filters, rest, top_n, need_total=total is None
            )
            results.update(counted)
            total = counted_total if total is None else total
    return Counts(total, datetime.now(UTC), {g: results[g] for g in groups})


def _bitmap_counts(
    conn: psycopg.Connection,
    deadline: float,
    args: tuple[Any, ...],
    groups: Sequence[str],
    top_n: int | None,
) -> tuple[int | None, dict[str, GroupCounts]]:
    """The groups the facet bitmaps answer (none when they are not current or cannot
    read this request), and the total."""
    asked = [g for g in groups if g in BITS_GROUPS]
    if not asked:
        return None, {}
    rows = _timed_part(conn, deadline, FACET_BITS_SQL, (*args, asked, top_n))
    if not rows:
        return None, {}
    total = next(r["count"] for r in rows if r["facet"] == "total")
    answered = {}
    for group in asked:
        mine = [r for r in rows if r["facet"] == group]
        if mine:
            answered[group] = _group_counts(group, mine, top_n)
    return total, answered


def _query_counts(
    conn: psycopg.Connection,
    deadline: float,
    args: tuple[Any, ...],
    filters: Filters,
    groups: Sequence[str],
    top_n: int | None,
    *,
    need_total: bool,
) -> tuple[int | None, dict[str, GroupCounts | None]]:
    """The counting queries: groups without a filter of their own share one pass with
    the total (run when either is wanted); each other group is a pass of its own."""
    own = [g for g in groups if g in GROUPS and filters.values(g)]
    own += [g for g in groups if g in ENRICH_STATS_GROUPS]
    shared = [g for g in groups if g not in own]
    results: dict[str, GroupCounts | None] = {}
    total = None
    # web_facets_all ranks 'unknown' among its top N; one more keeps N known values, as
    # web_facet and the bitmaps give them.
    more = None if top_n is None else top_n + 1
    wanted = shared or need_total
    rows = _timed_part(conn, deadline, FACETS_ALL_SQL, (*args, more)) if wanted else None
    if rows is not None:
        total = next((r["count"] for r in rows if r["facet"] == "total"), 0)
        for group in shared:
            mine = [r for r in rows if r["facet"] == group]
            mine.append({"value": None, "count": total})
            results[group] = _group_counts(group, mine, top_n)
    else:
        results.update(dict.fromkeys(shared))
    for group in own:
        part = _timed_part(conn, deadline, FACET_SQL, (group, *args, top_n))
        results[group] = None if part is None else _group_counts(group, part, top_n)
    return total, results


def _timed_part(
    conn: psycopg.Connection, deadline: float, sql: str, args: tuple[Any, ...]
) -> list[dict[str, Any]] | None:
    budget_ms = int((deadline - time.monotonic()) * 1000)
    if budget_ms < 1:  # the earlier parts used the budget up
        return None
    try:
        with conn.transaction():  # a savepoint: a cancelled part leaves the others intact
            conn.execute("SELECT set_config('statement_timeout', %s, true)", (f"{budget_ms}ms",))
            return conn.execute(sql, args).fetchall()
    except psycopg.errors.QueryCanceled:
        return None


def job(conn: psycopg.Connection, job_id: int) -> dict[str, Any] | None:
    row = conn.execute("SELECT * FROM serving.web_job(%s)", (job_id,)).fetchone()
    if row is not None:
        row["remote"] = legacy_remote(row.get("work_mode"))
    return row


SIMILAR_ROWS = 6


def similar(
    conn: psycopg.Connection, job_id: int, rows: int = SIMILAR_ROWS
) -> list[dict[str, Any]]:
    """Open postings like this one, the same job elsewhere first (serving.web_similar)."""
    return conn.execute("SELECT * FROM serving.web_similar(%s, %s)", (job_id, rows)).fetchall()


def closed_job(conn: psycopg.Connection, job_id: int) -> dict[str, Any] | None:
    return conn.execute("SELECT * FROM serving.web_closed_job(%s)", (job_id,)).fetchone()


def last_sync(conn: psycopg.Connection) -> dict[str, Any] | None:
    return conn.execute("SELECT * FROM serving.web_last_sync()").fetchone()


def freshness(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """Per source, the freshness summary the last applied sync published."""
    return conn.execute("SELECT * FROM serving.web_freshness()").fetchall()


def filter_names() -> tuple[str, ...]:
    """Every query parameter the filters read."""
    return (*(f.name for f in fields(Filters)), "remote")
