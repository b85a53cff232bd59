"""schema.org JobPosting JSON-LD, the common fallback for any job detail page.

Real pages nest the posting in `@graph`, write the script type as
`application/ld&#x2B;json`, HTML-escape descriptions, and give locations as a
Place or a list of Places; all of those are handled here.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from parsers.common import dedupe_postings, job_type_for, outcome_from_postings
from parsers.entities import has_entity_code
from parsers.limits import MAX_JSONLD_BLOCK_CHARS
from parsers.registry import register
from parsers.signals import looks_blocked, page_signal
from parsers.text import (
    clean_place,
    clean_space,
    html_to_text,
    parse_datetime,
    parse_salary_text,
    salary_text,
)
from parsers.types import (
    DocumentKind,
    Issue,
    PageSignal,
    ParseOutcome,
    Posting,
    RawDocument,
    RawOffice,
    Salary,
)
from parsers.urls import join_claim, posting_url

PARSER_VERSION = "3"

# A script's body as runs of anything but "<" and single "<"s that do not close it, each
# run taken whole: the first closing tag, as a lazy `.*?` finds it, without trying the
# closing tag at every byte of a page's scripts.
_SCRIPT = re.compile(
    rb"<script\b([^>]*)>([^<]*+(?:<(?!/script\s*>)[^<]*+)*+)</script\s*>", re.IGNORECASE
)
_TYPE_ATTR = re.compile(r"""type\s*=\s*["']?([^"'\s>]+)""", re.IGNORECASE)


def _json_ld_blocks(body: bytes) -> Iterator[str]:
    for match in _SCRIPT.finditer(body):
        attrs = html.unescape(match.group(1).decode("utf-8", "replace"))
        type_match = _TYPE_ATTR.search(attrs)
        if type_match and type_match.group(1).lower() == "application/ld+json":
            yield match.group(2).decode("utf-8", "replace")


_WRAPPERS = re.compile(
    r"^\s*(?:<!--|/\*\s*<!\[CDATA\[\s*\*/|<!\[CDATA\[)|(?:-->|/\*\s*\]\]>\s*\*/|\]\]>)\s*$"
)
_LEADING_WRAPPER = re.compile(r"\s*(?:<!--|/\*\s*<!\[CDATA\[\s*\*/|<!\[CDATA\[)")
_WRAPPER_ENDS = ("-->", "*/", "]]>")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _unwrapped(text: str) -> str:
    """`_WRAPPERS.sub("", text)` for a stripped `text`. Its closing alternative can only
    match a text ending in one of `_WRAPPER_ENDS`, and searching for it tries every
    position of the block (about 16 ns a character, eight times `json.loads`); without
    such an ending only the opening wrapper, at the start, can go."""
    if text.endswith(_WRAPPER_ENDS):
        return _WRAPPERS.sub("", text)
    opening = _LEADING_WRAPPER.match(text)
    return text[opening.end() :] if opening else text


def _loads_lenient(text: str) -> Any:
    """JSON-LD as sites really write it: wrapped in comments or CDATA, with raw
    control characters, trailing commas, or the whole block entity-encoded."""
    text = _unwrapped(text.strip()).strip()
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError as first_error:
        for candidate in (_TRAILING_COMMA.sub(r"\1", text), html.unescape(text)):
            try:
                return json.loads(candidate, strict=False)
            except json.JSONDecodeError:
                continue
        raise first_error


def _is_job_posting(node: dict[str, Any]) -> bool:
    types = node.get("@type")
    types = types if isinstance(types, list) else [types]
    return any(isinstance(t, str) and t.rsplit("/", 1)[-1] == "JobPosting" for t in types)


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, list):
        for item in node:
            yield from _walk(item)
    elif isinstance(node, dict):
        if _is_job_posting(node):
            yield node
        for key in ("@graph", "mainEntity", "itemListElement", "item"):
            if key in node:
                yield from _walk(node[key])


def find_job_postings(body: bytes) -> tuple[list[dict[str, Any]], list[Issue]]:
    """Every JobPosting object in the page, and issues for blocks that did not decode."""
    found: list[dict[str, Any]] = []
    issues: list[Issue] = []
    for index, block in enumerate(_json_ld_blocks(body)):
        if len(block) > MAX_JSONLD_BLOCK_CHARS:
            issues.append(
                Issue(
                    "jsonld_too_large",
                    f"JSON-LD block {index} has {len(block)} characters "
                    f"(limit {MAX_JSONLD_BLOCK_CHARS}): skipped",
                )
            )
            continue
        try:
            data = _loads_lenient(block)
        except json.JSONDecodeError as exc:
            issues.append(Issue("invalid_jsonld", f"JSON-LD block {index}: {exc.msg}"))
            continue
        except RecursionError:
            issues.append(Issue("invalid_jsonld", f"JSON-LD block {index} is nested too deeply"))
            continue
        found.extend(_walk(data))
    return found, issues


def _text(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("name") or value.get("value") or value.get("@id")
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value if v)
    return clean_space(html.unescape(str(value))) if value not in (None, "") else None


def offices_of(posting: dict[str, Any]) -> tuple[RawOffice, ...]:
    """Every jobLocation (a Place, a list of Places, or address strings); for remote
    postings without one, the countries in applicantLocationRequirements."""
    places = posting.get("jobLocation") or []
    places = places if isinstance(places, list) else [places]
    offices: list[RawOffice] = []
    for place in places:
        if isinstance(place, str):
            offices.append(RawOffice(text=clean_place(place) or ""))
            continue
        if not isinstance(place, dict):
            continue
        address = place.get("address") or {}
        if isinstance(address, list):
            address = address[0] if address and isinstance(address[0], dict) else {}
        if isinstance(address, str) or not address:
            offices.append(
                RawOffice(text=clean_place(str(address or place.get("name") or "")) or "")
            )
            continue
        city = _text(address.get("addressLocality"))
        region = _text(address.get("addressRegion"))
        country = _text(address.get("addressCountry"))
        text = _join_parts(city, region, country)
        if text:
            offices.append(RawOffice(text=text, city=city, region=region, country=country))
    if not offices:
        requirements = posting.get("applicantLocationRequirements") or []
        for place in requirements if isinstance(requirements, list) else [requirements]:
            name = _text(place)
            if name:
                offices.append(RawOffice(text=name, country=name))
    return tuple(dict.fromkeys(o for o in offices if o.text))


def _join_parts(*parts: str | None) -> str:
    """ "City, Region, Country" without repeating a part the text already has
    ("London, United Kingdom" + "United Kingdom" stays "London, United Kingdom")."""
    text = ""
    for part in parts:
        if part and part.casefold() not in text.casefold():
            text = f"{text}, {part}" if text else part
    return text


_UNITS = {"HOUR": "hour", "DAY": "day", "WEEK": "week", "MONTH": "month", "YEAR": "year"}


def salary_of(posting: dict[str, Any]) -> Salary | None:
    """baseSalary (a MonetaryAmount, a bare number or text, or a list of either): the
    figures as stated, and `raw` as readable text ("120,000–150,000 USD per year")."""
    base = posting.get("baseSalary") or posting.get("estimatedSalary")
    if isinstance(base, list):
        base = base[0] if base else None
    if isinstance(base, str):
        return parse_salary_text(html.unescape(base))
    if isinstance(base, (int, float)) and not isinstance(base, bool):
        base = {"value": base}
    if not isinstance(base, dict):
        return None
    value = base.get("value")
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, str) and _number(value) is None:
        return parse_salary_text(html.unescape(value))  # "$100k - $120k" as text
    currency = _text(base.get("currency")) or (
        _text(value.get("currency")) if isinstance(value, dict) else None
    )
    low = high = None
    period = None
    if isinstance(value, dict):
        low = _number(value.get("minValue", value.get("value")))
        high = _number(value.get("maxValue", value.get("value")))
        period = _text(value.get("unitText"))
    else:
        low = high = _number(value)
    if low is None and high is None:
        return None
    unit = _UNITS.get((period or _text(base.get("unitText")) or "").upper())
    currency = currency.upper() if currency else None
    return Salary(
        raw=salary_text(low, high, currency, unit),
        min=low,
        max=high,
        currency=currency,
        period=unit,
    )


def _number(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.replace(",", ""))
        except ValueError:
            return None
    return None


def remote_of(posting: dict[str, Any]) -> str:
    location_type = str(posting.get("jobLocationType") or "").upper()
    if "TELECOMMUTE" in location_type:
        return "yes"
    return "unknown"


def _identifier(posting: dict[str, Any]) -> str | None:
    """identifier.value (or a bare identifier). A PropertyValue's `name` is the
    organization (LinkedIn sends only that), never the posting's id."""
    ident = posting.get("identifier")
    if isinstance(ident, list):
        ident = ident[0] if ident else None
    if isinstance(ident, dict):
        ident = ident.get("value")
    if isinstance(ident, bool) or ident in (None, ""):
        return None
    return clean_space(str(ident))


def description_html_of(posting: dict[str, Any]) -> str | None:
    """The description as HTML. Some sites (LinkedIn) entity-escape it once more:
    `&lt;p&gt;` with no real tags is unescaped once; real HTML is left alone."""
    description = posting.get("description")
    if not isinstance(description, str) or not description.strip():
        return None
    if "&lt;" in description and "<" not in description:
        return html.unescape(description)
    return description


def jsonld_to_posting(
    node: dict[str, Any],
    page_url: str,
    external_id: str | None = None,
    canonical: str | None = None,
) -> Posting:
    """`page_url` is where the page was fetched; the node's `url` and the page's
    `canonical` are claims, weighed by `parsers.urls.posting_url`."""
    description_html = description_html_of(node)
    posted_at, precision = parse_datetime(_text(node.get("datePosted")))
    url = posting_url(page_url, node.get("url"), canonical)
    title = _text(node.get("title")) or ""
    offices = offices_of(node)
    employment = node.get("employmentType")
    if isinstance(employment, list):
        employment = ", ".join(str(e) for e in employment)
    employment = clean_space(str(employment)) if employment else None
    company, legal_entity = _text(node.get("hiringOrganization")), None
    if company is not None and has_entity_code(company):
        company, legal_entity = None, company  # an entity code is not a brand
    return Posting(
        external_id=external_id or _identifier(node) or url,
        url=url,
        title=title,
        company=company,
        legal_entity=legal_entity,
        location_text="; ".join(o.text for o in offices) or None,
        offices=offices,
        description_html=description_html,
        description_text=html_to_text(description_html),
        employment_type=employment,
        posted_at=posted_at,
        posted_precision=precision,  # type: ignore[arg-type]
        remote=remote_of(node),  # type: ignore[arg-type]
        salary=salary_of(node),
        apply_url=url,
        job_type=job_type_for(title, employment),
        payload=node,
    )


_CANONICAL = re.compile(
    rb"<link[^>]+rel=[\"']canonical[\"'][^>]*href=[\"']([^\"']+)|"
    rb"<meta[^>]+property=[\"']og:url[\"'][^>]*content=[\"']([^\"']+)",
    re.I,
)


def canonical_url(body: bytes, fallback: str) -> str | None:
    """What the page says its own address is (rel=canonical, og:url), if anything.
    A claim only: `parsers.urls.posting_url` decides whether it names the posting."""
    match = _CANONICAL.search(body[:200_000])
    if not match:
        return None
    found = html.unescape((match.group(1) or match.group(2)).decode("utf-8", "replace"))
    return join_claim(fallback, found.strip()) if found.strip() else None


def unique_ids(candidates: list[tuple[str, Posting]]) -> list[tuple[str, Posting]]:
    """Postings of one page that fell back to the same URL as their id (no identifier,
    no URL of their own) are different postings: each gets a stable suffix from its
    title and place, so dedup never merges them into one."""
    counts: dict[str, int] = {}
    for _, posting in candidates:
        counts[posting.external_id] = counts.get(posting.external_id, 0) + 1
    out = []
    for path, posting in candidates:
        if counts[posting.external_id] > 1 and posting.external_id == posting.url:
            key = f"{posting.title}|{posting.location_text or ''}".encode()
            suffix = hashlib.sha256(key).hexdigest()[:12]
            posting = replace(posting, external_id=f"{posting.url}#{suffix}")
        out.append((path, posting))
    return out


@register("jsonld", PARSER_VERSION)
def parse_jsonld(doc: RawDocument) -> ParseOutcome:
    if not doc.body.strip():
        return ParseOutcome.rejected(Issue("empty_body", "the page is empty"))
    if looks_blocked(doc.body):
        return ParseOutcome.rejected(
            Issue("blocked", "the page is a bot-challenge page"), signal=PageSignal.BLOCKED
        )
    nodes, issues = find_job_postings(doc.body)
    if doc.kind is DocumentKind.DETAIL:
        description = nodes[0].get("description") if nodes else None
        text = html_to_text(html.unescape(description)) if isinstance(description, str) else None
        signal = page_signal(doc.body, doc.url, doc.status, text, unblocked=True)
        if signal in (PageSignal.CLOSED, PageSignal.NOT_FOUND):
            return ParseOutcome.rejected(
                Issue(
                    signal.value, f"the page says the posting is {signal.value.replace('_', ' ')}"
                ),
                signal=signal,
            )
    if not nodes:
        issues.append(Issue("no_jobposting", "no schema.org JobPosting JSON-LD on the page"))
        return ParseOutcome.rejected(*issues)
    canonical = canonical_url(doc.body, doc.url)
    candidates = [
        (f"jsonld[{i}]", jsonld_to_posting(node, doc.url, canonical=canonical))
        for i, node in enumerate(nodes)
    ]
    return outcome_from_postings(dedupe_postings(unique_ids(candidates)), issues=issues)
