"""Workable: the widget API (`/api/v1/widget/accounts/{account}?details=true`) and
the per-job record (`/api/v2/accounts/{account}/jobs/{shortcode}`, what the direct
check asks; it names no URL, so the job's page `/{account}/j/{shortcode}/` is built
on the same host).

API quirks: the same job appears once per country with the same `shortcode`; it
is one posting whose offices are the union (the repeats stay in its payload under
`_repeats`). The account name sits beside the jobs (`$.name`), not in them.
"""

from __future__ import annotations

import re
from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.types import ParseOutcome, RawDocument

PARSER_VERSION = "1"
_SECTIONS = (("description", None), ("requirements", "Requirements"), ("benefits", "Benefits"))
_V2_JOB = re.compile(r"^(?P<base>.*?)/api/v2/accounts/(?P<account>[^/?#]+)/jobs/(?P<code>[^/?#]+)")


def _adapt(draft: Draft, job: dict[str, Any], ctx: Context) -> None:
    parts = []
    for key, heading in _SECTIONS:
        value = job.get(key)
        if isinstance(value, str) and value.strip():
            parts.append((f"<h3>{heading}</h3>" if heading and parts else "") + value)
    draft["description_html"] = "\n".join(parts) or None
    record = _V2_JOB.match(ctx.doc.url) if ctx.single else None
    if record and not draft.get("url"):
        draft["url"] = f"{record['base']}/{record['account']}/j/{record['code']}/"


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="workable", id_pattern=r"/j/([0-9A-F]{6,})")


parse_workable = register("workable", PARSER_VERSION)(
    JsonParser(mappings.WORKABLE, adapt=_adapt, page=parse_page)
)
