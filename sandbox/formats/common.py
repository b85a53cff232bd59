"""What the sandbox's platform formats share: descriptions, JSON-LD job pages,
lookups and JSON replies. Each format module keeps only its platform's shape."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from sandbox.routing import HTML, JSON, Reply
from sandbox.world import Board, Job, country_of, job_locations


def paragraphs_html(board: Board, job: Job) -> str:
    return job.description_html(board.company)


def find_job(board: Board, matches: Callable[[Job], bool]) -> Job | None:
    return next((job for job in board.jobs if matches(job)), None)


def json_reply(data: Any, board: Board | None = None, status: int = 200) -> Reply:
    body = json.dumps(data, ensure_ascii=False).encode()
    return Reply(
        status, body, JSON, board.revision if board is not None and status == 200 else None
    )


def json_error(status: int, data: Any) -> Reply:
    return Reply(status, json.dumps(data).encode(), JSON)


def job_posting_jsonld(board: Board, job: Job, url: str, identifier: str) -> dict[str, Any]:
    """schema.org JobPosting as hosted job pages embed it."""
    data: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "JobPosting",
        "title": job.title,
        "description": paragraphs_html(board, job),
        "identifier": {"@type": "PropertyValue", "name": board.company, "value": identifier},
        "datePosted": job.posted_at.date().isoformat(),
        "employmentType": "INTERN" if "Intern" in job.title else "FULL_TIME",
        "hiringOrganization": {"@type": "Organization", "name": board.company},
        "jobLocation": [
            {
                "@type": "Place",
                "address": {
                    "@type": "PostalAddress",
                    "addressLocality": location.split(",")[0],
                    "addressCountry": "VN" if job.vietnamese else country_of(location),
                },
            }
            for location in job_locations(job)
        ],
        "url": url,
    }
    if job.location.startswith("Remote"):
        data["jobLocationType"] = "TELECOMMUTE"
    if pay := job.pay():
        data["baseSalary"] = {
            "@type": "MonetaryAmount",
            "currency": pay.currency,
            "value": {
                "@type": "QuantitativeValue",
                "minValue": pay.low,
                "maxValue": pay.high,
                "unitText": pay.unit,
            },
        }
    return data


def script_json(data: Any) -> str:
    """JSON safe inside <script>: "</" never appears in it."""
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


def jsonld_page(board: Board, job: Job, url: str, identifier: str, lang: str = "en") -> Reply:
    """A hosted job page whose posting is in JSON-LD, as most ATS pages serve it."""
    data = job_posting_jsonld(board, job, url, identifier)
    body = (
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>"
        f"<title>{html.escape(job.title)} - {html.escape(board.company)}</title>"
        f"<link rel='canonical' href='{html.escape(url)}'>"
        f"<script type='application/ld+json'>{script_json(data)}</script>"
        f"</head><body><main><h1>{html.escape(job.title)}</h1>{paragraphs_html(board, job)}"
        "</main></body></html>"
    ).encode()
    return Reply(200, body, HTML, board.revision)


def html_not_found(message: str = "The page you're looking for doesn't exist.") -> Reply:
    body = (
        "<!doctype html><html><head><title>Page not found</title></head>"
        f"<body><h1>404</h1><p>{html.escape(message)}</p></body></html>"
    ).encode()
    return Reply(404, body, HTML)
