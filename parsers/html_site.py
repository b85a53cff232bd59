"""Config-driven parser for HTML job sites: listing cards and detail pages.

A site is described in sources.yaml (selectors, id rule, pagination); this module
turns that description into a pure parser registered under the site's name. On
detail pages schema.org JSON-LD is preferred and the selectors fill what it lacks.
Selectors are parsel CSS, with `::text` and `::attr(name)` pseudo-elements.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache

from lxml import etree
from parsel import Selector
from parsel.csstranslator import HTMLTranslator

from parsers.common import dedupe_postings, job_type_for, merge_postings, outcome_from_postings
from parsers.hosted import signal_rejection
from parsers.jsonld import find_job_postings, jsonld_to_posting
from parsers.registry import Parser, ParserRegistry
from parsers.signals import looks_blocked
from parsers.text import (
    clean_space,
    html_to_text,
    parse_posted,
    parse_salary_text,
    remote_from_text,
)
from parsers.types import (
    DocumentKind,
    Issue,
    PageSignal,
    ParseOutcome,
    Posting,
    RawDocument,
    RawOffice,
)
from parsers.urls import join_claim
from parsers.vietnam import split_locations

# Bump when the code below changes what a given config extracts.
CODE_VERSION = "3"

# The field names a site's selectors may fill (anything else is a config error).
FIELDS = (
    "title",
    "company",
    "department",
    "location",
    "description",
    "employment_type",
    "posted",
    "salary",
    "remote",
    "apply_url",
)


@dataclass(frozen=True)
class HtmlSiteSpec:
    name: str
    item: str  # CSS selector of one job card on a listing page
    link: str  # inside a card: the detail URL, e.g. "a.job-title::attr(href)"
    id_pattern: str  # regex with one group, applied to the absolute detail URL
    listing_fields: Mapping[str, str] = field(default_factory=dict)  # title, company, location, ...
    detail_fields: Mapping[str, str] = field(default_factory=dict)
    next_page: str | None = None  # CSS of the next-page link, absent on the last page
    total: str | None = None  # CSS of the listing's own total count, when the site shows it
    use_jsonld: bool = True
    drop_query: bool = False  # posting URLs carry tracking parameters (?ta_source=...)

    @property
    def version(self) -> str:
        """Code version plus a hash of the selectors: a config edit is a new parser version."""
        blob = json.dumps(
            {
                "item": self.item,
                "link": self.link,
                "id": self.id_pattern,
                "listing": dict(self.listing_fields),
                "detail": dict(self.detail_fields),
                "next": self.next_page,
                "total": self.total,
                "jsonld": self.use_jsonld,
                "drop_query": self.drop_query,
            },
            sort_keys=True,
        )
        return f"{CODE_VERSION}.{hashlib.sha256(blob.encode()).hexdigest()[:10]}"


def _first(sel: Selector, css: str | None) -> str | None:
    """What `sel.css(css)` gives, all text joined for `::text`, else the first match,
    read from the compiled query's raw results: parsel wraps every result in a
    Selector first, and a detail page's `.company::text` matches every related card."""
    if not css:
        return None
    found = _query(css)(sel.root)
    results = found if isinstance(found, list) else [found]
    if "::text" in css:
        return clean_space(" ".join(map(_serialized, results)))
    return clean_space(_serialized(results[0])) if results else None


@lru_cache(maxsize=256)  # a site's few configured selectors, compiled once
def _query(css: str) -> etree.XPath:
    """The XPath parsel evaluates for `css` on an HTML selector, compiled."""
    try:
        return etree.XPath(HTMLTranslator().css_to_xpath(css), smart_strings=False)
    except etree.XPathError as exc:
        raise ValueError(f"XPath error: {exc} in {css}") from exc


def _serialized(result: object) -> str:
    """One result as parsel's `Selector.get()` serializes it on an HTML page."""
    if type(result) is str:  # text and attribute values, as they are
        return result
    try:
        return etree.tostring(result, method="html", encoding="unicode", with_tail=False)
    except (AttributeError, TypeError):
        if result is True:
            return "1"
        if result is False:
            return "0"
        return str(result)


def _external_id(spec: HtmlSiteSpec, url: str) -> str | None:
    match = re.search(spec.id_pattern, url)
    return match.group(1) if match else None


def _count(text: str | None) -> int | None:
    """The first number in the text ("Tuyển dụng 5.593 việc làm" -> 5593)."""
    match = re.search(r"\d[\d.,\s]*", text or "")
    if not match:
        return None
    digits = re.sub(r"[^\d]", "", match.group(0))
    return int(digits) if digits else None


def offices_from_text(text: str | None) -> tuple[tuple[RawOffice, ...], int]:
    """Offices and an unnamed-office count: Vietnamese province lists are split
    ("Hà Nội & 2 nơi khác" -> Hà Nội, 2 more); anything else is one office as written."""
    if not text:
        return (), 0
    split = split_locations(text)
    if split is not None:
        return split
    return (RawOffice(text),), 0


def _posting_from_fields(
    spec: HtmlSiteSpec,
    values: Mapping[str, str | None],
    url: str,
    external_id: str,
    fetched_at: datetime | None = None,
) -> Posting:
    title = values.get("title") or ""
    description_html = values.get("description")
    posted_at, precision = parse_posted(values.get("posted"), fetched_at)
    location = values.get("location")
    offices, more = offices_from_text(location)
    employment_type = values.get("employment_type")
    return Posting(
        external_id=external_id,
        url=url,
        title=title,
        company=values.get("company"),
        department=values.get("department"),
        location_text=location,
        offices=offices,
        description_html=description_html,
        description_text=html_to_text(description_html),
        employment_type=employment_type,
        posted_at=posted_at,
        posted_precision=precision,  # type: ignore[arg-type]
        remote=remote_from_text(values.get("remote") or location),  # type: ignore[arg-type]
        salary=parse_salary_text(values.get("salary")),
        apply_url=values.get("apply_url") or url,
        job_type=job_type_for(title, employment_type),
        more_offices=more,
        payload={k: v for k, v in values.items() if v is not None},
    )


def _clean_url(spec: HtmlSiteSpec, url: str) -> str:
    return url.split("?", 1)[0].split("#", 1)[0] if spec.drop_query else url


def parse_listing(spec: HtmlSiteSpec, doc: RawDocument, sel: Selector) -> ParseOutcome:
    candidates: list[tuple[str, Posting]] = []
    issues: list[Issue] = []
    cards = sel.css(spec.item)
    if not cards:
        # A page without a single card is a changed layout or an error page far more
        # often than an empty category: never let it pass for an empty listing.
        return ParseOutcome.rejected(
            Issue("no_items", f"no element matches the item selector {spec.item!r}")
        )
    unusable = 0
    for index, card in enumerate(cards):
        path = f"{spec.item}[{index}]"
        href = _first(card, spec.link)
        if not href:
            issues.append(Issue("missing_link", "job card has no detail link", path))
            unusable += 1
            continue
        joined = join_claim(doc.url, href)
        url = _clean_url(spec, joined) if joined else ""
        external_id = _external_id(spec, url) if url else None
        if not external_id:
            issues.append(Issue("bad_link", f"detail URL does not match id_pattern: {url}", path))
            unusable += 1
            continue
        values = {name: _first(card, css) for name, css in spec.listing_fields.items()}
        posting = _posting_from_fields(spec, values, url, external_id, doc.fetched_at)
        candidates.append((path, posting))
    next_href = _first(sel, spec.next_page)
    return outcome_from_postings(
        dedupe_postings(candidates),
        issues=issues,
        total=_count(_first(sel, spec.total)),
        next_page_url=join_claim(doc.url, next_href) if next_href else None,
        listing=True,
        dropped=unusable,
    )


def parse_detail(spec: HtmlSiteSpec, doc: RawDocument, sel: Selector) -> ParseOutcome:
    """A detail page `looks_blocked` has passed (the parser checks every page first)."""
    url = _clean_url(spec, doc.url)
    external_id = _external_id(spec, url) or ""
    values = {name: _first(sel, css) for name, css in spec.detail_fields.items()}
    from_selectors = _posting_from_fields(spec, values, url, external_id, doc.fetched_at)
    issues: list[Issue] = []
    posting = from_selectors
    nodes: list[dict[str, object]] = []
    if spec.use_jsonld:
        nodes, issues = find_job_postings(doc.body)
        if nodes:
            from_jsonld = jsonld_to_posting(nodes[0], url, external_id=external_id or None)
            posting = merge_postings(from_jsonld, from_selectors)
    # A closed or error page says so outside the posting's own description.
    rejection = signal_rejection(doc, posting.description_text)
    if rejection is not None:
        return rejection
    if not nodes and not posting.description_text:
        # A heading alone could be any page ("502 Bad Gateway"): a posting needs
        # its JSON-LD or its description.
        message = "the page has neither JSON-LD nor a description from the configured fields"
        return ParseOutcome.rejected(*issues, Issue("no_posting", message))
    return outcome_from_postings([("$", _split_vietnamese(posting))], issues=issues)


def _split_vietnamese(posting: Posting) -> Posting:
    """JSON-LD localities like "Hà Nội & 2 nơi khác" become provinces plus a count,
    the same reading the listing cards get."""
    offices: list[RawOffice] = []
    more = posting.more_offices
    changed = False
    for office in posting.offices:
        split = split_locations(office.city or office.text)
        if split is None:
            offices.append(office)
            continue
        found, extra = split
        offices.extend(o for o in found if o not in offices)
        more = max(more, extra)
        changed = True
    return replace(posting, offices=tuple(offices), more_offices=more) if changed else posting


def build_parser(spec: HtmlSiteSpec) -> Parser:
    def parse(doc: RawDocument) -> ParseOutcome:
        if not doc.body.strip():
            return ParseOutcome.rejected(Issue("empty_body", "the page is empty"))
        if looks_blocked(doc.body):
            return ParseOutcome.rejected(
                Issue("blocked", "the page is a bot-challenge page"), signal=PageSignal.BLOCKED
            )
        sel = Selector(text=doc.body.decode("utf-8", "replace"), type="html")
        if doc.kind is DocumentKind.LISTING:
            return parse_listing(spec, doc, sel)
        return parse_detail(spec, doc, sel)

    return Parser(name=spec.name, version=spec.version, parse=parse)


def register_sites(registry: ParserRegistry, specs: list[HtmlSiteSpec]) -> ParserRegistry:
    """A copy of `registry` with one parser per configured site (duplicates fail loudly)."""
    extended = registry.copy()
    for spec in specs:
        extended.add(build_parser(spec))
    return extended
