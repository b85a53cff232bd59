"""Lever postings API v0 (`/v0/postings/{site}?mode=json`, one posting at
`/v0/postings/{site}/{id}`) and the hosted posting page, in Lever's real shape:
a bare array, epoch-millisecond `createdAt`, HTML + Plain twins, `lists[]`,
`categories.allLocations`, `workplaceType`."""

from __future__ import annotations

import html

from sandbox.formats.common import find_job, html_not_found, json_error, json_reply, paragraphs_html
from sandbox.routing import HTML, Format, Reply, Request
from sandbox.world import Board, Job, job_locations, job_uuid

FORMAT = Format("lever")
PLATFORM = "lever"
_WORKPLACE = {"Remote - US": "remote", "Hybrid - Amsterdam": "hybrid"}


def hosted_url(request: Request, board: Board, job: Job) -> str:
    return f"{request.base_url}/lever/jobs/{board.token}/{job_uuid(job)}"


def posting(request: Request, board: Board, job: Job) -> dict[str, object]:
    paragraphs = job.description_paragraphs(board.company)
    skills = "".join(f"<li>{html.escape(s)}</li>" for s in job.skills)
    url = hosted_url(request, board, job)
    item: dict[str, object] = {
        "additionalPlain": "We are an equal opportunity employer.",
        "additional": "<div>We are an equal opportunity employer.</div>",
        "categories": {
            "commitment": "Intern" if "Intern" in job.title else "Full-time",
            "department": job.department,
            "location": job.location,
            "team": job.department,
            "allLocations": list(job_locations(job)),
        },
        "createdAt": int(job.posted_at.timestamp() * 1000),
        "descriptionPlain": "\n\n".join(paragraphs[:-1] if len(paragraphs) > 1 else paragraphs),
        "description": "".join(f"<div>{html.escape(p)}</div>" for p in paragraphs),
        "id": job_uuid(job),
        "lists": [{"text": "What you will use", "content": skills}],
        "text": job.title,
        "country": "US" if job.location.endswith((", CA", ", NY", ", TX")) else None,
        "workplaceType": _WORKPLACE.get(job.location, "onsite"),
        "opening": "",
        "openingPlain": "",
        "descriptionBody": "".join(f"<div>{html.escape(p)}</div>" for p in paragraphs),
        "descriptionBodyPlain": "\n\n".join(paragraphs),
        "hostedUrl": url,
        "applyUrl": f"{url}/apply",
    }
    if job.salary:
        low, high = job.salary
        item["salaryRange"] = {
            "currency": job.currency,
            "interval": "per-year-salary",
            "min": low,
            "max": high,
        }
    return item


def hosted_page(board: Board, job: Job) -> bytes:
    categories = "".join(
        f'<div class="sort-by-time posting-category medium-category-label {cls}">{html.escape(value)}</div>'
        for cls, value in (
            ("location", job.location),
            ("department", f"{job.department} /"),
            ("commitment", "Full-time /"),
            ("workplaceTypes", "Hybrid" if job.location.startswith("Hybrid") else "On-site"),
        )
    )
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(board.company)} - {html.escape(job.title)}</title></head>"
        '<body><div class="content-wrapper posting-page"><div class="content">'
        '<div class="section-wrapper accent-section page-full-width">'
        '<div class="section page-centered posting-header"><div class="posting-headline">'
        f'<h2>{html.escape(job.title)}</h2><div class="posting-categories">{categories}</div>'
        "</div></div></div>"
        '<div class="section-wrapper page-full-width">'
        f'<div class="section page-centered" data-qa="job-description">{paragraphs_html(board, job)}</div>'
        '<div class="section page-centered"><div><h3>What you will use</h3>'
        f'<ul class="posting-requirements plain-list">{"".join(f"<li>{html.escape(s)}</li>" for s in job.skills)}</ul>'
        "</div></div></div></div></div></body></html>"
    ).encode()


@FORMAT.get(r"/lever/v0/postings/(?P<token>[^/]+)", platform=PLATFORM)
def postings(request: Request) -> Reply:
    board = request.board()
    return json_reply([posting(request, board, job) for job in board.jobs], board)


@FORMAT.get(r"/lever/v0/postings/(?P<token>[^/]+)/(?P<id>[0-9a-f-]+)", platform=PLATFORM)
def one_posting(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: job_uuid(j) == request.match["id"])
    if job is None:
        return json_error(404, {"ok": False, "error": "Document not found"})
    return json_reply(posting(request, board, job), board)


@FORMAT.get(r"/lever/jobs/(?P<token>[^/]+)/(?P<id>[0-9a-f-]+)(?:/apply)?", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: job_uuid(j) == request.match["id"])
    if job is None:
        return html_not_found("Sorry, we couldn't find anything here")
    return Reply(200, hosted_page(board, job), HTML, board.revision)
