"""Greenhouse board API format: `/v1/boards/{token}/jobs[?content=true]`, single jobs,
and the hosted job page. Field names, nesting and escaping follow real responses."""

from __future__ import annotations

import html
import json
from datetime import timedelta
from typing import Any

from sandbox.routing import HTML, Format, Reply, Request, not_found
from sandbox.world import Board, Job

FORMAT = Format("greenhouse")
PLATFORM = "greenhouse"


def _content(job: Job, company: str) -> str:
    body = "".join(f"<p>{html.escape(p)}</p>" for p in job.description_paragraphs(company))
    if job.salary:
        low, high = job.salary
        body += (
            '<div class="content-pay-transparency"><div class="pay-range">'
            f"<span>${low:,}</span><span>&mdash;</span><span>${high:,} USD</span></div></div>"
        )
    # The real API entity-escapes the HTML once more.
    return html.escape(body, quote=True)


def job_object(board: Board, job: Job, public_base: str, *, content: bool) -> dict[str, Any]:
    updated = job.posted_at + timedelta(days=job.edits)
    item: dict[str, Any] = {
        "absolute_url": f"{public_base}/{board.token}/jobs/{job.job_id}",
        "data_compliance": [
            {
                "type": "gdpr",
                "requires_consent": False,
                "requires_processing_consent": False,
                "requires_retention_consent": False,
                "retention_period": None,
                "demographic_data_consent_applies": False,
            }
        ],
        "internal_job_id": job.job_id - 1_000_000,
        "location": {"name": job.location},
        "metadata": [
            {
                "id": 4095122002,
                "name": "Employment Type",
                "value": "Intern" if "Intern" in job.title else "Full-time",
                "value_type": "single_select",
            }
        ],
        "id": job.job_id,
        "updated_at": updated.isoformat(),
        "requisition_id": f"R-{job.job_id % 100000:05d}",
        "title": job.title,
        "company_name": board.company,
        "first_published": job.posted_at.isoformat(),
        "language": "en",
    }
    if content:
        item["content"] = _content(job, board.company)
        item["departments"] = [
            {"id": 4038472002, "name": job.department, "child_ids": [], "parent_id": None}
        ]
        item["offices"] = [
            {
                "id": 4009816002,
                "name": job.location.split(",")[0],
                "location": job.location,
                "child_ids": [],
                "parent_id": None,
            }
        ]
    return item


def listing(board: Board, public_base: str, *, content: bool) -> bytes:
    jobs = [job_object(board, job, public_base, content=content) for job in board.jobs]
    return json.dumps({"jobs": jobs, "meta": {"total": len(jobs)}}, ensure_ascii=False).encode()


def single(board: Board, job: Job, public_base: str) -> bytes:
    return json.dumps(
        job_object(board, job, public_base, content=True), ensure_ascii=False
    ).encode()


def hosted_page(board: Board, job: Job) -> bytes:
    paragraphs = "".join(
        f"<p>{html.escape(p)}</p>" for p in job.description_paragraphs(board.company)
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>Job Application for {html.escape(job.title)} at {html.escape(board.company)}</title>"
        "</head><body><main>"
        f"<h1 class='section-header'>{html.escape(job.title)}</h1>"
        f"<div class='job__location'>{html.escape(job.location)}</div>"
        f"<div class='job__description'>{paragraphs}</div>"
        "</main></body></html>"
    ).encode()


def _public_base(request: Request) -> str:
    return f"{request.base_url}/greenhouse/boards"


def _find(board: Board, job_id: str) -> Job | None:
    return next((job for job in board.jobs if str(job.job_id) == job_id), None)


@FORMAT.get(r"/greenhouse/v1/boards/(?P<token>[^/]+)/jobs", platform=PLATFORM)
def board_jobs(request: Request) -> Reply:
    board = request.board()
    content = request.arg("content", "false").lower() == "true"
    return Reply(
        200, listing(board, _public_base(request), content=content), revision=board.revision
    )


@FORMAT.get(r"/greenhouse/v1/boards/(?P<token>[^/]+)/jobs/(?P<job_id>\d+)", platform=PLATFORM)
def board_job(request: Request) -> Reply:
    board = request.board()
    job = _find(board, request.match["job_id"])
    if job is None:
        return not_found("Job not found")
    return Reply(200, single(board, job, _public_base(request)), revision=board.revision)


@FORMAT.get(r"/greenhouse/boards/(?P<token>[^/]+)/jobs/(?P<job_id>\d+)", platform=PLATFORM)
def hosted_job(request: Request) -> Reply:
    board = request.board()
    job = _find(board, request.match["job_id"])
    if job is None:
        return not_found("Page not found", HTML)
    return Reply(200, hosted_page(board, job), HTML, board.revision)
