"""A paged JSON search API without validators: the shape of Workday's CXS endpoint
(POST {"limit", "offset"} -> {"total", "jobPostings"}), reduced to what the engine
needs. It sends no ETag or Last-Modified, so the only cheap "nothing changed" signal
is the total on the first page: the engine's count probe is tested against it."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sandbox.routing import Format, Reply, Request, not_found
from sandbox.world import Board, Job

FORMAT = Format("paged")
PLATFORM = "paged"
MAX_LIMIT = 20


def _posted_on(job: Job) -> str:
    # Relative to today, like Workday's "Posted 3 Days Ago": changes without any edit.
    days = (datetime.now(UTC).date() - job.posted_at.date()).days
    if days <= 0:
        return "Posted Today"
    return (
        "Posted Yesterday"
        if days == 1
        else f"Posted {min(days, 30)}{'+' if days > 30 else ''} Days Ago"
    )


def _item(request: Request, board: Board, job: Job) -> dict[str, object]:
    return {
        "id": str(job.job_id),
        "title": job.title,
        "locationsText": job.location,
        "postedOn": _posted_on(job),
        "externalPath": f"/job/{job.job_id}",
        "url": f"{request.base_url}/paged/{board.token}/job/{job.job_id}",
    }


@FORMAT.post(r"/paged/(?P<token>.+?)/jobs", platform=PLATFORM)
def search(request: Request) -> Reply:
    board = request.board()
    try:
        query = json.loads(request.body or b"{}")
        limit = max(1, min(int(query.get("limit", MAX_LIMIT)), MAX_LIMIT))
        offset = max(0, int(query.get("offset", 0)))
    except (ValueError, TypeError, AttributeError):
        return Reply(400, b'{"error": "body must be {\\"limit\\": n, \\"offset\\": n}"}')
    page = board.jobs[offset : offset + limit]
    body = {"total": len(board.jobs), "jobPostings": [_item(request, board, j) for j in page]}
    return Reply(200, json.dumps(body).encode())  # no revision: no validators, never 304


@FORMAT.get(r"/paged/(?P<token>.+?)/job/(?P<job_id>\d+)", platform=PLATFORM)
def job(request: Request) -> Reply:
    board = request.board()
    found = next((j for j in board.jobs if str(j.job_id) == request.match["job_id"]), None)
    if found is None:
        return not_found("job not found")
    return Reply(200, json.dumps(_item(request, board, found)).encode())
