"""schema.org JobPosting JSON-LD, the common fallback for any job detail page.

Real pages nest the posting in `@graph`, write the script type as
`application/ld&#x2B;json`, HTML-escape descriptions, and give locations as a
Place or a list of Places; all of those are handled here.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

from parsers.common import job_type_from_title, outcome_from_postings
from parsers.registry import register
from parsers.signals import looks_blocked
from parsers.text import clean_space, html_to_text, parse_datetime
from parsers.types import (
    Issue,
    PageSignal,
    ParseOutcome,
    Posting,
    RawDocument,
    RawOffice,
    Salary,
)

PARSER_VERSION = "1"

_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
_TYPE_ATTR = re.compile(r"""type\s*=\s*["']?([^"'\s>]+)""", re.IGNORECASE)


def _json_ld_blocks(body: bytes) -> Iterator[str]:
    for match in _SCRIPT.finditer(body):
        attrs = html.unescape(match.group(1).decode("utf-8", "replace"))
        type_match = _TYPE_ATTR.search(attrs)
        if type_match and type_match.group(1).lower() == "application/ld+json":
            yield match.group(2).decode("utf-8", "replace")


def _loads_lenient(text: str) -> Any:
    text = text.strip()
    if text.startswith("<!--"):
        text = text.removeprefix("<!--").removesuffix("-->").strip()
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError:
        # Some sites entity-encode the whole block (`{&quot;@type&quot;: ...}`).
        return json.loads(html.unescape(text), strict=False)


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
        try:
            data = _loads_lenient(block)
        except json.JSONDecodeError as exc:
            issues.append(Issue("invalid_jsonld", f"JSON-LD block {index}: {exc.msg}"))
            continue
        found.extend(_walk(data))
    return found, issues


def _text(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("name") or value.get("value") or value.get("@id")
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value if v)
    return clean_space(html.unescape(str(value))) if value not in (None, "") else None


def _offices(posting: dict[str, Any]) -> tuple[RawOffice, ...]:
    places = posting.get("jobLocation") or []
    places = places if isinstance(places, list) else [places]
    offices: list[RawOffice] = []
    for place in places:
        if not isinstance(place, dict):
            continue
        address = place.get("address") or {}
        if isinstance(address, str):
            offices.append(RawOffice(text=clean_space(address) or ""))
            continue
        city = _text(address.get("addressLocality"))
        region = _text(address.get("addressRegion"))
        country = _text(address.get("addressCountry"))
        text = ", ".join(p for p in (city, region, country) if p)
        if text:
            offices.append(RawOffice(text=text, city=city, region=region, country=country))
    return tuple(o for o in offices if o.text)


def _salary(posting: dict[str, Any]) -> Salary | None:
    base = posting.get("baseSalary") or posting.get("estimatedSalary")
    if isinstance(base, list):
        base = base[0] if base else None
    if not isinstance(base, dict):
        return None
    value = base.get("value")
    currency = _text(base.get("currency"))
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
    raw = json.dumps(base, ensure_ascii=False, sort_keys=True)
    return Salary(
        raw=raw, min=low, max=high, currency=currency, period=(period or "").lower() or None
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


def _remote(posting: dict[str, Any]) -> str:
    location_type = str(posting.get("jobLocationType") or "").upper()
    if "TELECOMMUTE" in location_type:
        return "yes"
    return "unknown"


def _identifier(posting: dict[str, Any]) -> str | None:
    ident = posting.get("identifier")
    if isinstance(ident, dict):
        ident = ident.get("value") or ident.get("name")
    return clean_space(str(ident)) if ident not in (None, "") else None


def jsonld_to_posting(
    node: dict[str, Any], page_url: str, external_id: str | None = None
) -> Posting:
    description = node.get("description")
    description_html = html.unescape(description) if isinstance(description, str) else None
    posted_at, precision = parse_datetime(_text(node.get("datePosted")))
    url = node.get("url")
    url = urljoin(page_url, url) if isinstance(url, str) and url else page_url
    title = _text(node.get("title")) or ""
    offices = _offices(node)
    employment = node.get("employmentType")
    if isinstance(employment, list):
        employment = ", ".join(str(e) for e in employment)
    return Posting(
        external_id=external_id or _identifier(node) or url,
        url=url,
        title=title,
        company=_text(node.get("hiringOrganization")),
        location_text="; ".join(o.text for o in offices) or None,
        offices=offices,
        description_html=description_html,
        description_text=html_to_text(description_html),
        employment_type=clean_space(str(employment)) if employment else None,
        posted_at=posted_at,
        posted_precision=precision,  # type: ignore[arg-type]
        remote=_remote(node),  # type: ignore[arg-type]
        salary=_salary(node),
        apply_url=url,
        job_type=job_type_from_title(title),
        payload=node,
    )


@register("jsonld", PARSER_VERSION)
def parse_jsonld(doc: RawDocument) -> ParseOutcome:
    if not doc.body.strip():
        return ParseOutcome.rejected(Issue("empty_body", "the page is empty"))
    if looks_blocked(doc.body):
        return ParseOutcome.rejected(
            Issue("blocked", "the page is a bot-challenge page"), signal=PageSignal.BLOCKED
        )
    nodes, issues = find_job_postings(doc.body)
    if not nodes:
        issues.append(Issue("no_jobposting", "no schema.org JobPosting JSON-LD on the page"))
        return ParseOutcome.rejected(*issues)
    candidates = [
        (f"jsonld[{i}]", jsonld_to_posting(node, doc.url)) for i, node in enumerate(nodes)
    ]
    return outcome_from_postings(candidates, issues=issues)
