"""Workable widget API (`/api/v1/widget/accounts/{account}[?details=true]`) in the
real shape, including its quirk: a job open in several countries is listed once
per country with the same `shortcode`."""

from __future__ import annotations

from typing import Any

from sandbox.formats.common import json_error, json_reply, paragraphs_html
from sandbox.routing import Format, Reply, Request
from sandbox.world import Board, Job, country_of, job_locations

FORMAT = Format("workable")
PLATFORM = "workable"


def shortcode(job: Job) -> str:
    return f"{job.job_id % 16**10:010X}"


def _rows(request: Request, board: Board, job: Job, details: bool) -> list[dict[str, Any]]:
    """One row per country the job is open in (Workable's repeat-per-location shape)."""
    by_country: dict[str, list[str]] = {}
    for location in job_locations(job):
        by_country.setdefault(country_of(location) or "", []).append(location)
    rows = []
    for country, locations in by_country.items():
        city = locations[0].split(",")[0]
        row: dict[str, Any] = {
            "title": job.title,
            "shortcode": shortcode(job),
            "code": "",
            "employment_type": "Internship" if "Intern" in job.title else "Full-time",
            "telecommuting": job.location.startswith("Remote"),
            "department": job.department,
            "url": f"{request.base_url}/workable/j/{shortcode(job)}",
            "shortlink": f"{request.base_url}/workable/j/{shortcode(job)}",
            "application_url": f"{request.base_url}/workable/j/{shortcode(job)}/apply",
            "published_on": job.posted_at.date().isoformat(),
            "created_at": job.posted_at.date().isoformat(),
            "country": country,
            "city": city,
            "state": "",
            "education": "",
            "experience": "",
            "function": "",
            "industry": "",
            "locations": [
                {
                    "country": country,
                    "countryCode": country[:2].upper(),
                    "city": loc.split(",")[0],
                    "region": None,
                    "hidden": False,
                }
                for loc in locations
            ],
        }
        if details:
            row["description"] = paragraphs_html(board, job)
        rows.append(row)
    return rows


@FORMAT.get(r"/workable/api/v1/widget/accounts/(?P<token>[^/]+)", platform=PLATFORM)
def account(request: Request) -> Reply:
    board = request.board()
    details = request.arg("details", "false").lower() == "true"
    jobs = [row for job in board.jobs for row in _rows(request, board, job, details)]
    return json_reply({"name": board.company, "description": None, "jobs": jobs}, board)


@FORMAT.get(
    r"/workable/api/v1/widget/accounts/(?P<token>[^/]+)/jobs/(?P<code>[0-9A-F]+)", platform=PLATFORM
)
def one_job(request: Request) -> Reply:
    board = request.board()
    for job in board.jobs:
        if shortcode(job) == request.match["code"]:
            return json_reply(_rows(request, board, job, True)[0], board)
    return json_error(404, {"error": "Not found"})
