"""Workable widget API (`/api/v1/widget/accounts/{account}[?details=true]`) in the
real shape, including its quirk: a job open in several countries is listed once
per country with the same `shortcode`; the v3 careers-page API (POST search, pages
of 10 by token); the per-job record apply.workable.com's page loads
(`/api/v2/accounts/{account}/jobs/{shortcode}`, 404 once removed, the v3 rows'
detail); and the hosted page `/{account}/j/{shortcode}/` (and `/apply/`), a
client-side app that answers 200 for any shortcode: a removed job's page is a soft-404."""

from __future__ import annotations

import base64
import json
from typing import Any

from sandbox.formats.common import find_job, json_error, json_reply, jsonld_page, paragraphs_html
from sandbox.routing import HTML, Format, Reply, Request
from sandbox.world import Board, Job, country_of, job_locations

FORMAT = Format("workable")
PLATFORM = "workable"


def shortcode(job: Job) -> str:
    return f"{job.job_id % 16**10:010X}"


def hosted_url(request: Request, board: Board, job: Job) -> str:
    return f"{request.base_url}/workable/{board.token}/j/{shortcode(job)}/"


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
            "url": hosted_url(request, board, job),
            "shortlink": hosted_url(request, board, job),
            "application_url": f"{hosted_url(request, board, job)}apply/",
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


def _v2_job(request: Request, board: Board, job: Job) -> dict[str, Any]:
    """The v2 per-job record, in its real top-level shape."""
    country = country_of(job.location) or ""
    return {
        "id": job.job_id,
        "shortcode": shortcode(job),
        "title": job.title,
        "code": "",
        "accountUid": f"{board.token}-uid",
        "approvalStatus": "approved",
        "isInternal": False,
        "language": "en",
        "department": [job.department],
        "type": "full",
        "workplace": "remote" if job.location.startswith("Remote") else "on_site",
        "remote": job.location.startswith("Remote"),
        "location": {
            "country": country,
            "countryCode": country[:2].upper(),
            "city": job.location.split(",")[0],
        },
        "locations": [
            {"country": country_of(loc) or "", "city": loc.split(",")[0]}
            for loc in job_locations(job)
        ],
        "published": job.posted_at.isoformat(),
        "description": paragraphs_html(board, job),
        "requirements": "<ul>" + "".join(f"<li>{s}</li>" for s in job.skills) + "</ul>",
        "benefits": "<p>Flexible hours.</p>",
        "state": "published",
    }


@FORMAT.get(
    r"/workable/api/v2/accounts/(?P<token>[^/]+)/jobs/(?P<code>[0-9A-F]+)", platform=PLATFORM
)
def v2_job(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: shortcode(j) == request.match["code"])
    if job is None:
        return json_error(404, {"error": "Not Found"})
    return json_reply(_v2_job(request, board, job), board)


_SHELL = (
    b"<!doctype html><html><head><meta charset='utf-8'><title>Careers</title></head>"
    b"<body><div id='app'></div><script src='/static/app.js'></script></body></html>"
)


@FORMAT.get(r"/workable/(?P<token>[^/]+)/j/(?P<code>[0-9A-F]+)(?:/apply)?/?", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: shortcode(j) == request.match["code"])
    if job is None:
        return Reply(200, _SHELL, HTML)  # the app shell, whatever the shortcode: a soft-404
    return jsonld_page(board, job, hosted_url(request, board, job), shortcode(job))


# ---------------------------------------------------------------- v3 careers-page API
# `POST /api/v3/accounts/{account}/jobs` with a search body answers
# `{total, results[], nextPage}` in pages of 10; the next page is the same POST with
# `"token": nextPage`. Rows carry no description and no URL; the posting's detail is
# `GET /api/v2/accounts/{account}/jobs/{shortcode}`.
V3_PAGE = 10
_WORKPLACES = (("Remote", "remote"), ("Hybrid", "hybrid"))


def _v3_row(job: Job) -> dict[str, Any]:
    locations = [
        {
            "country": country_of(loc) or "",
            "countryCode": (country_of(loc) or "")[:2].upper(),
            "city": loc.split(",")[0],
            "region": None,
            "hidden": False,
        }
        for loc in job_locations(job)
    ]
    workplace = next((w for prefix, w in _WORKPLACES if job.location.startswith(prefix)), "on_site")
    return {
        "id": job.job_id,
        "shortcode": shortcode(job),
        "title": job.title,
        "remote": workplace == "remote",
        "location": locations[0],
        "locations": locations,
        "state": "published",
        "isInternal": False,
        "code": "",
        "published": job.posted_at.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "type": "full",
        "language": "en",
        "department": [job.department] if job.department else [],
        "workplace": workplace,
    }


def _v3_token(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps([offset]).encode()).decode()


def _v3_offset(token: object) -> int | None:
    if token in (None, ""):
        return 0
    try:
        (offset,) = json.loads(base64.urlsafe_b64decode(str(token)))
        return max(0, int(offset))
    except (ValueError, TypeError):
        return None


@FORMAT.post(r"/workable/api/v3/accounts/(?P<token>[^/]+)/jobs", platform=PLATFORM)
def v3_jobs(request: Request) -> Reply:
    board = request.board()
    try:
        query = json.loads(request.body or b"{}")
    except ValueError:
        return json_error(400, {"error": "body must be a JSON search"})
    offset = _v3_offset(query.get("token") if isinstance(query, dict) else None)
    if offset is None:
        return json_error(400, {"error": "invalid token"})
    page = board.jobs[offset : offset + V3_PAGE]
    body: dict[str, Any] = {"total": len(board.jobs), "results": [_v3_row(j) for j in page]}
    if offset + V3_PAGE < len(board.jobs):
        body["nextPage"] = _v3_token(offset + V3_PAGE)
    return Reply(200, json.dumps(body).encode())  # a POST search: no validators
