"""Pinpoint: the public postings feed (`https://{company}.pinpointhq.com/postings.json`)
and the hosted posting page (`/en/postings/{uuid}`, schema.org JSON-LD).

Feed quirks: `{data: [...]}` holds every open posting in one response (no paging);
the advert is split into HTML sections (`description`, `key_responsibilities`,
`skills_knowledge_expertise`, `benefits`), each but the first with its own
`*_header`; the department is nested (`job.department.name`); `location` has
`name`, `city` and `province` but no country; remote work is said by
`workplace_type` (remote / hybrid / onsite) and its display text `workplace_type_text`
("Hybrid"), which some rows carry alone; `compensation` is display text, shown
only when `compensation_visible` is true. The feed's `id` is numeric while the public
URL carries a UUID: the UUID is the posting's id, so the feed and the hosted page
(the direct check) name the posting alike.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.text import parse_salary_text
from parsers.types import ParseOutcome, RawDocument

PARSER_VERSION = "2"

# Pure, and a board repeats its pay texts: parsed once per distinct text.
_salary_text = lru_cache(maxsize=4096)(parse_salary_text)
_UUID = r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
_POSTING_UUID = re.compile(r"/postings/" + _UUID, re.I)
_SECTIONS = (
    ("description", None),
    ("key_responsibilities", "key_responsibilities_header"),
    ("skills_knowledge_expertise", "skills_knowledge_expertise_header"),
    ("benefits", "benefits_header"),
)


def description_html(item: dict[str, Any]) -> str | None:
    parts = []
    for key, header_key in _SECTIONS:
        body = item.get(key)
        if not isinstance(body, str) or not body.strip():
            continue
        header = item.get(header_key) if header_key else None
        parts.append((f"<h3>{header}</h3>" if isinstance(header, str) and header else "") + body)
    return "\n".join(parts) or None


def _adapt(draft: Draft, item: dict[str, Any], ctx: Context) -> None:
    found = _POSTING_UUID.search(str(item.get("url") or item.get("path") or ""))
    if found:
        draft["external_id"] = found.group(1).lower()
    draft["description_html"] = description_html(item)
    compensation = item.get("compensation")
    if isinstance(compensation, str) and item.get("compensation_visible") in (True, "true"):
        draft["salary"] = _salary_text(compensation)


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="pinpoint", id_pattern=r"/postings/" + _UUID)


parse_pinpoint = register("pinpoint", PARSER_VERSION)(
    JsonParser(mappings.PINPOINT, adapt=_adapt, page=parse_page)
)
