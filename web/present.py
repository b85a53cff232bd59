"""How values read on the pages: dates with their precision, salaries as stated,
group and value labels, URLs that carry the filters."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

import pycountry
from babel import Locale

from pipeline.enrich.catalog import load_catalog
from serving_sync import language, search
from serving_sync.dates import DateKind, date_kind
from serving_sync.evidence import NormalizedField, place, served_fields
from serving_sync.search import DEFAULT_LIMIT, UNKNOWN, Filters, SearchRequest
from serving_sync.typeahead import Suggestion
from web import i18n
from web.description import Block, description_blocks, description_html, pieces_between
from web.i18n import N_, ngettext
from web.i18n import gettext as _

GROUP_LABELS = {
    "country": N_("Country"),
    "region": N_("Region"),
    "city": N_("City"),
    "work_mode": N_("Work mode"),
    "job_type": N_("Job type"),
    "employment_type": N_("Employment type"),
    "source": N_("Source"),
    "company": N_("Company"),
    "month": N_("Posting month"),
    "skill": N_("Skills"),
    "experience": N_("Experience (years)"),
    "seniority": N_("Seniority"),
    "enrichment": N_("Requirements extracted"),
}
# A posting without an enrichment result was not extracted: that is not "no skills".
UNKNOWN_LABELS = {
    "skill": N_("Not extracted"),
    "experience": N_("Not stated or not extracted"),
    "seniority": N_("Not stated or not extracted"),
    "work_mode": N_("Not stated"),
    "employment_type": N_("Not stated"),
    "enrichment": N_("Not extracted"),
}
UNKNOWN_LABEL = N_("Unknown")
# Where a published work mode comes from (pipeline.normalize.work_mode).
WORK_MODE_SOURCES = {
    "field": N_("stated by the platform"),
    "location": N_("from the location"),
    "description": N_("from the description"),
}
# Where a published company comes from (pipeline.normalize.company): what a reader may
# want to know about a name the posting itself did not state.
COMPANY_SOURCES = {
    "posting": None,
    "config": None,  # the operator's own word for the board: as good as stated
    "board": N_("as the job board names its owner"),
    "derived": N_("read from the job board's address"),
}
EMPLOYMENT_LABELS = {"per_diem": N_("Per diem"), "other": N_("Other")}
# The extracted values a job page and GET /api/jobs/{id} show, in this order.
ENRICHED_FIELDS = (
    "experience_min", "experience_max", "seniority", "work_mode", "employment_type", "education",
)  # fmt: skip
FIELD_LABELS = {
    "experience_min": N_("Experience, at least (years)"),
    "experience_max": N_("Experience, at most (years)"),
    "seniority": N_("Seniority"),
    "work_mode": N_("Work mode"),
    "employment_type": N_("Employment type"),
    "education": N_("Education"),
    "skills_required": N_("Required skills"),
    "skills_preferred": N_("Preferred skills"),
}


def group_label(group: str) -> str | None:
    label = GROUP_LABELS.get(group)
    return _(label) if label else None


def field_label(name: str) -> str | None:
    label = FIELD_LABELS.get(name)
    return _(label) if label else None


def work_mode_source(source: str) -> str:
    return _(WORK_MODE_SOURCES[source])


def company_note(job: dict[str, Any]) -> str | None:
    """Why a company name is shown when the posting itself does not state it."""
    note = COMPANY_SOURCES.get(job.get("company_source") or "")
    return _(note) if note else None


def legal_entity_text(job: dict[str, Any]) -> str | None:
    """The employing legal entity, where it says more than the company does."""
    entity = (job.get("legal_entity") or "").strip()
    company = (job.get("company") or "").strip()
    if not entity or entity.casefold() == company.casefold():
        return None
    return entity


# The enumerated values as a page names them (English: the value itself, capitalised,
# as "Unknown" beside them is).
VALUE_LABELS = {
    "seniority": {
        "intern": N_("Intern"), "junior": N_("Junior"), "mid": N_("Mid"),
        "senior": N_("Senior"), "lead": N_("Lead"), "principal": N_("Principal"),
        "manager": N_("Manager"), "director": N_("Director"), "executive": N_("Executive"),
    },
    "work_mode": {"onsite": N_("Onsite"), "hybrid": N_("Hybrid"), "remote": N_("Remote")},
    "enrichment": {"extracted": N_("Extracted")},
    "employment_type": {
        "full_time": N_("Full-time"), "part_time": N_("Part-time"),
        "contract": N_("Contract"), "temporary": N_("Temporary"),
        "internship": N_("Internship"), "volunteer": N_("Volunteer"), **EMPLOYMENT_LABELS,
    },
    "job_type": {
        "co-op": N_("Co-op"), "intern": N_("Intern"), "new_grad": N_("New grad"),
        "student": N_("Student"), "research": N_("Research"),
    },
}  # fmt: skip


def value_label(group: str, value: str) -> str:
    if value == UNKNOWN:
        return _(UNKNOWN_LABELS.get(group, UNKNOWN_LABEL))
    known = VALUE_LABELS.get(group, {}).get(value)
    if known:
        return _(known)
    if group in ("seniority", "work_mode", "enrichment", "job_type"):
        return value.replace("_", " ").capitalize()
    if group == "employment_type":
        return value.replace("_", "-").capitalize()
    if group == "skill":
        return skill_name(value)
    if group == "country":
        return country_name(value)
    if group == "month":
        return i18n.month(value)
    return value


def country_name(code: str) -> str:
    """ "Viet Nam (VN)": ISO 3166's English name, or the locale's own (CLDR) name."""
    if i18n.locale() != i18n.DEFAULT:
        name = Locale.parse(i18n.locale()).territories.get(code)
        if name:
            return f"{name} ({code})"
    country = pycountry.countries.get(alpha_2=code)
    return f"{country.name} ({code})" if country else code


def extracted_value(name: str, value: Any) -> str:
    """An extracted value as the job page shows it: enumerated ones by their label."""
    group = "employment_type" if name == "employment_type" else name
    if isinstance(value, str) and value in VALUE_LABELS.get(group, {}):
        return value_label(group, value)
    return str(value).replace("_", " ")


def skill_name(key: str) -> str:
    """A catalogue key as people write it (its first alias: cpp -> C++)."""
    skill = load_catalog().skills.get(key)
    aliases = (*skill.aliases, *skill.exact, *skill.ambiguous) if skill else ()
    return aliases[0] if aliases else key


def param_name(group: str) -> str:
    """The query parameter that filters a group (experience: experience_min)."""
    return search.GROUP_PARAMS.get(group, group)


def enrichment_body(job: dict[str, Any]) -> dict[str, Any]:
    """Every extracted value as {"value", "field", "start", "end", "evidence", "context"}
    (null: not stated), skills as lists of those with their `key`. `job[field][start:end]`
    is the excerpt, as served (serving_sync.evidence); `context` is its sentence. A
    posting without a result says `extracted: false` and has no values at all (not "no
    requirements")."""
    stored = job.get("enrichment")
    if stored is None:
        empty: dict[str, Any] = dict.fromkeys((*ENRICHED_FIELDS, *search.SKILL_FIELDS))
        return {"extracted": False, "enriched_at": None, **empty}
    fields = served_fields(job)
    body: dict[str, Any] = {"extracted": True, "enriched_at": job.get("enriched_at")}
    for name in ENRICHED_FIELDS:
        body[name] = _evidence(fields, stored.get(name))
    for name in search.SKILL_FIELDS:
        body[name] = [
            {"key": item.get("key"), **(_evidence(fields, item) or {})}
            for item in stored.get(name) or []
        ]
    return body


def _evidence(
    fields: tuple[NormalizedField, ...], item: dict[str, Any] | None
) -> dict[str, Any] | None:
    if not item or item.get("value") is None:
        return None
    return {"value": item.get("value"), **place(fields, item).as_dict()}


def description_view(job: dict[str, Any], q: str = "") -> list[Block]:
    """The description's blocks (web.description): each extracted value's span in it is
    marked "evidence", so a reader sees the words a value stands on in their place, and
    the words of the search that led here "hit"."""
    description = job.get("description") or ""
    found = enrichment_body(job)
    spans = [
        (item["start"], item["end"], "evidence")
        for item in _items(found)
        if item.get("field") == "description"
    ]
    spans += [(start, end, "hit") for start, end in search.marked_spans(description, q)]
    return description_blocks(description, job.get("description_layout"), spans)


def marked_pieces(text: str, spans: Iterable[tuple[int, int, str]]) -> list[tuple[str, str | None]]:
    """`text` as (piece, mark) pieces, mark None between the spans. Where spans overlap,
    the earlier one marks the shared characters."""
    return list(pieces_between(text, 0, len(text), sorted(spans)))


def snippet_pieces(item: dict[str, Any]) -> list[tuple[str, str | None]]:
    """A result's snippet as (piece, mark) pieces, its query matches marked."""
    marks = [(start, end, "hit") for start, end in item.get("snippet_marks") or ()]
    return marked_pieces(item.get("snippet") or "", marks)


def elsewhere_text(item: dict[str, Any]) -> str:
    """Where else a result is listed and how often it was posted again: "Also on
    lever and ashby · 2 reposts in 12 months" ("" when neither)."""
    parts = []
    also = item.get("also_on") or []
    if also:
        if len(also) > 1:
            sources = _("%(sources)s and %(last)s") % {
                "sources": ", ".join(also[:-1]),
                "last": also[-1],
            }
        else:
            sources = also[0]
        parts.append(_("also on %(sources)s") % {"sources": sources})
    reposts = item.get("reposts") or 0
    if reposts:
        parts.append(
            ngettext("%(n)s repost in 12 months", "%(n)s reposts in 12 months", reposts)
            % {"n": reposts}
        )
    text = " · ".join(parts)
    return text[:1].upper() + text[1:]


def job_link(job_id: int, q: str) -> str:
    """A result's job page; with the search's words, which the page marks."""
    return i18n.localized(f"/jobs/{job_id}" + (f"?{urlencode({'q': q})}" if q else ""))


def excerpt_in_context(item: dict[str, Any]) -> tuple[str, str, str]:
    """(before, excerpt, after): the excerpt inside its sentence, for the page to mark."""
    excerpt = " ".join((item.get("evidence") or "").split())
    context = item.get("context") or ""
    at = context.find(excerpt) if excerpt else -1
    if at < 0:
        return "", excerpt, ""
    return context[:at], excerpt, context[at + len(excerpt) :]


def _items(found: dict[str, Any]) -> list[dict[str, Any]]:
    if not found.get("extracted"):
        return []
    single = [found[name] for name in ENRICHED_FIELDS if found.get(name)]
    return single + [item for name in search.SKILL_FIELDS for item in found.get(name) or []]


def job_body(job: dict[str, Any]) -> dict[str, Any]:
    """GET /api/jobs/{id}: the posting, its extracted values under `enrichment`, its
    description also as the HTML a page shows (`description_html`, web.description)."""
    hidden = ("enrichment", "enriched_at", "description_layout", *search.SKILL_FIELDS)
    return {
        **{k: v for k, v in job.items() if k not in hidden},
        "description_html": description_html(job.get("description"), job.get("description_layout")),
        "enrichment": enrichment_body(job),
    }


def day(value: datetime | None) -> str:
    return i18n.day(value) if value else ""


@dataclass(frozen=True)
class DateShown:
    """A posting's date as a page shows it: what it is, how long ago, the exact day."""

    kind: DateKind
    label: str  # "posted", "first seen", "listed since"
    relative: str  # "3 days ago"; "" for "listed since" (its age is not known)
    exact: str  # "3 Nov 2026" (with the time when the source gave one)
    iso: str  # for <time datetime>


def relative_age(value: datetime, now: datetime) -> str:
    """How long ago, in the unit a reader would say: today, 3 days, 2 weeks, 5 months."""
    days = (now.astimezone(UTC).date() - value.astimezone(UTC).date()).days
    if days <= 0:
        return _("today")
    if days == 1:
        return _("yesterday")
    for unit, size in (("year", 365), ("month", 30), ("week", 7), ("day", 1)):
        if days >= size * (2 if unit != "day" else 1):
            return i18n.ago(days // size, unit)
    return i18n.ago(days, "day")  # unreachable: days >= 2 meets the "day" unit


def date_shown(job: dict[str, Any], now: datetime | None = None) -> DateShown:
    """The date a posting shows (serving_sync.dates): posted at its precision; else
    first seen (an estimate within one poll); else "listed since" (age unknown)."""
    now = now or datetime.now(UTC)
    kind = date_kind(job.get("posted_at"), bool(job.get("age_known", True)))
    value = job["posted_at"] if kind is DateKind.POSTED else job["first_seen_at"]
    exact = day(value)
    if kind is DateKind.POSTED and job.get("posted_precision") == "exact":
        exact = i18n.moment_utc(value)
    if kind is DateKind.LISTED_SINCE:
        return DateShown(kind, _("listed since"), "", exact, value.isoformat())
    label = _("posted") if kind is DateKind.POSTED else _("first seen")
    return DateShown(kind, label, relative_age(value, now), exact, value.isoformat())


def posted_text(job: dict[str, Any], now: datetime | None = None) -> str:
    """The date as one line of text: "posted 3 days ago (3 Nov 2026)", "first seen
    today (3 Dec 2026)", "listed since 3 Nov 2026"."""
    shown = date_shown(job, now)
    if not shown.relative:
        return f"{shown.label} {shown.exact}"
    return f"{shown.label} {shown.relative} ({shown.exact})"


def _amount(value: Decimal | None) -> str:
    if value is None:
        return ""
    return i18n.number(value, 0 if value == value.to_integral_value() else 2)


def _range(low: Decimal | None, high: Decimal | None) -> str:
    if low is not None and high is not None and low != high:
        return f"{_amount(low)}–{_amount(high)}"
    return _amount(high if high is not None else low)


# The salary periods the parsers publish, as "per ..." reads in each language.
PERIODS = {
    "year": N_("per year"), "month": N_("per month"), "week": N_("per week"),
    "day": N_("per day"), "hour": N_("per hour"),
}  # fmt: skip


def salary_text(job: dict[str, Any]) -> str:
    """The salary as stated: range or single figure, currency and period, or ""."""
    low, high = job.get("salary_min"), job.get("salary_max")
    if low is None and high is None:
        return ""
    currency = job.get("salary_currency") or ""
    stated = job.get("salary_period")
    period = ""
    if stated:
        period = " " + (_(PERIODS[stated]) if stated in PERIODS else f"per {stated}")
    return f"{_range(low, high)} {currency}{period}".replace("  ", " ").strip()


def salary_year_text(job: dict[str, Any]) -> str:
    """The yearly figures where they add something to the salary as stated: "about
    104,000 USD a year" for an hourly rate; "read as yearly from its size" for a figure
    with no period; "" for a yearly salary (it says so already) or none."""
    low, high = job.get("salary_year_min"), job.get("salary_year_max")
    if low is None and high is None:
        return ""
    currency = job.get("salary_currency") or ""
    if job.get("salary_year_basis") == "inferred":
        return _("no period stated: read as yearly from its size")
    if job.get("salary_period") == "year":
        return ""
    amount = f"{_range(low, high)} {currency}".strip()
    return _("about %(amount)s a year") % {"amount": amount}


def salary_converted_text(job: dict[str, Any]) -> str:
    """The yearly salary in the currency the visitor asked for, with the rates' day."""
    moved = job.get("salary_year_converted")
    if not moved:
        return ""
    day_of_rates = i18n.day(datetime.fromisoformat(moved["reference_rates_of"]))
    return _("≈ %(amount)s %(currency)s a year (ECB reference rates of %(day)s)") % {
        "amount": _range(moved["min"], moved["max"]),
        "currency": moved["currency"],
        "day": day_of_rates,
    }


def query_string(filters: Filters, **changes: Any) -> str:
    """The filters as a query string; `changes` sets (or with None drops) parameters."""
    pairs = [(k, v) for k, v in filters.as_params() if k not in changes]
    for key, value in changes.items():
        if value is None:
            continue
        values = value if isinstance(value, list | tuple) else [value]
        pairs.extend((key, str(v)) for v in values)
    # A page's links keep the language its URL named (web.i18n.link_pairs).
    return urlencode([*pairs, *i18n.link_pairs()])


def page_link(query: SearchRequest, cursor: str | None = None) -> str:
    """A link to another page of the same list: same filters, sort, grouping and page
    size."""
    return "/?" + query_string(
        query.filters,
        sort=None if query.sort == "newest" else query.sort,
        group=None if query.group == "none" else query.group,
        limit=None if query.limit == DEFAULT_LIMIT else query.limit,
        cursor=cursor,
    )


def spelling_links(query: SearchRequest, corrected_q: str) -> tuple[str, str]:
    """The corrected search's own link, and the typed query's ("search instead for"):
    the same filters, sort and grouping, from the first page."""
    sort = None if query.sort == "newest" else query.sort
    group = None if query.group == "none" else query.group
    corrected = replace(query.filters, q=corrected_q, verbatim=False)
    corrected_link = query_string(corrected, sort=sort, group=group)
    typed = query_string(replace(query.filters, verbatim=True), sort=sort, group=group)
    return "/?" + corrected_link, "/?" + typed


SUGGESTION_KINDS = {"title": "title", "company": "company", "skill": "skill",
                    "city": "place", "region": "place"}  # fmt: skip


def suggestion_body(found: Suggestion) -> dict[str, Any]:
    """A suggestion as the API and the search box show it: what it reads, what kind of
    thing it is, how many postings name it, and the filter (and link) that selects it.
    A title is searched for as a phrase."""
    value = found.value
    if found.kind == "title":  # a phrase, within the query's 200 characters
        value = '"' + " ".join(found.value.replace('"', " ").split())[:190] + '"'
    label = skill_name(found.value) if found.kind == "skill" else found.value
    return {
        "kind": SUGGESTION_KINDS[found.kind],
        "label": label,
        "count": found.postings,
        "param": found.param,
        "value": value,
        "url": "/?" + urlencode({found.param: value}),
    }


def with_value(filters: Filters, group: str, value: str) -> str:
    """The job list narrowed to one value of a group (a stats bar's link)."""
    return "/?" + query_string(filters, **{param_name(group): [value]})


def safe_url(url: str | None) -> str | None:
    """Only web links leave the page: a posting's `javascript:` or `data:` URL does not."""
    if url and url.lower().startswith(("https://", "http://")):
        return url
    return None


def number(value: int | None) -> str:
    return "?" if value is None else i18n.number(value)


def percent(share: float | None) -> str:
    return "–" if share is None else i18n.percent(share)


_FRESHNESS_PHASES = ("discover", "fetch", "parse", "check", "sync")
_LAG_KEYS = (
    "published_recently",
    "lag_p50_s",
    "lag_p95_s",
    "lag_max_s",
    "unpublished",
    "oldest_unpublished_s",
)


def freshness_body(row: dict[str, Any]) -> dict[str, Any]:
    """One source's freshness in /healthz: the keys of `jobharbor status --json`
    (`last_success` per phase, the lags under `freshness`), flattened."""

    def iso(value: datetime | None) -> str | None:
        return value.astimezone(UTC).isoformat(timespec="seconds") if value else None

    return {
        "last_success": {p: iso(row[f"last_{p}_at"]) for p in _FRESHNESS_PHASES},
        **{key: row[key] for key in _LAG_KEYS},
        "max_lag_s": row["max_lag_s"],
        "lagging": row["lagging"],
        "computed_at": iso(row["computed_at"]),
    }


def text_language(title: str | None, description: str | None) -> str | None:
    """The `lang` a posting's text carries on a page: its language when the text shows
    it plainly and the page's language is another (an English posting on a Vietnamese
    page says `en`; on an English page it says nothing), else nothing."""
    found = language.detected_language(title, description)
    return None if found in (None, i18n.locale()) else found
