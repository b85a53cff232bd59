"""Workable: the widget API (`/api/v1/widget/accounts/{account}?details=true`).

API quirks: the same job appears once per country with the same `shortcode`; it
is one posting whose offices are the union (the repeats stay in its payload under
`_repeats`). The account name sits beside the jobs (`$.name`), not in them.
"""

from __future__ import annotations

from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.types import ParseOutcome, RawDocument

PARSER_VERSION = "1"
_SECTIONS = (("description", None), ("requirements", "Requirements"), ("benefits", "Benefits"))


def _adapt(draft: Draft, job: dict[str, Any], ctx: Context) -> None:
    parts = []
    for key, heading in _SECTIONS:
        value = job.get(key)
        if isinstance(value, str) and value.strip():
            parts.append((f"<h3>{heading}</h3>" if heading and parts else "") + value)
    draft["description_html"] = "\n".join(parts) or None


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="workable", id_pattern=r"/j/([0-9A-F]{6,})")


parse_workable = register("workable", PARSER_VERSION)(
    JsonParser(mappings.WORKABLE, adapt=_adapt, page=parse_page)
)
