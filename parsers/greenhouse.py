"""Greenhouse job board API: `/v1/boards/{token}/jobs?content=true` and single jobs.

The listing carries full content (HTML entity-escaped) and `meta.total`, so no
detail request is needed for API boards.
"""

from __future__ import annotations

from typing import Any

from parsers.common import job_type_from_title, outcome_from_postings
from parsers.jsonutil import load_json
from parsers.registry import register
from parsers.text import clean_space, html_to_text, parse_datetime, unescape_html
from parsers.types import Issue, ParseOutcome, Posting, RawDocument, RawOffice

PARSER_VERSION = "1"


def _remote_from_location(location: str | None) -> str:
    text = (location or "").lower()
    if "hybrid" in text:
        return "hybrid"
    if "remote" in text:
        return "yes"
    return "unknown"


def _employment_type(job: dict[str, Any]) -> str | None:
    for item in job.get("metadata") or ():
        if isinstance(item, dict) and str(item.get("name", "")).lower() in {
            "employment type",
            "employment_type",
            "job type",
        }:
            value = item.get("value")
            if isinstance(value, str):
                return clean_space(value)
    return None


def _offices(job: dict[str, Any]) -> tuple[RawOffice, ...]:
    offices = []
    for office in job.get("offices") or ():
        if not isinstance(office, dict):
            continue
        text = clean_space(office.get("location") or office.get("name"))
        if text:
            offices.append(RawOffice(text=text))
    return tuple(offices)


def job_to_posting(job: dict[str, Any]) -> Posting:
    content = job.get("content")
    description_html = unescape_html(content) if isinstance(content, str) else None
    location = job.get("location") or {}
    location_text = clean_space(location.get("name")) if isinstance(location, dict) else None
    title = clean_space(job.get("title")) or ""
    posted_at, precision = parse_datetime(job.get("first_published") or job.get("updated_at"))
    departments = [d.get("name") for d in job.get("departments") or () if isinstance(d, dict)]
    url = clean_space(job.get("absolute_url")) or ""
    return Posting(
        external_id=str(job.get("id") or ""),
        url=url,
        title=title,
        company=clean_space(job.get("company_name")),
        department=clean_space(" / ".join(d for d in departments if d)),
        location_text=location_text,
        offices=_offices(job),
        description_html=description_html,
        description_text=html_to_text(description_html),
        employment_type=_employment_type(job),
        posted_at=posted_at,
        posted_precision=precision,  # type: ignore[arg-type]
        remote=_remote_from_location(location_text),  # type: ignore[arg-type]
        apply_url=url or None,
        job_type=job_type_from_title(title),
        payload=job,
    )


@register("greenhouse", PARSER_VERSION)
def parse_greenhouse(doc: RawDocument) -> ParseOutcome:
    data, rejection = load_json(doc)
    if rejection:
        return rejection
    if isinstance(data, dict) and isinstance(data.get("jobs"), list):
        jobs, total = data["jobs"], (data.get("meta") or {}).get("total")
    elif isinstance(data, dict) and "id" in data and "title" in data:
        jobs, total = [data], None
    else:
        return ParseOutcome.rejected(
            Issue("unexpected_shape", "expected {'jobs': [...]} or a single job object", "$")
        )
    candidates: list[tuple[str, Posting]] = []
    issues: list[Issue] = []
    for index, job in enumerate(jobs):
        path = f"$.jobs[{index}]"
        if isinstance(job, dict):
            candidates.append((path, job_to_posting(job)))
        else:
            issues.append(Issue("bad_item", "job entry is not an object", path))
    return outcome_from_postings(
        candidates, issues=issues, total=total if isinstance(total, int) else None
    )
