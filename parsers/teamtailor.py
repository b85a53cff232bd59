"""Teamtailor: the public jobs feed (`https://{company}.teamtailor.com/jobs.json`,
a JSON Feed 1.1) and the hosted job page.

Feed quirks: each item embeds a schema.org JobPosting as `_jobposting` (locations
as `jobLocation[].address`, the numeric job id as `identifier.value`); the feed
may carry no description, in which case the hosted page (JSON-LD) is the detail.
"""

from __future__ import annotations

from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonld import offices_of, remote_of, salary_of
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.types import ParseOutcome, RawDocument

PARSER_VERSION = "2"


def _adapt(draft: Draft, item: dict[str, Any], ctx: Context) -> None:
    posting = item.get("_jobposting")
    if isinstance(posting, dict):
        draft["offices"] = list(offices_of(posting))
        draft["salary"] = salary_of(posting)
        if remote_of(posting) != "unknown":
            draft["remote"] = remote_of(posting)


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="teamtailor", id_pattern=r"/jobs/(\d+)")


parse_teamtailor = register("teamtailor", PARSER_VERSION)(
    JsonParser(mappings.TEAMTAILOR, adapt=_adapt, page=parse_page)
)
