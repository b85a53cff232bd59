"""Personio: the public XML feed (`https://{company}.jobs.personio.de/xml`, also
`.jobs.personio.com`), read into the shared JSON mapping.

Feed quirks: `<workzag-jobs><position>` elements; the description is a list of
`<jobDescription><name/><value/></jobDescription>` (HTML in CDATA);
`additionalOffices/office` lists more offices; `employmentType` (permanent,
intern, trainee, freelance, working_student) and `schedule` (full-time,
part-time) together make the employment type. A position repeated in the feed is
one posting. The XML parser resolves no entities and fetches nothing (no XXE).
"""

from __future__ import annotations

import html as htmllib
import re
from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser, row_markers
from parsers.registry import register
from parsers.rowfind import SHAPE_ISSUES
from parsers.text import clean_space
from parsers.types import Issue, ParseOutcome, RawDocument
from parsers.xmlfeed import feed_rows

PARSER_VERSION = "2"
_LIST_TAGS = {"additionalOffices", "jobDescriptions"}
_MARKERS = row_markers(mappings.PERSONIO)


def _element(node: Any) -> Any:
    children = list(node)
    if not children:
        return clean_space(node.text) if node.text else None
    if node.tag in _LIST_TAGS:
        return [_element(child) for child in children]
    return {child.tag: _element(child) for child in children}


def read_feed(doc: RawDocument) -> tuple[Any, ParseOutcome | None]:
    """The feed as {"positions": [...]}, or a rejection saying why it is unreadable."""
    found = feed_rows(doc, roots=("workzag-jobs",), item="position", markers=_MARKERS)
    if isinstance(found, ParseOutcome):
        return None, found
    nodes, _, issues = found
    positions = [_element(p) for p in nodes]
    data: dict[str, Any] = {"positions": [p for p in positions if isinstance(p, dict)]}
    if issues:
        data[SHAPE_ISSUES] = issues
    return data, None


def _description(position: dict[str, Any]) -> str | None:
    parts = []
    for item in position.get("jobDescriptions") or ():
        if isinstance(item, dict) and item.get("value"):
            name = item.get("name")
            heading = f"<h3>{htmllib.escape(name)}</h3>" if name else ""
            parts.append(heading + str(item["value"]))
    return "\n".join(parts) or None


def _adapt(draft: Draft, position: dict[str, Any], ctx: Context) -> None:
    draft["description_html"] = _description(position)
    kinds = [position.get("employmentType"), position.get("schedule")]
    draft["employment_type"] = ", ".join(k for k in kinds if isinstance(k, str) and k) or None
    # The feed lives at {site}/xml; each position's page at {site}/job/{id}.
    site = re.sub(r"/xml(?:[/?#].*)?$", "", ctx.doc.url)
    if draft.get("external_id") and site.startswith(("http://", "https://")):
        draft["url"] = f"{site}/job/{draft['external_id']}"


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="personio", id_pattern=r"/job/(\d+)")


_feed = JsonParser(mappings.PERSONIO, adapt=_adapt, prepare=read_feed)


@register("personio", PARSER_VERSION)
def parse_personio(doc: RawDocument) -> ParseOutcome:
    from parsers.jsonmap import looks_like_html

    if not doc.body.strip():
        return ParseOutcome.rejected(Issue("empty_body", "the response body is empty"))
    if looks_like_html(doc.body):
        return parse_page(doc)
    return _feed(doc)
