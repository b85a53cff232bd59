"""Lever: the v0 postings API (`/v0/postings/{site}?mode=json`, also on the EU host
`api.eu.lever.co`) and the hosted posting page on jobs.lever.co.

API quirks: the listing is a bare JSON array; `createdAt` is epoch milliseconds;
text comes as HTML plus Plain twins, with the body split over `description`,
`lists[]` and `additional`; `categories.allLocations` names every office and
`workplaceType` is onsite / hybrid / remote. Hosted pages carry no JSON-LD: the
posting is read from the `posting-categories` markup.
"""

from __future__ import annotations

import html as htmllib
import re
from typing import Any

from parsel import Selector

from parsers import mappings
from parsers.common import job_type_for
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.text import clean_space, html_to_text, remote_from_text
from parsers.types import ParseOutcome, Posting, RawDocument, RawOffice, Salary

PARSER_VERSION = "1"

_INTERVALS = {
    "per-year-salary": "year",
    "per-month-salary": "month",
    "per-week-salary": "week",
    "per-day-wage": "day",
    "per-hour-wage": "hour",
}
_POSTING_ID = (
    r"/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:/apply)?/?(?:[?#]|$)"
)


def compose_description(posting: dict[str, Any]) -> str | None:
    """Lever splits the body: description, then titled lists, then `additional`."""
    parts: list[str] = []
    body = posting.get("description")
    if not isinstance(body, str) or not body.strip():
        body = "".join(
            p
            for p in (posting.get("opening"), posting.get("descriptionBody"))
            if isinstance(p, str)
        )
    if body.strip():
        parts.append(body)
    for item in posting.get("lists") or ():
        if isinstance(item, dict) and (item.get("text") or item.get("content")):
            heading = htmllib.escape(str(item.get("text") or ""))
            parts.append(f"<h3>{heading}</h3><ul>{item.get('content') or ''}</ul>")
    additional = posting.get("additional")
    if isinstance(additional, str) and additional.strip():
        parts.append(additional)
    return "\n".join(parts) or None


def _salary(posting: dict[str, Any]) -> Salary | None:
    rng = posting.get("salaryRange")
    described = clean_space(posting.get("salaryDescriptionPlain")) or html_to_text(
        posting.get("salaryDescription")
    )
    if not isinstance(rng, dict):
        return Salary(raw=described) if described else None
    low, high = rng.get("min"), rng.get("max")
    currency = clean_space(str(rng.get("currency") or "")) or None
    interval = str(rng.get("interval") or "")
    raw = described or f"{low}-{high} {currency or ''} {interval}".strip()
    return Salary(
        raw=raw,
        min=float(low) if isinstance(low, (int, float)) else None,
        max=float(high) if isinstance(high, (int, float)) else None,
        currency=currency,
        period=_INTERVALS.get(interval),
    )


def _adapt(draft: Draft, posting: dict[str, Any], ctx: Context) -> None:
    draft["description_html"] = compose_description(posting)
    draft["salary"] = _salary(posting)
    offices: list[RawOffice] = draft["offices"]
    country = posting.get("country")
    # `country` is the posting's; it names an office only when there is exactly one.
    if len(offices) == 1 and isinstance(country, str) and country:
        offices[0] = RawOffice(offices[0].text, country=country)


# ---------------------------------------------------------------- the hosted page


def _read_page(doc: RawDocument) -> Posting | None:
    page = Selector(text=doc.body.decode("utf-8", "replace"), type="html")
    title = clean_space(page.css(".posting-headline h2::text, .posting-header h2::text").get())
    if not title:
        return None

    def category(name: str) -> str | None:
        value = clean_space(" ".join(page.css(f".posting-categories .{name} ::text").getall()))
        return value.rstrip(" /").strip() or None if value else None

    sections = page.css(
        "[data-qa=job-description], .section.page-centered:has(> div > h3), "
        "[data-qa=closing-description]"
    ).getall()
    description_html = "\n".join(sections) or None
    description_text = html_to_text(description_html) or clean_space(
        page.css(
            "meta[name=description]::attr(content), meta[property='og:description']::attr(content)"
        ).get()
    )
    page_title = clean_space(page.css("title::text").get()) or ""
    company = page_title[: -len(title)].rstrip(" -–") if page_title.endswith(title) else None
    location = category("location")
    workplace = category("workplaceTypes")
    url = re.sub(r"/apply/?$", "", doc.url.split("?")[0])
    match = re.search(_POSTING_ID, doc.url)
    return Posting(
        external_id=match.group(1) if match else url,
        url=url,
        title=title,
        company=company or None,
        department=category("department"),
        location_text=location,
        offices=(RawOffice(location),) if location else (),
        description_html=description_html,
        description_text=description_text,
        employment_type=category("commitment"),
        remote=remote_from_text(workplace or location),  # type: ignore[arg-type]
        apply_url=f"{url}/apply",
        job_type=job_type_for(title, category("commitment")),
        payload={"title": title, "location": location, "workplaceTypes": workplace},
    )


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="lever", id_pattern=_POSTING_ID, reader=_read_page)


parse_lever = register("lever", PARSER_VERSION)(
    JsonParser(mappings.LEVER, adapt=_adapt, page=parse_page)
)
