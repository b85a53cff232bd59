"""SAP SuccessFactors Recruiting: the career site's public XML feed and job pages.

Feed: `https://{host}/career?company={company}&career_ns=job_listing_summary
&resultType=XML` (hosts such as `career2.successfactors.eu`, `career10.successfactors
.com`, `career17.sapsf.com`), the whole board in one `<Job-Listing>` of `<Job>`
elements: `JobTitle`, `ReqId`, `Job-Description` (HTML as escaped text),
`Posted-Date` (MM/DD/YYYY), and facets `filterN` / `mfieldN`, each a `<label>` and a
`<value>`, whose numbering differs per tenant: they are read by label ("Posting
Location", else "Country"; "Job Family / Functional Area"; "Type of Employment").
A posting's page: `/career?career_ns=job_listing&company={company}
&navBarLevel=JOB_SEARCH&career_job_req_id={ReqId}`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser, row_markers
from parsers.registry import register
from parsers.text import clean_place, unescape_html
from parsers.types import Issue, ParseOutcome, RawDocument, RawOffice
from parsers.xmlfeed import is_html_page, read_feed

PARSER_VERSION = "1"
_MARKERS = row_markers(mappings.SUCCESSFACTORS)
_LOCATION = ("Posting Location", "Location", "Country")
_DEPARTMENT = ("Job Family / Functional Area", "Department", "Function")
_EMPLOYMENT = ("Type of Employment", "Employment Type")


def facets(job: dict[str, Any]) -> dict[str, str]:
    """`filterN` / `mfieldN` facets by their labels."""
    out: dict[str, str] = {}
    for tag, value in job.items():
        if tag.startswith(("filter", "mfield")) and isinstance(value, dict):
            label, text = value.get("label"), value.get("value")
            if isinstance(label, str) and isinstance(text, str) and text.strip():
                out.setdefault(label.strip(), unescape_html(text).strip())
    return out


def _first(found: dict[str, str], labels: tuple[str, ...]) -> str | None:
    return next((found[label] for label in labels if label in found), None)


def job_page(feed_url: str, req_id: str) -> str | None:
    parts = urlsplit(feed_url)
    company = (parse_qs(parts.query).get("company") or [""])[0]
    if not company or not parts.netloc:
        return None
    base = f"{parts.scheme}://{parts.netloc}{parts.path}"
    return (
        f"{base}?career_ns=job_listing&company={company}&navBarLevel=JOB_SEARCH"
        f"&career_job_req_id={req_id}"
    )


def _posted(value: Any) -> tuple[datetime | None, str] | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value.strip(), "%m/%d/%Y").replace(tzinfo=UTC), "day"
    except ValueError:
        return None


def _adapt(draft: Draft, job: dict[str, Any], ctx: Context) -> None:
    found = facets(job)
    place = clean_place(_first(found, _LOCATION))
    draft["location_text"] = place
    draft["offices"] = [RawOffice(place, country=found.get("Country"))] if place else []
    draft["department"] = _first(found, _DEPARTMENT)
    draft["employment_type"] = _first(found, _EMPLOYMENT)
    draft["posted_at"] = _posted(job.get("Posted-Date")) or job.get("Posted-Date")
    description = job.get("Job-Description")
    if isinstance(description, str) and "&lt;" in description:
        draft["description_html"] = unescape_html(description)
    req_id = draft.get("external_id")
    if req_id:
        draft["url"] = job_page(ctx.doc.url, str(req_id))


def _read(doc: RawDocument) -> tuple[Any, ParseOutcome | None]:
    return read_feed(doc, roots=("Job-Listing",), item="Job", key="jobs", markers=_MARKERS)


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="successfactors", id_pattern=r"career_job_req_id=(\w+)")


_feed = JsonParser(mappings.SUCCESSFACTORS, adapt=_adapt, prepare=_read)


@register("successfactors", PARSER_VERSION)
def parse_successfactors(doc: RawDocument) -> ParseOutcome:
    if not doc.body.strip():
        return ParseOutcome.rejected(Issue("empty_body", "the response body is empty"))
    if is_html_page(doc.body) or re.search(r"career_ns=job_listing(?:&|$)", doc.url):
        return parse_page(doc)
    return _feed(doc)
