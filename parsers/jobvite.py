"""Jobvite: the company's public XML job feed and its career-site job pages.

Feed: `https://app.jobvite.com/CompanyJobs/Xml.aspx?c={companyEId}` (the `companyEId`
is in the career site's inline settings), `<result>` of `<job>` elements: `id`
(`oD2D4fw6`, the id in the job page's URL), `title`, `requisitionId`, `category`,
`jobtype`, `location`, `date` (M/D/YYYY), `detail-url`
(`https://jobs.jobvite.com/{slug}/job/{id}`), `apply-url`, `description` (HTML) and
`briefdescription`. The whole board in one response; a company without open jobs is
redirected to `/nojobs.htm`. `&j={id}` asks for one job (its fields straight under
`<result>`).

Career-site search page: `https://jobs.jobvite.com/{slug}/search` (HTML; the real
capture in tests/fixtures/real_public/jobvite/): one row per job, a `tr` (or `li`)
holding the title link to `/{slug}/job/{id}` (the same `id` as the feed's) and a
`.jv-job-list-location` cell. No descriptions: each row's job page is its detail. A
`.jv-pagination-next` (or `rel="next"`) link names the next page. A page without rows
is an empty board when it says there are no open jobs, else a rejection.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from parsel import Selector

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser, row_markers
from parsers.registry import register
from parsers.signals import looks_blocked
from parsers.text import clean_space
from parsers.types import Issue, PageSignal, ParseOutcome, Quality, RawDocument
from parsers.urls import join_claim
from parsers.xmlfeed import is_html_page, read_feed

PARSER_VERSION = "2"
_MARKERS = row_markers(mappings.JOBVITE)
_JOB_LINK = re.compile(r"/job/([A-Za-z0-9]+)/?(?:[?#]|$)")
_NO_JOBS = re.compile(r"\bno (?:open |current )?(?:jobs|positions|openings)\b", re.I)
# The element that holds one job's link and its cells: the nearest table row, list item
# or article around the link.
_ROW_AROUND = "ancestor::*[self::tr or self::li or self::article][1]"


def _posted(value: Any) -> tuple[datetime | None, str] | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value.strip(), "%m/%d/%Y").replace(tzinfo=UTC), "day"
    except ValueError:
        return None


def _adapt(draft: Draft, job: dict[str, Any], ctx: Context) -> None:
    draft["posted_at"] = _posted(job.get("date")) or job.get("date")


def _read(doc: RawDocument) -> tuple[Any, ParseOutcome | None]:
    data, rejection = read_feed(doc, roots=("result",), item="job", key="jobs", markers=_MARKERS)
    if rejection is None and not data["jobs"] and data["$root"].get("id"):
        data["jobs"] = [data["$root"]]  # `&j={id}`: one job, straight under <result>
    return data, rejection


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="jobvite", id_pattern=r"/job/([A-Za-z0-9]+)")


def _site_row(link: Selector, base: str, job_id: str) -> dict[str, Any] | None:
    page = join_claim(base, link.attrib.get("href", ""))
    title = clean_space(" ".join(link.css("::text").getall()))
    if page is None or not title:
        return None
    rows = link.xpath(_ROW_AROUND)
    location = clean_space(" ".join(rows.css(".jv-job-list-location ::text").getall()))
    return {"id": job_id, "title": title, "url": page.split("?")[0], "location": location}


def read_search(doc: RawDocument) -> tuple[Any, ParseOutcome | None]:
    """The career-site search page's rows as the mapping reads them, or a rejection."""
    if looks_blocked(doc.body):
        return None, ParseOutcome.rejected(
            Issue("blocked", "the page is a bot-challenge page"), signal=PageSignal.BLOCKED
        )
    sel = Selector(text=doc.body.decode("utf-8", "replace"), type="html")
    jobs: dict[str, dict[str, Any]] = {}
    for link in sel.css("a[href]"):
        found = _JOB_LINK.search(link.attrib.get("href", ""))
        if found and found.group(1) not in jobs:
            row = _site_row(link, doc.url, found.group(1))
            if row is not None:
                jobs[found.group(1)] = row
    if not jobs:
        text = clean_space(" ".join(sel.css("body ::text").getall())) or ""
        if _NO_JOBS.search(text):
            return {"jobs": [], "next": None}, None
        return None, ParseOutcome.rejected(
            Issue("unexpected_shape", "no job links (/{slug}/job/{id}): not a career-site search")
        )
    following = sel.css("a.jv-pagination-next::attr(href), a[rel=next]::attr(href)").get()
    next_url = join_claim(doc.url, following) if following else None
    return {"jobs": list(jobs.values()), "next": next_url}, None


def _site_paging(data: Any, doc: RawDocument, count: int) -> tuple[str | None, dict[str, Any]]:
    return (data.get("next") if isinstance(data, dict) else None), {}


_feed = JsonParser(mappings.JOBVITE, adapt=_adapt, prepare=_read)
_search = JsonParser(mappings.JOBVITE_SITE, prepare=read_search, paging=_site_paging)


@register("jobvite", PARSER_VERSION)
def parse_jobvite(doc: RawDocument) -> ParseOutcome:
    if not doc.body.strip():
        return ParseOutcome.rejected(Issue("empty_body", "the response body is empty"))
    if doc.url.lower().split("?")[0].endswith("/nojobs.htm"):
        return ParseOutcome(
            quality=Quality.ACCEPTED
        )  # Jobvite's answer for a company without open jobs
    if is_html_page(doc.body):
        if _JOB_LINK.search(doc.url):
            return parse_page(doc)
        return _search(doc)
    return _feed(doc)
