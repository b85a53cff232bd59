"""Pinpoint's public postings feed (`/postings.json`: `{data: [...]}` with the advert in
sections, nested `job.department`, `location` without a country, `workplace_type`,
display-text `compensation`) and the hosted posting page (JSON-LD; 404 once the
posting is withdrawn)."""

from __future__ import annotations

import html
from typing import Any

from sandbox.formats.common import find_job, html_not_found, json_reply, jsonld_page
from sandbox.routing import Format, Reply, Request
from sandbox.world import Board, Job, job_uuid

FORMAT = Format("pinpoint")
PLATFORM = "pinpoint"


def _workplace(job: Job) -> str:
    if job.location.startswith("Remote"):
        return "remote"
    return "hybrid" if job.location.startswith("Hybrid") else "onsite"


def posting_url(request: Request, board: Board, job: Job) -> str:
    return f"{request.base_url}/pinpoint/{board.token}/en/postings/{job_uuid(job)}"


def _item(request: Request, board: Board, job: Job) -> dict[str, Any]:
    paragraphs = job.description_paragraphs(board.company)
    city = job.location.split(",")[0].removeprefix("Hybrid - ")
    return {
        "id": str(job.job_id % 10**6),
        "title": job.title,
        "description": "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs),
        "key_responsibilities_header": "What you'll do",
        "key_responsibilities": "<ul>" + "".join(f"<li>{s}</li>" for s in job.skills) + "</ul>",
        "skills_knowledge_expertise_header": "What you'll bring",
        "skills_knowledge_expertise": f"<p>Experience in {job.department.lower()}.</p>",
        "benefits_header": "Benefits",
        "benefits": "<p>Learning budget.</p>",
        "url": posting_url(request, board, job),
        "path": f"/en/postings/{job_uuid(job)}",
        "location": {
            "name": job.location,
            "city": None if job.location.startswith("Remote") else city,
            "province": None,
        },
        "job": {"department": {"name": job.department}, "division": None},
        "employment_type": "internship" if "Intern" in job.title else "full_time",
        "employment_type_text": "Internship" if "Intern" in job.title else "Full Time",
        "workplace_type": _workplace(job),
        "workplace_type_text": _workplace(job).title(),
        "compensation": f"{job.money_range()} per year" if job.salary else "",
        "compensation_visible": bool(job.salary),
        "deadline_at": None,
    }


@FORMAT.get(r"/pinpoint/(?P<token>[^/]+)/postings\.json", platform=PLATFORM)
def feed(request: Request) -> Reply:
    board = request.board()
    return json_reply({"data": [_item(request, board, job) for job in board.jobs]}, board)


@FORMAT.get(r"/pinpoint/(?P<token>[^/]+)/en/postings/(?P<uuid>[0-9a-f-]{36})", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: job_uuid(j) == request.match["uuid"])
    if job is None:
        return html_not_found("This job is no longer available.")
    return jsonld_page(board, job, posting_url(request, board, job), job_uuid(job))
