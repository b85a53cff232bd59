"""Workable: the widget API (`/api/v1/widget/accounts/{account}?details=true`) and
the careers-page API (`POST /api/v3/accounts/{account}/jobs`).

Widget quirks: the same job appears once per country with the same `shortcode`;
it is one posting whose offices are the union (the repeats stay in its payload
under `_repeats`). The account name sits beside the jobs (`$.name`), not in them.

v3 quirks: `{total, results[], nextPage}`; a page holds 10 rows and the next one is
asked for by POSTing the same query with `"token": nextPage`; rows have
`workplace` (on_site / hybrid / remote), `department` as a list (its hierarchy),
`published`, no description and no URL: the public page is
`https://apply.workable.com/{account}/j/{shortcode}/` and the description comes
from `GET /api/v2/accounts/{account}/jobs/{shortcode}` (the posting's detail).
"""

from __future__ import annotations

import re
from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.rowfind import SHAPE_ISSUE
from parsers.types import ParseOutcome, RawDocument

PARSER_VERSION = "2"
_SECTIONS = (("description", None), ("requirements", "Requirements"), ("benefits", "Benefits"))


def _adapt(draft: Draft, job: dict[str, Any], ctx: Context) -> None:
    parts: list[str] = []
    for key, heading in _SECTIONS:
        value = job.get(key)
        if isinstance(value, str) and value.strip():
            parts.append((f"<h3>{heading}</h3>" if heading and parts else "") + value)
    draft["description_html"] = "\n".join(parts) or None


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="workable", id_pattern=r"/j/([0-9A-F]{6,})")


_V3 = re.compile(
    r"^(?P<origin>https?://[^/]+(?:/[^/]+)*?)/api/v[23]/accounts/(?P<account>[^/?#]+)/jobs"
)


def _adapt_v3(draft: Draft, job: dict[str, Any], ctx: Context) -> None:
    match = _V3.match(ctx.doc.url)
    code = job.get("shortcode")
    if match and isinstance(code, str) and code:
        origin, account = match.group("origin", "account")
        draft["url"] = f"{origin}/{account}/j/{code}/"
        draft["apply_url"] = f"{origin}/{account}/j/{code}/apply/"
        draft["detail_url"] = f"{origin}/api/v2/accounts/{account}/jobs/{code}"
    if not ctx.single:
        return
    _adapt(draft, job, ctx)  # a v2 detail: description, requirements, benefits


def _paging_v3(data: Any, doc: RawDocument, count: int) -> tuple[str | None, dict[str, Any]]:
    token = data.get("nextPage") if isinstance(data, dict) else None
    return None, {"count": count, "next_token": token if isinstance(token, str) and token else None}


# The widget reader's issues that say the body is not in its shape (the second one
# when it still found rows with a shortcode and a title elsewhere, as in v3 `results`).
_NOT_WIDGET = frozenset({"unexpected_shape", SHAPE_ISSUE})

_widget = JsonParser(mappings.WORKABLE, adapt=_adapt, page=parse_page)
_v3 = JsonParser(mappings.WORKABLE_V3, adapt=_adapt_v3, page=parse_page, paging=_paging_v3)


def is_v3(url: str) -> bool:
    """The v3 listing or its v2 posting detail (the widget API is v1)."""
    return _V3.match(url) is not None


@register("workable", PARSER_VERSION)
def parse_workable(doc: RawDocument) -> ParseOutcome:
    """The widget shape, or the v3 shape (by its URL, else by its `results` list)."""
    if is_v3(doc.url):
        return _v3(doc)
    outcome = _widget(doc)
    if b'"results"' in doc.body and any(i.code in _NOT_WIDGET for i in outcome.issues):
        v3 = _v3(doc)  # a v3 page fetched from another address: its own shape
        if not any(i.code in _NOT_WIDGET for i in v3.issues):
            return v3
    return outcome
