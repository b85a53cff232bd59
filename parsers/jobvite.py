"""Jobvite: the company's public XML job feed and its career-site job pages.

Feed: `https://app.jobvite.com/CompanyJobs/Xml.aspx?c={companyEId}` (the `companyEId`
is in the career site's inline settings), `<result>` of `<job>` elements: `id`
(`oD2D4fw6`, the id in the job page's URL), `title`, `requisitionId`, `category`,
`jobtype`, `location`, `date` (M/D/YYYY), `detail-url`
(`https://jobs.jobvite.com/{slug}/job/{id}`), `apply-url`, `description` (HTML) and
`briefdescription`. The whole board in one response; a company without open jobs is
redirected to `/nojobs.htm`. `&j={id}` asks for one job (its fields straight under
`<result>`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser, row_markers
from parsers.registry import register
from parsers.types import Issue, ParseOutcome, Quality, RawDocument
from parsers.xmlfeed import is_html_page, read_feed

PARSER_VERSION = "1"
_MARKERS = row_markers(mappings.JOBVITE)


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


_feed = JsonParser(mappings.JOBVITE, adapt=_adapt, prepare=_read)


@register("jobvite", PARSER_VERSION)
def parse_jobvite(doc: RawDocument) -> ParseOutcome:
    if not doc.body.strip():
        return ParseOutcome.rejected(Issue("empty_body", "the response body is empty"))
    if doc.url.lower().split("?")[0].endswith("/nojobs.htm"):
        return ParseOutcome(
            quality=Quality.ACCEPTED
        )  # Jobvite's answer for a company without open jobs
    if is_html_page(doc.body):
        return parse_page(doc)
    return _feed(doc)
