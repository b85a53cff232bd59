"""Greenhouse board API format: `/v1/boards/{token}/jobs[?content=true]`, single jobs,
and the hosted job page. Field names, nesting and escaping follow real responses."""

from __future__ import annotations

import html
import json
from datetime import timedelta
from typing import Any

from sandbox.routing import HTML, Format, Reply, Request, not_found
from sandbox.world import Board, Job, job_locations, money

FORMAT = Format("greenhouse")
PLATFORM = "greenhouse"


def _content(job: Job, company: str) -> str:
    body = job.description_html(company)
    if job.salary:
        low, high = job.salary
        body += (
            '<div class="content-pay-transparency"><div class="pay-range">'
            f"<span>{money(low, job.currency)}</span><span>&mdash;</span>"
            f"<span>{money(high, job.currency)} {job.currency}</span></div></div>"
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


def _remix_page(title: str, route: str, loader: dict[str, Any], body_html: str) -> bytes:
    """A job-boards page as Greenhouse serves it: a Remix app whose data is in
    `window.__remixContext`, with no JSON-LD."""
    context = {
        "basename": "/",
        "future": {"v3_fetcherPersist": False},
        "isSpaMode": False,
        "state": {
            "loaderData": {"root": {"internal": False, "locale": "en"}, route: loader},
            "actionData": None,
            "errors": None,
        },
    }
    state = json.dumps(context, ensure_ascii=False).replace("</", "<\\/")
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charSet='utf-8'/>"
        f"<title>{html.escape(title)}</title></head><body>{body_html}"
        f"<script>window.__remixContext = {state};</script></body></html>"
    ).encode()


def hosted_page(board: Board, job: Job, public_url: str) -> bytes:
    paragraphs = job.description_html(board.company)
    pay_ranges = []
    if job.salary:
        low, high = job.salary
        pay_ranges.append(
            {
                "title": "Annual Salary:",
                "description": "<p>The annual compensation range for this role.</p>",
                "min": money(low, job.currency),
                "max": money(high, job.currency),
                "currency_type": job.currency,
            }
        )
    post = {
        "post_type": "job_post",
        "language": "en",
        "title": job.title,
        "content": paragraphs,
        "introduction": f"<p>About {html.escape(board.company)}</p>",
        "conclusion": "<p>We are an equal opportunity employer.</p>",
        "job_post_location": " | ".join(job_locations(job)),
        "public_url": public_url,
        "company_name": board.company,
        "pay_ranges": pay_ranges,
        "published_at": job.posted_at.isoformat(),
        "employment": "hidden",
        "questions": [
            {
                "required": True,
                "label": "First Name",
                "fields": [{"name": "first_name", "type": "input_text"}],
            }
        ],
    }
    loader = {"jobPost": post, "jobPostId": str(job.job_id), "urlToken": board.token}
    title = f"Job Application for {job.title} at {board.company}"
    return _remix_page(
        title, "routes/$url_token_.jobs_.$job_post_id", loader, "<div id='root'></div>"
    )


def board_page(board: Board, public_base: str, error: bool) -> bytes:
    posts = [
        {
            "id": job.job_id,
            "title": job.title,
            "absolute_url": f"{public_base}/{board.token}/jobs/{job.job_id}",
        }
        for job in board.jobs
    ]
    flash = (
        "<div class='flash-error'>The job you are looking for is no longer open.</div>"
        if error
        else ""
    )
    loader = {"jobPosts": {"data": posts, "total": len(posts)}, "urlToken": board.token}
    return _remix_page(f"Jobs at {board.company}", "routes/$url_token", loader, flash)


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
        # A closed posting's page sends the visitor to the board with ?error=true.
        location = f"{_public_base(request)}/{board.token}?error=true"
        return Reply(302, b"", HTML, headers=(("Location", location),))
    url = f"{_public_base(request)}/{board.token}/jobs/{job.job_id}"
    return Reply(200, hosted_page(board, job, url), HTML, board.revision)


@FORMAT.get(r"/greenhouse/boards/(?P<token>[^/]+)", platform=PLATFORM)
def hosted_board(request: Request) -> Reply:
    board = request.board()
    error = request.arg("error") == "true"
    return Reply(200, board_page(board, _public_base(request), error), HTML, board.revision)
