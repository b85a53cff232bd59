"""Ashby: the public posting API (`/posting-api/job-board/{org}?includeCompensation=true`)
and the hosted job page on jobs.ashbyhq.com.

API quirks: `location` is free text beside a structured `address.postalAddress`
and `secondaryLocations[]`; remote is `isRemote` in older responses and
`workplaceType` in newer ones; pay is `compensation.summaryComponents[]` with
`interval: "1 YEAR"`; an empty board is `{"jobs": []}` with status 200. Hosted
pages carry schema.org JSON-LD (plus `window.__appData`).
"""

from __future__ import annotations

import re
from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.text import clean_space
from parsers.types import ParseOutcome, RawDocument, Salary

PARSER_VERSION = "2"

_INTERVALS = {
    "1 YEAR": "year",
    "1 MONTH": "month",
    "1 WEEK": "week",
    "1 DAY": "day",
    "1 HOUR": "hour",
}
_POSTING_ID = (
    r"/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:/application)?/?(?:[?#]|$)"
)


def compensation(job: dict[str, Any]) -> Salary | None:
    """The base salary component, when the board publishes one with figures."""
    comp = job.get("compensation")
    if not isinstance(comp, dict):
        return None
    summary = clean_space(comp.get("scrapeableCompensationSalarySummary")) or clean_space(
        comp.get("compensationTierSummary")
    )
    for part in comp.get("summaryComponents") or ():
        if not isinstance(part, dict) or part.get("compensationType") != "Salary":
            continue
        low, high = part.get("minValue"), part.get("maxValue")
        if not isinstance(low, (int, float)) and not isinstance(high, (int, float)):
            continue
        return Salary(
            raw=summary or f"{low}-{high} {part.get('currencyCode') or ''}".strip(),
            min=float(low) if isinstance(low, (int, float)) else None,
            max=float(high) if isinstance(high, (int, float)) else None,
            currency=part.get("currencyCode") or None,
            period=_INTERVALS.get(str(part.get("interval") or "")),
        )
    return Salary(raw=summary) if summary else None


def _adapt(draft: Draft, job: dict[str, Any], ctx: Context) -> None:
    draft["salary"] = compensation(job)


def job_url(fetched: str) -> str:
    """The API's `jobUrl` form of a hosted page's address: `https://jobs.ashbyhq.com/
    {board}/{id}`, without `/application`, a query or a fragment. The page's og:url
    spells the board by its display name ("Superhuman%20Platform%20Inc"), which
    would make the page and the API two postings."""
    match = re.match(r"^(https?://[^/]+/[^/?#]+)" + _POSTING_ID, fetched)
    return f"{match.group(1)}/{match.group(2)}" if match else fetched


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="ashby", id_pattern=_POSTING_ID, public_url=job_url)


parse_ashby = register("ashby", PARSER_VERSION)(
    JsonParser(mappings.ASHBY, adapt=_adapt, page=parse_page)
)
