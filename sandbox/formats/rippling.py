"""Rippling's public job-board API: `/api/v2/board/{board}/jobs?page=N&pageSize=M`
(`{items, page, pageSize, totalItems, totalPages}`, pages from 0, rows without
description or date), the detail `/api/v2/board/{board}/jobs/{id}` (sectioned
`description`, `employmentType`, `createdOn`, `payRangeDetails`; 404 once gone), and
the hosted page `/{board}/jobs/{id}` (JSON-LD; 404 once gone)."""

from __future__ import annotations

from typing import Any

from sandbox.formats.common import (
    find_job,
    html_not_found,
    json_error,
    json_reply,
    jsonld_page,
    paragraphs_html,
)
from sandbox.routing import Format, Reply, Request
from sandbox.world import COUNTRY_CODES, Board, Job, country_of, job_locations, job_uuid

FORMAT = Format("rippling")
PLATFORM = "rippling"
MAX_PAGE_SIZE = 100


def hosted_url(request: Request, board: Board, job: Job) -> str:
    return f"{request.base_url}/rippling/{board.token}/jobs/{job_uuid(job)}"


def _workplace(location: str) -> str:
    if location.startswith("Remote"):
        return "REMOTE"
    return "HYBRID" if location.startswith("Hybrid") else "ON_SITE"


def _location(location: str) -> dict[str, Any]:
    country = country_of(location)
    remote = location.startswith("Remote")
    return {
        "name": location,
        "city": None if remote else location.split(",")[0].removeprefix("Hybrid - "),
        "state": None,
        "country": country,
        "countryCode": COUNTRY_CODES.get(country or ""),
        "workplaceType": _workplace(location),
    }


def _row(request: Request, board: Board, job: Job) -> dict[str, Any]:
    return {
        "id": job_uuid(job),
        "name": job.title,
        "url": hosted_url(request, board, job),
        "department": {"name": job.department},
        "locations": [_location(loc) for loc in job_locations(job)],
        "language": "en-US",
    }


def _page_args(request: Request) -> tuple[int, int] | None:
    try:
        page = max(0, int(request.arg("page", "0")))
        size = max(1, min(int(request.arg("pageSize", "20")), MAX_PAGE_SIZE))
    except ValueError:
        return None
    return page, size


@FORMAT.get(r"/rippling/api/v2/board/(?P<token>[^/]+)/jobs", platform=PLATFORM)
def jobs(request: Request) -> Reply:
    board = request.board()
    args = _page_args(request)
    if args is None:
        return json_error(400, {"detail": "page and pageSize must be integers"})
    page, size = args
    rows = board.jobs[page * size : (page + 1) * size]
    data = {
        "items": [_row(request, board, job) for job in rows],
        "page": page,
        "pageSize": size,
        "totalItems": len(board.jobs),
        "totalPages": -(-len(board.jobs) // size),
    }
    return json_reply(data, board)


def _job(request: Request) -> tuple[Board, Job | None]:
    board = request.board()
    return board, find_job(board, lambda j: job_uuid(j) == request.match["id"])


@FORMAT.get(
    r"/rippling/api/v2/board/(?P<token>[^/]+)/jobs/(?P<id>[0-9a-f-]{36})", platform=PLATFORM
)
def detail(request: Request) -> Reply:
    board, job = _job(request)
    if job is None:
        return json_error(404, {"detail": "Not found."})
    data = _row(request, board, job)
    intern = "Intern" in job.title
    data.update(
        companyName=board.company,
        description={
            "company": f"<p>About {board.company}.</p>",
            "role": paragraphs_html(board, job),
        },
        employmentType={
            "label": "INTERN" if intern else "SALARIED_FT",
            "id": "Intern" if intern else "Salaried, full-time",
        },
        createdOn=job.posted_at.isoformat().replace("+00:00", ".000000-00:00"),
        payRangeDetails=[
            {
                "currency": job.currency,
                "frequency": "YEAR",
                "rangeStart": job.salary[0],
                "rangeEnd": job.salary[1],
            }
        ]
        if job.salary
        else [],
        unlistedFromSearch=False,
    )
    return json_reply(data, board)


@FORMAT.get(r"/rippling/(?P<token>[^/]+)/jobs/(?P<id>[0-9a-f-]{36})", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    board, job = _job(request)
    if job is None:
        return html_not_found()
    return jsonld_page(board, job, hosted_url(request, board, job), job_uuid(job))
