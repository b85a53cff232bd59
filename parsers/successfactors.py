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

Career Site Builder RSS feed: `https://{site}/googlefeed.xml` on the company's own
site (the address and the Google Base fields as public clients read them; no real
capture in the project): an RSS 2.0 `<channel>` of `<item>`s with `title`, `link` (the
site's `/job/{slug}/{id}/` page), `description` (HTML, escaped once or twice),
`pubDate` (RFC 822), and `g:id`, `g:location`, `g:job_function`,
`g:expiration_date` (the `g:` prefix is read as `g_`, declared or not). The id is
`g:id`, else the number ending the link, else `guid`; a title that ends in its own
location in parentheses ("Analyst (Zurich, CH)") loses that suffix, as the XML feed's
`JobTitle` has none. `g:expiration_date` is when the advert lapses, not a posting date,
and is not read. Whether `g:id` equals the XML feed's `ReqId` on a real tenant is not
verified: where it differs, a board that falls back lists its jobs under new ids.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser, row_markers
from parsers.registry import register
from parsers.rowfind import RowMarkers
from parsers.text import clean_place, unescape_html
from parsers.types import DocumentKind, Issue, ParseOutcome, RawDocument, RawOffice
from parsers.xmlfeed import is_html_page, read_feed

PARSER_VERSION = "1"
_MARKERS = row_markers(mappings.SUCCESSFACTORS)
_RSS_MARKERS = RowMarkers(("g_id", "guid", "link"), ("title",))
_RSS = re.compile(rb"<(?:rss|channel|item)[\s>]")
_G_PREFIX = re.compile(rb"<(/?)g:")
_G_DECLARATION = re.compile(rb"\s+xmlns:g=(?:\"[^\"]*\"|'[^']*')")
_LINK_ID = re.compile(r"/(\d+)/?(?:[?#].*)?$")
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
    return parse_hosted_page(
        doc, platform="successfactors", id_pattern=r"(?:career_job_req_id=|/job/[^/]+/)(\w+)"
    )


def _unprefixed(body: bytes) -> bytes:
    """`g:` elements as `g_` ones: read alike whether the prefix is declared or not."""
    return _G_PREFIX.sub(rb"<\1g_", _G_DECLARATION.sub(b"", body))


def _rss_id(item: dict[str, Any]) -> str | None:
    for value in (item.get("g_id"), _link_id(item.get("link")), item.get("guid")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _link_id(link: Any) -> str | None:
    found = _LINK_ID.search(link) if isinstance(link, str) else None
    return found.group(1) if found else None


def _read_rss(doc: RawDocument) -> tuple[Any, ParseOutcome | None]:
    plain = replace(doc, body=_unprefixed(doc.body))
    data, rejection = read_feed(
        plain, roots=("rss",), item="item", key="jobs", markers=_RSS_MARKERS
    )
    if rejection is None:
        for item in data["jobs"]:
            item["id"] = _rss_id(item)
    return data, rejection


def _rss_title(title: Any, location: str | None) -> Any:
    if isinstance(title, str) and location and title.endswith(f" ({location})"):
        return title[: -len(location) - 3].rstrip()
    return title


def _rss_adapt(draft: Draft, item: dict[str, Any], ctx: Context) -> None:
    location = clean_place(item.get("g_location"))
    draft["title"] = _rss_title(draft.get("title"), item.get("g_location"))
    draft["location_text"] = location
    draft["offices"] = [RawOffice(location)] if location else []
    description = item.get("description")
    if isinstance(description, str) and "&lt;" in description:
        draft["description_html"] = unescape_html(description)
    published = item.get("pubDate")
    try:
        when = parsedate_to_datetime(published) if isinstance(published, str) else None
    except (TypeError, ValueError):
        when = None
    if when is not None and when.tzinfo is not None:
        draft["posted_at"] = (when.astimezone(UTC), "exact")


_feed = JsonParser(mappings.SUCCESSFACTORS, adapt=_adapt, prepare=_read)
_rss = JsonParser(mappings.SUCCESSFACTORS_RSS, adapt=_rss_adapt, prepare=_read_rss)


@register("successfactors", PARSER_VERSION)
def parse_successfactors(doc: RawDocument) -> ParseOutcome:
    if not doc.body.strip():
        return ParseOutcome.rejected(Issue("empty_body", "the response body is empty"))
    if is_html_page(doc.body) or re.search(r"career_ns=job_listing(?:&|$)", doc.url):
        return parse_page(doc)
    if doc.kind is DocumentKind.LISTING and _RSS.search(doc.body) and b"<Job>" not in doc.body:
        return _rss(doc)
    return _feed(doc)
