"""Greenhouse: the job board API (`/v1/boards/{token}/jobs?content=true`, single
jobs, the old `/embed/` API) and the hosted job page.

API quirks: `content` is entity-escaped HTML; pay appears inside it as a
`content-pay-transparency` block; `metadata` may be null or hold null values.
EU boards (`job-boards.eu.greenhouse.io`) are served by the same global API host.
The hosted job-boards page is a Remix app: the posting is in
`window.__remixContext.state.loaderData[...].jobPost`, not in JSON-LD; a closed
posting's page redirects to the board with `?error=true`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from parsel import Selector

from parsers import mappings
from parsers.common import job_type_for
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.text import (
    clean_space,
    html_to_text,
    parse_posted,
    parse_salary_text,
    remote_from_text,
    salary_period,
    unescape_html,
)
from parsers.types import ParseOutcome, Posting, RawDocument, Salary

PARSER_VERSION = "3"

_EMPLOYMENT_KEYS = {"employment type", "employment_type", "job type", "employment"}
_PAY_RANGE = re.compile(r'<div class="pay-range">(.*?)</div>', re.S | re.I)
_PAY_TITLE = re.compile(r'<div class="title">(.*?)</div>', re.S | re.I)
_REMIX = re.compile(rb"window\.__remixContext\s*=\s*")
_JOB_ID = r"/jobs/(\d+)"


def _employment_type(job: dict[str, Any]) -> str | None:
    for item in job.get("metadata") or ():
        if isinstance(item, dict) and str(item.get("name", "")).lower() in _EMPLOYMENT_KEYS:
            value = item.get("value")
            if isinstance(value, str):
                return clean_space(value)
    return None


def pay_from_content(content_html: str | None) -> Salary | None:
    """The salary in a `content-pay-transparency` block, when it states one.

    Several ranges (pay zones) with one currency give the overall min and max;
    ranges in different currencies keep only the raw text.
    """
    if not content_html or "pay-range" not in content_html:
        return None
    start = content_html.find("content-pay-transparency")
    scope = content_html[start:] if start >= 0 else content_html
    ranges = [html_to_text(m.group(1)) or "" for m in _PAY_RANGE.finditer(scope)]
    titles = " ".join(html_to_text(m.group(1)) or "" for m in _PAY_TITLE.finditer(scope))
    parsed = [s for s in (parse_salary_text(r, period_hint=titles) for r in ranges if r) if s]
    if not parsed:
        return None
    if len(parsed) == 1:
        return parsed[0]
    raw = "; ".join(s.raw for s in parsed)
    currencies = {s.currency for s in parsed}
    if len(currencies) != 1:
        return Salary(raw=raw)
    lows = [s.min for s in parsed if s.min is not None]
    highs = [s.max for s in parsed if s.max is not None]
    return Salary(
        raw=raw,
        min=min(lows) if lows else None,
        max=max(highs) if highs else None,
        currency=currencies.pop(),
        period=parsed[0].period if len({s.period for s in parsed}) == 1 else None,
    )


def _adapt(draft: Draft, job: dict[str, Any], ctx: Context) -> None:
    draft["employment_type"] = _employment_type(job)
    content = job.get("content")
    # The API's content is entity-escaped HTML: unescaped once, here.
    description = unescape_html(content) if isinstance(content, str) else None
    draft["description_html"] = description
    draft["salary"] = pay_from_content(description)


# ---------------------------------------------------------------- the hosted page


def remix_state(body: bytes) -> dict[str, Any] | None:
    """`window.__remixContext` as a dict, or None when the page has none."""
    match = _REMIX.search(body)
    if match is None:
        return None
    end = body.find(b"</script>", match.end())
    blob = body[match.end() : end if end >= 0 else None].rstrip().rstrip(b";")
    try:
        data = json.loads(blob)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _job_post(state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    loader = (state.get("state") or {}).get("loaderData") or {}
    for route in loader.values():
        if isinstance(route, dict) and isinstance(route.get("jobPost"), dict):
            return route, route["jobPost"]
    return None


def _pay_ranges(ranges: Any) -> Salary | None:
    items = [r for r in ranges or () if isinstance(r, dict)]
    if not items:
        return None
    first = items[0]
    low = parse_salary_text(str(first.get("min") or ""))
    high = parse_salary_text(str(first.get("max") or ""))
    raw = "; ".join(
        f"{r.get('title') or ''} {r.get('min') or ''} - {r.get('max') or ''} {r.get('currency_type') or ''}".strip()
        for r in items
    )
    return Salary(
        raw=raw,
        min=low.min if low else None,
        max=high.max if high else None,
        currency=clean_space(str(first.get("currency_type") or "")) or None,
        period=salary_period(str(first.get("title") or "")),
    )


def _from_remix(doc: RawDocument) -> Posting | None:
    state = remix_state(doc.body)
    found = _job_post(state) if state else None
    if found is None:
        return None
    route, post = found
    parts = [post.get(k) for k in ("introduction", "content", "conclusion")]
    description_html = "\n".join(p for p in parts if isinstance(p, str) and p.strip()) or None
    title = clean_space(post.get("title")) or ""
    location = clean_space(post.get("job_post_location"))
    posted_at, precision = parse_posted(post.get("published_at"), doc.fetched_at)
    url = clean_space(post.get("public_url")) or doc.url
    external_id = str(route.get("jobPostId") or "") or _id_in(url) or _id_in(doc.url) or ""
    return Posting(
        external_id=external_id,
        url=url,
        title=title,
        company=clean_space(post.get("company_name")),
        location_text=location,
        description_html=description_html,
        description_text=html_to_text(description_html),
        posted_at=posted_at,
        posted_precision=precision,  # type: ignore[arg-type]
        remote=remote_from_text(location),  # type: ignore[arg-type]
        salary=_pay_ranges(post.get("pay_ranges")),
        apply_url=url,
        job_type=job_type_for(title),
        payload=post,
    )


def _from_markup(doc: RawDocument) -> Posting | None:
    """Server-rendered job pages (the classic boards.greenhouse.io layout and the
    job-boards markup) for pages without a Remix state."""
    page = Selector(text=doc.body.decode("utf-8", "replace"), type="html")
    title = clean_space(
        " ".join(
            page.css("h1.section-header::text, h1.app-title::text, .job__title h1::text").getall()
        )
    )
    if not title:
        return None
    description = page.css(".job__description, #content").get()
    location = clean_space(" ".join(page.css(".job__location ::text, .location::text").getall()))
    return Posting(
        external_id=_id_in(doc.url) or "",
        url=doc.url,
        title=title,
        company=clean_space(page.css(".company-name::text").get()),
        location_text=location,
        description_html=description,
        description_text=html_to_text(description),
        remote=remote_from_text(location),  # type: ignore[arg-type]
        apply_url=doc.url,
        job_type=job_type_for(title),
        payload={"title": title, "location": location},
    )


def _id_in(url: str) -> str | None:
    match = re.search(_JOB_ID, url) or re.search(r"[?&]gh_jid=(\d+)", url)
    return match.group(1) if match else None


def _read_page(doc: RawDocument) -> Posting | None:
    return _from_remix(doc) or _from_markup(doc)


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="greenhouse", id_pattern=_JOB_ID, reader=_read_page)


parse_greenhouse = register("greenhouse", PARSER_VERSION)(
    JsonParser(mappings.GREENHOUSE, adapt=_adapt, page=parse_page)
)
