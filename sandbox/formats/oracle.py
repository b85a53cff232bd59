"""Oracle Recruiting Cloud's Candidate Experience REST API, per pod host:
`recruitingCEJobRequisitions` (rows at `items[0].requisitionList`, the count in
`items[0].TotalJobsCount`, offset/limit inside `finder`), the ById detail
`recruitingCEJobRequisitionDetails` (`items: []` once the requisition is no longer
posted) and the public page, a JavaScript shell that says nothing either way."""

from __future__ import annotations

import re
from typing import Any

from sandbox.formats.common import json_error, json_reply, paragraphs_html
from sandbox.routing import HTML, Format, Reply, Request
from sandbox.world import COUNTRY_CODES, Board, Job, country_of, job_locations

FORMAT = Format("oracle")
PLATFORM = "oracle"
MAX_LIMIT = 500
_API = r"/oracle/(?P<token>[^/]+)/hcmRestApi/resources/latest"


def req_id(job: Job) -> str:
    return str(job.job_id % 10**9)


def _finder(request: Request) -> dict[str, str]:
    """`findReqs;siteNumber=CX_1,limit=25,offset=0` -> {"siteNumber": "CX_1", ...}."""
    _, _, args = request.arg("finder").partition(";")
    pairs = (part.partition("=") for part in args.split(",") if part)
    return {key: value.strip('"') for key, _, value in pairs}


def _workplace(job: Job) -> tuple[str, str]:
    if job.location.startswith("Remote"):
        return "ORA_REMOTE", "Remote"
    if job.location.startswith("Hybrid"):
        return "ORA_HYBRID", "Hybrid"
    return "ORA_ON_SITE", "On-site"


def _row(board: Board, job: Job) -> dict[str, Any]:
    offices = job_locations(job)
    code, label = _workplace(job)
    return {
        "Id": req_id(job),
        "Title": job.title,
        "PostedDate": job.posted_at.date().isoformat(),
        "PostingEndDate": None,
        "Language": "US",
        "PrimaryLocationCountry": COUNTRY_CODES.get(country_of(job.location) or ""),
        "PrimaryLocation": job.location,
        "WorkplaceTypeCode": code,
        "WorkplaceType": label,
        "JobFamily": job.department,
        "JobSchedule": "Full time" if "Intern" not in job.title else "Part time",
        "ShortDescriptionStr": job.description_paragraphs(board.company)[0][:120],
        "secondaryLocations": [
            {"Id": i, "Name": loc, "CountryCode": COUNTRY_CODES.get(country_of(loc) or "")}
            for i, loc in enumerate(offices[1:], 1)
        ],
    }


@FORMAT.get(_API + r"/recruitingCEJobRequisitions", platform=PLATFORM)
def search(request: Request) -> Reply:
    board = request.board()
    finder = _finder(request)
    try:
        limit = max(1, min(int(finder.get("limit", "25")), MAX_LIMIT))
        offset = max(0, int(finder.get("offset", "0")))
    except ValueError:
        return json_error(400, {"title": "Bad Request", "detail": "limit and offset are numbers"})
    rows = [_row(board, job) for job in board.jobs[offset : offset + limit]]
    item = {
        "SearchId": 1,
        "Keyword": None,
        "Limit": limit,
        "Offset": offset,
        "TotalJobsCount": len(board.jobs),
        "SiteNumber": finder.get("siteNumber"),
        "requisitionList": rows,
    }
    return json_reply(
        {"items": [item], "count": 1, "hasMore": False, "limit": 25, "offset": 0}, board
    )


@FORMAT.get(_API + r"/recruitingCEJobRequisitionDetails", platform=PLATFORM)
def details(request: Request) -> Reply:
    board = request.board()
    wanted = _finder(request).get("Id", "")
    job = next((j for j in board.jobs if req_id(j) == wanted), None)
    if job is None:  # Oracle's answer for a requisition no longer posted on the site
        return json_reply({"items": [], "count": 0, "hasMore": False, "limit": 25, "offset": 0})
    detail = _row(board, job)
    body = paragraphs_html(board, job)
    detail.update(
        ExternalPostedStartDate=job.posted_at.isoformat(),
        ExternalDescriptionStr=body,
        ExternalResponsibilitiesStr="<ul>" + "".join(f"<li>{s}</li>" for s in job.skills) + "</ul>",
        ExternalQualificationsStr=body,  # some tenants repeat the advert here
        Organization=job.department,
    )
    return json_reply({"items": [detail], "count": 1, "hasMore": False}, board)


@FORMAT.get(
    r"/oracle/(?P<token>[^/]+)/hcmUI/CandidateExperience/(?P<lang>[^/]+)/sites/(?P<site>[^/]+)"
    r"/job/(?P<id>\d+)",
    platform=PLATFORM,
)
def public_page(request: Request) -> Reply:
    """The same 4 KB shell for every id: the page's script asks the API."""
    shell = (
        "<!DOCTYPE html><html><head><title>Careers</title>"
        "<script src='/hcmUI/CandidateExperience/static/main.js'></script></head>"
        "<body><div id='app' data-site='"
        + re.sub(r"\W", "", request.match["site"])
        + "'></div>"
        + "<!-- "
        + "x" * 4000
        + " --></body></html>"
    )
    return Reply(200, shell.encode(), HTML)
