"""BambooHR: the careers list (`https://{company}.bamboohr.com/careers/list`) and
each opening's detail (`/careers/{id}/detail`).

API quirks: the list is the whole board (`meta.totalCount`, no paging) without
dates or descriptions; the detail wraps the posting in `result.jobOpening` with
`description` (HTML), `datePosted` (a date) and `compensation` (free text or
null); `location` is a company office and `atsLocation` a free-entered place;
`locationType` "1" is remote and "2" hybrid.
"""

from __future__ import annotations

import re
from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.text import parse_salary_text
from parsers.types import ParseOutcome, RawDocument

PARSER_VERSION = "2"
_CAREERS = re.compile(r"^(?P<base>.*?/careers)(?:/(?P<id>\d+))?(?:/(?:list|detail))?/?(?:\?.*)?$")


def _careers_base(url: str) -> tuple[str, str | None] | None:
    match = _CAREERS.match(url)
    return (match.group("base"), match.group("id")) if match else None


def _adapt(draft: Draft, opening: dict[str, Any], ctx: Context) -> None:
    found = _careers_base(ctx.doc.url)
    if ctx.single and found and found[1]:
        draft["external_id"] = draft.get("external_id") or found[1]
    external_id = draft.get("external_id")
    if found and external_id:
        base = found[0]
        draft["url"] = draft.get("url") or f"{base}/{external_id}"
        draft["detail_url"] = f"{base}/{external_id}/detail"
    compensation = opening.get("compensation")
    if isinstance(compensation, str):
        draft["salary"] = parse_salary_text(compensation)


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="bamboohr", id_pattern=r"/careers/(\d+)")


parse_bamboohr = register("bamboohr", PARSER_VERSION)(
    JsonParser(mappings.BAMBOOHR, adapt=_adapt, page=parse_page)
)
