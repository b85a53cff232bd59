"""Workday CXS in its real shape: `POST /wday/cxs/{tenant}/{site}/jobs` with
`{"appliedFacets", "limit" (at most 20), "offset", "searchText"}` answering
`{total, jobPostings[], facets[]}` where `total` comes on the first page only and
stops at 2,000; `GET .../job/{externalPath}` for `jobPostingInfo`; hosted pages.

Sites on a data center's shared host are served the same way under
`/workday/wdN.myworkdaysite.com`: the API at `/wday/cxs/{tenant}/{site}/...`, hosted
pages at `[/{locale}]/recruiting/{tenant}/{site}/job/...`, and the board is the
tenant's (its world key is the tenant).

Tenants whose name starts with "big" hold over 2,000 postings (many sandbox boards
joined), so paging past the ceiling by facet can be exercised end to end.

Tenants whose name starts with "repost" name every posting's page after its
requisition id plus a repost suffix ("..._JR123-1"), as Workday does for a reposted
requisition; every other row names the requisition id in `bulletFields` (so the
suffix is known not to be part of it), the rest name nothing there.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sandbox.formats.common import (
    html_not_found,
    json_error,
    json_reply,
    jsonld_page,
    paragraphs_html,
)
from sandbox.formats.html_site import slug
from sandbox.routing import Format, Reply, Request
from sandbox.world import COUNTRY_CODES, Job, build_board, country_of, job_locations

FORMAT = Format("workday")
PLATFORM = "workday"
CAP = 2000

MAX_LIMIT = 20
BIG_PARTS = 230
_BOARD = r"/workday/(?P<token>[A-Za-z0-9_-]+\.wd\d+)"
_SHARED = r"/workday/(?P<dc>wd\d+)\.myworkdaysite\.com"
_SHARED_API = _SHARED + r"/wday/cxs/(?P<token>[A-Za-z0-9_-]+)/(?P<site>[^/]+)"
_SHARED_PAGE = _SHARED + r"(?:/[a-z]{2}-[A-Z]{2})?/recruiting/(?P<token>[A-Za-z0-9_-]+)"


def _jobs(request: Request) -> tuple[str, list[Job]]:
    board = request.board()
    if not request.token or not request.token.startswith("big"):
        return board.company, list(board.jobs)
    state = request.state
    jobs = [
        job
        for part in range(BIG_PARTS)
        for job in build_board(state.seed, PLATFORM, f"{request.token}#{part}", board.revision).jobs
    ]
    return board.company, jobs


def req_id(job: Job) -> str:
    return f"JR{job.job_id % 10**11}"


def repost_suffix(request: Request) -> str:
    """What the request's tenant appends to a requisition id in its page paths."""
    return "-1" if (request.token or "").startswith("repost") else ""


def external_path(job: Job, suffix: str = "") -> str:
    return f"/job/{slug(job.location)}/{slug(job.title)}_{req_id(job)}{suffix}"


def bullet_fields(job: Job, suffix: str) -> list[str]:
    """The row's requisition id; a reposted tenant's odd jobs show none."""
    return [] if suffix and job.job_id % 2 else [req_id(job)]


def public_site(request: Request) -> str:
    """Where the hosted pages of the request's site live: the tenant's own host, or
    the shared host's /recruiting/{tenant}/{site}."""
    site = request.match["site"]
    if "dc" in request.match.groupdict():
        shared = f"{request.base_url}/workday/{request.match['dc']}.myworkdaysite.com"
        return f"{shared}/recruiting/{request.token}/{site}"
    return f"{request.base_url}/workday/{request.token}/{site}"


def country_id(country: str | None) -> str:
    return hashlib.sha1((country or "none").encode()).hexdigest()[:32]


def posted_on(job: Job) -> str:
    days = job.job_id % 35
    if days == 0:
        return "Posted Today"
    if days == 1:
        return "Posted Yesterday"
    return f"Posted {days} Days Ago" if days < 30 else "Posted 30+ Days Ago"


def _row(job: Job, suffix: str) -> dict[str, Any]:
    locations = job_locations(job)
    return {
        "title": job.title,
        "externalPath": external_path(job, suffix),
        "locationsText": f"{len(locations)} Locations" if len(locations) > 1 else job.location,
        "postedOn": posted_on(job),
        "bulletFields": bullet_fields(job, suffix),
    }


def _facets(jobs: list[Job]) -> list[dict[str, Any]]:
    counts: dict[str, int] = {}
    for job in jobs:
        country = country_of(job.location) or "Other"
        counts[country] = counts.get(country, 0) + 1
    values = [
        {"descriptor": name, "id": country_id(name), "count": count}
        for name, count in sorted(counts.items())
    ]
    return [
        {
            "facetParameter": "locationMainGroup",
            "values": [
                {
                    "facetParameter": "locationHierarchy1",
                    "descriptor": "Locations",
                    "values": values,
                }
            ],
        }
    ]


@FORMAT.post(_BOARD + r"/wday/cxs/[^/]+/(?P<site>[^/]+)/jobs", platform=PLATFORM)
@FORMAT.post(_SHARED_API + r"/jobs", platform=PLATFORM)
def search(request: Request) -> Reply:
    try:
        query = json.loads(request.body or b"{}")
        offset, limit = int(query.get("offset", 0)), int(query.get("limit", 20))
    except (ValueError, TypeError, AttributeError):
        return json_error(400, {"errorCode": "HTTP_400", "message": "Bad request"})
    if limit > MAX_LIMIT or limit < 1:
        return json_error(
            400, {"errorCode": "HTTP_400", "message": f"limit must be 1..{MAX_LIMIT}"}
        )
    _, jobs = _jobs(request)
    wanted = set((query.get("appliedFacets") or {}).get("locationHierarchy1") or ())
    selected = [
        j for j in jobs if not wanted or country_id(country_of(j.location) or "Other") in wanted
    ]
    page = selected[offset : offset + limit] if offset < CAP else []
    data = {
        # The real API counts only on the first page, and never beyond its ceiling.
        "total": min(len(selected), CAP) if offset == 0 else 0,
        "jobPostings": [_row(job, repost_suffix(request)) for job in page],
        "facets": _facets(selected) if not wanted else [],
        "userAuthenticated": False,
    }
    board = request.board()
    return json_reply(data, board)


def _find(request: Request) -> tuple[str, Job | None]:
    company, jobs = _jobs(request)
    wanted = request.match["path"].rsplit("_", 1)[-1].removesuffix(repost_suffix(request))
    return company, next((j for j in jobs if req_id(j) == wanted), None)


@FORMAT.get(_BOARD + r"/wday/cxs/[^/]+/(?P<site>[^/]+)/job/(?P<path>.+)", platform=PLATFORM)
@FORMAT.get(_SHARED_API + r"/job/(?P<path>.+)", platform=PLATFORM)
def detail(request: Request) -> Reply:
    company, job = _find(request)
    if job is None:
        # Workday's closed-posting answer on the detail API: 403 with errorCode S22.
        return json_error(
            403,
            {
                "errorCode": "S22",
                "httpStatus": 403,
                "message": "The job posting is no longer available.",
            },
        )
    locations = job_locations(job)
    public = public_site(request) + external_path(job, repost_suffix(request))
    info = {
        "id": hashlib.sha1(str(job.job_id).encode()).hexdigest()[:32],
        "title": job.title,
        "jobDescription": paragraphs_html(request.board(), job).replace(
            request.board().company, company
        ),
        "location": locations[0],
        "additionalLocations": list(locations[1:]),
        "postedOn": posted_on(job),
        "startDate": job.posted_at.date().isoformat(),
        "timeType": "Full time",
        "jobReqId": req_id(job),
        "jobPostingId": f"{slug(job.title)}_{req_id(job)}",
        "country": {
            "descriptor": country_of(locations[0]),
            "id": country_id(country_of(locations[0])),
        },
        "jobRequisitionLocation": {
            "descriptor": locations[0],
            "country": {"alpha2Code": COUNTRY_CODES.get(country_of(locations[0]) or "")},
        },
        "remoteType": "Remote" if job.location.startswith("Remote") else None,
        "externalUrl": public,
    }
    data = {
        "jobPostingInfo": info,
        "hiringOrganization": {"name": company, "url": ""},
        "similarJobs": [],
        "userAuthenticated": False,
    }
    return json_reply(data, request.board())


@FORMAT.get(_BOARD + r"/(?P<site>[^/]+)/job/(?P<path>.+)", platform=PLATFORM)
@FORMAT.get(_SHARED_PAGE + r"/(?P<site>[^/]+)/job/(?P<path>.+)", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    _, job = _find(request)
    if job is None:
        return html_not_found("The page you are looking for doesn't exist.")
    url = public_site(request) + external_path(job, repost_suffix(request))
    return jsonld_page(request.board(), job, url, req_id(job))
