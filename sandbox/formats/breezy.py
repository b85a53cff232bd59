"""Breezy HR's public careers JSON (`/json`, a top-level array; `?verbose=true` adds
each `description`), the hosted position page `/p/{friendly_id}` (JSON-LD; 404 once
unpublished) and its `/apply` form."""

from __future__ import annotations

import hashlib
from typing import Any

from sandbox.formats.common import (
    find_job,
    html_not_found,
    json_error,
    json_reply,
    jsonld_page,
    paragraphs_html,
)
from sandbox.formats.html_site import slug
from sandbox.routing import HTML, Format, Reply, Request
from sandbox.world import Board, Job, country_of

FORMAT = Format("breezy")
PLATFORM = "breezy"


def position_id(job: Job) -> str:
    return hashlib.sha256(f"breezy:{job.job_id}".encode()).hexdigest()[:12]


def friendly_id(job: Job) -> str:
    return f"{position_id(job)}-{slug(job.title)}"


def position_url(request: Request, board: Board, job: Job) -> str:
    return f"{request.base_url}/breezy/{board.token}/p/{friendly_id(job)}"


def _location(job: Job) -> dict[str, Any]:
    remote = job.location.startswith("Remote")
    country = country_of(job.location)
    return {
        "country": {"name": country, "id": country[:2].upper()} if country else None,
        "state": {"id": "TX", "name": "Texas"} if job.location == "Austin, TX" else None,
        "city": None if remote else job.location.split(",")[0].removeprefix("Hybrid - "),
        "is_remote": remote,
        "remote_details": {"value": "fully"} if remote else None,
        "name": job.location,
    }


def _position(request: Request, board: Board, job: Job, verbose: bool) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": position_id(job),
        "friendly_id": friendly_id(job),
        "name": job.title,
        "url": position_url(request, board, job),
        "published_date": job.posted_at.isoformat().replace("+00:00", ".000Z"),
        "type": {"id": "fullTime", "name": "Full-Time"}
        if "Intern" not in job.title
        else {"id": "internship", "name": "Internship"},
        "location": _location(job),
        "department": job.department,
        "salary": f"{job.money_range()} / yr" if job.salary else "",
        "company": {"name": board.company, "logo_url": None, "friendly_id": board.token},
    }
    if verbose:
        row["description"] = paragraphs_html(board, job)
    return row


@FORMAT.get(r"/breezy/(?P<token>[^/]+)/json", platform=PLATFORM)
def positions(request: Request) -> Reply:
    board = request.board()
    if board.token.startswith("missing-"):
        return json_error(404, {"error": "Career portal not found"})
    verbose = request.arg("verbose") == "true"
    return json_reply([_position(request, board, job, verbose) for job in board.jobs], board)


def _job(request: Request) -> tuple[Board, Job | None]:
    board = request.board()
    return board, find_job(board, lambda j: friendly_id(j) == request.match["friendly"])


@FORMAT.get(r"/breezy/(?P<token>[^/]+)/p/(?P<friendly>[0-9a-f]{12}-[a-z0-9-]*)", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    board, job = _job(request)
    if job is None:
        return html_not_found("This position is no longer available.")
    return jsonld_page(board, job, position_url(request, board, job), friendly_id(job))


@FORMAT.get(
    r"/breezy/(?P<token>[^/]+)/p/(?P<friendly>[0-9a-f]{12}-[a-z0-9-]*)/apply", platform=PLATFORM
)
def apply(request: Request) -> Reply:
    board, job = _job(request)
    if job is None:
        return html_not_found("This position is no longer available.")
    body = f"<!doctype html><html><body><form id='apply'><h1>Apply: {job.title}</h1></form></body></html>"
    return Reply(200, body.encode(), HTML, board.revision)
