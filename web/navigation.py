"""Where a search page stands and where it leads: its canonical URL (no empty or default
parameter), its title, its position in the list ("21–40 of 408"), and the active
filters as chips a visitor can remove one by one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, urlencode

from serving_sync.problems import Problem
from serving_sync.search import DEFAULT_LIMIT, Filters, SearchRequest
from web import i18n, present
from web.i18n import N_, ngettext
from web.i18n import gettext as _

# Parameters that refine another filter rather than filter on their own: no chip, and
# not counted in "Filters (n)".
_REFINEMENTS = frozenset({"q", "verbatim", "skill_match", "skill_scope"})
_GROUP_OF_PARAM = {present.param_name(g): g for g in (*present.GROUP_LABELS,)}


@dataclass(frozen=True)
class Chip:
    label: str  # what the filter reads as ("Country: Viet Nam (VN)")
    remove_url: str  # the same search without it


def canonical_pairs(query: SearchRequest, cursor: str | None) -> list[tuple[str, str]]:
    """The request as its shortest equivalent parameters, in a fixed order."""
    pairs = query.filters.as_params()
    if query.sort != "newest":
        pairs.append(("sort", query.sort))
    if query.group != "none":
        pairs.append(("group", query.group))
    if query.limit != DEFAULT_LIMIT:
        pairs.append(("limit", str(query.limit)))
    if cursor:
        pairs.append(("cursor", cursor))
    # The language the URL named stays in every link built from these (web.i18n).
    return [*pairs, *i18n.link_pairs()]


def canonical_url(query: SearchRequest, cursor: str | None) -> str:
    pairs = canonical_pairs(query, cursor)
    return "/?" + urlencode(pairs) if pairs else "/"


def more_link(more: Mapping[str, Any], query: SearchRequest, corrected_q: str | None = None) -> str:
    """Where "N more at Acme" leads: the company's page (/companies/{slug}) with the
    list's words (as answered), filters and sort, from its first page: every posting the
    count counts, and the 3 the grouped list showed."""
    filters = replace(query.filters, company=())
    if corrected_q is not None:
        filters = replace(filters, q=corrected_q, verbatim=False)
    pairs = canonical_pairs(SearchRequest(filters, query.sort), None)
    return (
        "/companies/"
        + quote(str(more["slug"]), safe="")
        + ("?" + urlencode(pairs) if pairs else "")
    )


def feed_url(canonical: str) -> str:
    """The Atom feed of a search page's address (the same parameters, no page cursor)."""
    params = canonical.partition("?")[2]
    kept = [pair for pair in params.split("&") if pair and not pair.startswith("cursor=")]
    return "/feed" + ("?" + "&".join(kept) if kept else "")


def is_canonical(raw: Mapping[str, Sequence[str]], query: SearchRequest) -> bool:
    """Whether the parameters given are already the canonical ones (in any order):
    a URL with an empty field, a default value or an unknown name is not."""
    cursor = (raw.get("cursor") or [None])[0]
    given = sorted((k, v) for k, values in raw.items() for v in values)
    return given == sorted(canonical_pairs(query, cursor))


def filter_count(query: SearchRequest) -> int:
    """How many filters narrow the list: one per chip (the query and its refinements
    aside; a minimum salary and its currency are one)."""
    return len(chips(query))


def chips(query: SearchRequest) -> list[Chip]:
    """One chip per active filter value; removing one keeps the rest, the query and the
    sort, from the first page."""
    pairs = canonical_pairs(query, None)
    found = []
    for index, (name, value) in enumerate(pairs):
        if name in _REFINEMENTS or name in ("sort", "group", "limit", i18n.PARAM):
            continue
        if name == "salary_currency" and query.filters.salary_min is not None:
            continue  # one chip for "at least X in C": a minimum needs its currency
        rest = [pair for i, pair in enumerate(pairs) if i != index]
        if name == "salary_min":
            rest = [(n, v) for n, v in rest if n != "salary_currency"]
        if name == "skill" and not any(n == "skill" for n, _ in rest):
            rest = [(n, v) for n, v in rest if n not in ("skill_match", "skill_scope")]
        if name == "posted_within_days":
            rest = [(n, v) for n, v in rest if n != "include_undated"]
        url = "/?" + urlencode(rest) if rest else "/"
        found.append(Chip(chip_label(name, value, query.filters), url))
    return found


def clear_url(query: SearchRequest) -> str:
    """The same words, sort and grouping with no filter."""
    kept = [
        (n, v)
        for n, v in canonical_pairs(query, None)
        if n in ("q", "verbatim", "sort", "group", i18n.PARAM)
    ]
    return "/?" + urlencode(kept) if kept else "/"


def chip_label(name: str, value: str, filters: Filters) -> str:
    if name == "posted_within_days":
        days = int(value)
        if filters.include_undated:
            return ngettext(
                "Posted within %(n)s day (and undated)",
                "Posted within %(n)s days (and undated)",
                days,
            ) % {"n": days}
        return ngettext("Posted within %(n)s day", "Posted within %(n)s days", days) % {"n": days}
    if name == "include_undated":
        return _("Undated postings included")
    if name == "has_salary":
        return _("States a salary") if value == "true" else _("States no salary")
    if name == "salary_min":
        currency = filters.salary_currency or ""
        amount = f"{present.number(int(float(value)))} {currency}".rstrip()
        return _("Salary at least %(amount)s") % {"amount": amount}
    if name == "salary_currency":
        return _("Salary in %(currency)s") % {"currency": value}
    group = _GROUP_OF_PARAM.get(name, name)
    label = present.group_label(group) or name
    return f"{label}: {present.value_label(group, value)}"


def position(query: SearchRequest, shown: int, total: int | None) -> str | None:
    """ "21–40 of 408": the page's place in the list, when the cursor knows it."""
    before = 0 if query.cursor is None else query.cursor.offset
    if before is None or shown == 0:
        return None
    span = f"{present.number(before + 1)}–{present.number(before + shown)}"
    if total is None:
        return span
    return _("%(span)s of %(total)s") % {"span": span, "total": present.number(total)}


def page_title(query: SearchRequest, total: int | None) -> str:
    """The tab's title: the words searched for and how many jobs match."""
    count = ""
    if total is not None:
        count = ngettext("%(n)s job", "%(n)s jobs", total) % {"n": present.number(total)}
    words = query.filters.q
    if words and count:
        return f"{words} — {count}"
    if words:
        return _("%(words)s — search jobs") % {"words": words}
    if filter_count(query) and count:
        return _("%(count)s matching your filters") % {"count": count}
    return _("Search jobs")


# ---------------------------------------------------------------- an error's form

_FIELD_LABELS = {
    "q": N_("Search"),
    "salary_min": N_("Salary at least"),
    "salary_currency": N_("Currency"),
    "posted_within_days": N_("Posted within (days)"),
    "limit": N_("Jobs per page"),
    "sort": N_("Sort"),
    "group": N_("Show"),
    "cursor": N_("Page"),
    "lang": N_("Language"),
}
# A parameter whose problem is its pair's too: both are shown to fix.
_PARTNERS = {"salary_min": ("salary_currency",), "salary_currency": ("salary_min",)}


@dataclass(frozen=True)
class FixForm:
    """The request sent again after a 422: the words and the refused parameter (and its
    partner) as fields to change, every other parameter kept as it was."""

    kept: list[tuple[str, str]]
    fields: list[tuple[str, str, str]]  # (name, label, value)


def fix_form(raw: Mapping[str, Sequence[str]], param: str) -> FixForm:
    shown = ("q", param, *_PARTNERS.get(param, ()))
    fields = []
    for name in dict.fromkeys(shown):
        if name == "cursor":
            continue  # a refused cursor is dropped: the search starts from its first page
        values = [v for v in raw.get(name, ()) if v != ""] or [""]
        label = _FIELD_LABELS.get(name)
        label = _(label) if label else present.group_label(_GROUP_OF_PARAM.get(name, name))
        fields.extend((name, label or name, value) for value in values)
    kept = [
        (name, value)
        for name, values in raw.items()
        if name not in shown and name != "cursor"
        for value in values
        if value != ""
    ]
    return FixForm(kept, fields)


# ---------------------------------------------------------------- a refusal, in words


def problem_text(refusal: Problem) -> str:
    """Why a parameter was refused, in the page's language: its template as the
    catalogue translates it, filled with the same arguments as the API's English."""
    return _(refusal.template) % dict(refusal.args)
