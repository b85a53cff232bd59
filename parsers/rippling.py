"""Rippling: the public job-board API behind `ats.rippling.com/{board}/jobs`.

`GET /api/v2/board/{board}/jobs?page=N&pageSize=M` answers `{items, page, pageSize,
totalItems, totalPages}`, pages counted from 0; rows have `id` (a UUID), `name`,
`url` (the hosted page `ats.rippling.com/{board}/jobs/{id}`), `department.name` and
`locations[]` (`name`, `city`, `state`, `country`, `countryCode`, `workplaceType`
ON_SITE / REMOTE / HYBRID), but no description and no date. The same posting may be
listed once per location: one posting, every office. `GET .../jobs/{id}` is the
detail: `description` as named HTML sections (`company`, `role`), `companyName`,
`employmentType` (`label` a code such as SALARIED_FT, `id` its readable text),
`createdOn`, and `payRangeDetails[]` (`currency`, `frequency`, `rangeStart`,
`rangeEnd`). The older v1 board API (`api.rippling.com/platform/api/ats/v1/board/{board}/jobs`)
is a bare array of `uuid`, `name`, `url`, `department.label` and `workLocation.label`,
a posting again listed once per location.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser, looks_like_html
from parsers.registry import register
from parsers.text import salary_text
from parsers.types import Issue, PageSignal, ParseOutcome, RawDocument, Salary

PARSER_VERSION = "2"
_API = re.compile(r"^(?P<api>.*?/api/v2/board/[^/?#]+)/jobs(?:/(?P<id>[^/?#]+))?/?(?:[?#]|$)")
_PERIODS = {"YEAR": "year", "MONTH": "month", "WEEK": "week", "DAY": "day", "HOUR": "hour"}
_SECTIONS = ("company", "role", "requirements", "benefits")


def description_html(value: Any) -> str | None:
    """The detail's `description`: named HTML sections, or (older boards) one string."""
    if isinstance(value, str):
        return value or None
    if not isinstance(value, dict):
        return None
    keys = [k for k in _SECTIONS if k in value] + [k for k in value if k not in _SECTIONS]
    parts = [value[k] for k in keys if isinstance(value[k], str) and value[k].strip()]
    return "\n".join(parts) or None


def pay_range(job: dict[str, Any]) -> Salary | None:
    ranges = job.get("payRangeDetails")
    first = ranges[0] if isinstance(ranges, list) and ranges else None
    if not isinstance(first, dict):
        return None
    low, high = first.get("rangeStart"), first.get("rangeEnd")
    low = float(low) if isinstance(low, (int, float)) else None
    high = float(high) if isinstance(high, (int, float)) else None
    if low is None and high is None:
        return None
    currency = first.get("currency") if isinstance(first.get("currency"), str) else None
    period = _PERIODS.get(str(first.get("frequency") or "").upper())
    return Salary(salary_text(low, high, currency, period), low, high, currency, period)


def hosted_url(api: str, job_id: str) -> str:
    """`{origin}/api/v2/board/{board}` + id -> the hosted page `{origin}/{board}/jobs/{id}`."""
    origin, _, board = api.rpartition("/api/v2/board/")
    return f"{origin}/{board}/jobs/{job_id}"


def _adapt(draft: Draft, job: dict[str, Any], ctx: Context) -> None:
    match = _API.match(ctx.doc.url)
    if ctx.single:
        if match and match.group("id"):
            draft["external_id"] = draft.get("external_id") or match.group("id")
            draft["url"] = draft.get("url") or hosted_url(match.group("api"), match.group("id"))
        draft["description_html"] = description_html(job.get("description"))
        draft["salary"] = pay_range(job)
        return
    if match and draft.get("external_id"):
        draft["detail_url"] = f"{match.group('api')}/jobs/{draft['external_id']}"


def next_page(data: Any, doc: RawDocument, count: int) -> tuple[str | None, dict[str, Any]]:
    """The next page's URL while `page + 1 < totalPages` (pages count from 0)."""
    pages, page = (data.get("totalPages"), data.get("page")) if isinstance(data, dict) else (0, 0)
    parts = urlsplit(doc.url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    current = page if isinstance(page, int) else int(query.get("page", "0") or 0)
    if not isinstance(pages, int) or count == 0 or current + 1 >= pages:
        return None, {"count": count}
    query["page"] = str(current + 1)
    return urlunsplit(parts._replace(query=urlencode(query))), {"count": count}


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="rippling", id_pattern=r"/jobs/([0-9a-f-]{36})")


_json = JsonParser(mappings.RIPPLING, adapt=_adapt, page=parse_page, paging=next_page)


@register("rippling", PARSER_VERSION)
def parse_rippling(doc: RawDocument) -> ParseOutcome:
    """A 404 from the detail API (`{"detail": "Not found."}`) is the posting's absence."""
    if doc.status == 404 and not looks_like_html(doc.body):
        return ParseOutcome.rejected(
            Issue("not_found", "the API has no such posting (404)"), signal=PageSignal.NOT_FOUND
        )
    return _json(doc)
