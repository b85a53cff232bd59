"""iCIMS career portals: the job search (`/jobs/search?ss=1&in_iframe=1&pr=N`, HTML
rows of `.iCIMS_JobsTable` with labelled `dt`/`dd` fields, 10 a page here as portals
configure it, "Page N of M" paging from `pr=0`) and each job's page
(`/jobs/{id}/{slug}/job`, JSON-LD): a "no longer available" page once it is closed."""

from __future__ import annotations

import html

from sandbox.formats.common import find_job, jsonld_page
from sandbox.formats.html_site import slug
from sandbox.routing import HTML, Format, Reply, Request
from sandbox.world import COUNTRY_CODES, Board, Job, country_of

FORMAT = Format("icims")
PLATFORM = "icims"
PAGE_SIZE = 10


def job_id(job: Job) -> str:
    return str(job.job_id % 10**4 + 1000)


def job_url(request: Request, board: Board, job: Job) -> str:
    return f"{request.base_url}/icims/{board.token}/jobs/{job_id(job)}/{slug(job.title)}/job"


def icims_location(location: str) -> str:
    """iCIMS writes places as `US-CA-San Francisco`: country, region, city."""
    code = COUNTRY_CODES.get(country_of(location) or "", "")
    parts = [p.strip() for p in location.replace("Hybrid - ", "").split(",")]
    if location.startswith("Remote"):
        return f"{code}-Remote"
    region = parts[1] if len(parts) > 2 or (len(parts) == 2 and len(parts[1]) == 2) else ""
    return "-".join(p for p in (code, region, parts[0]) if p)


def _row(request: Request, board: Board, job: Job) -> str:
    fields = (
        ("Job Locations", html.escape(icims_location(job.location))),
        ("ID", f"2026-{job_id(job)}"),
        ("Category", html.escape(job.department)),
        (
            "Posted Date",
            f"<span title='{job.posted_at:%m/%d/%Y %I:%M %p}'>{job.posted_at:%m/%d/%Y}</span>",
        ),
    )
    header = "".join(
        f"<dt class='iCIMS_JobHeaderField'>{label}</dt><dd class='iCIMS_JobHeaderData'>{value}</dd>"
        for label, value in fields
    )
    return (
        "<div class='row'><div class='col-xs-12 title'>"
        f"<a href='{job_url(request, board, job)}?in_iframe=1' class='iCIMS_Anchor' "
        f"title='{job_id(job)} - {html.escape(job.title)}'>"
        f"<span class='sr-only field-label'>Title</span><h3>{html.escape(job.title)}</h3></a></div>"
        f"<div class='col-xs-12 additionalFields'><dl class='iCIMS_JobHeaderGroup'>{header}</dl></div></div>"
    )


@FORMAT.get(r"/icims/(?P<token>[^/]+)/jobs/search", platform=PLATFORM)
def search(request: Request) -> Reply:
    board = request.board()
    try:
        page = max(0, int(request.arg("pr", "0")))
    except ValueError:
        page = 0
    pages = max(1, -(-len(board.jobs) // PAGE_SIZE))
    rows = board.jobs[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
    paging = f"<div class='iCIMS_Paging text-center'><span>Page {page + 1} of {pages}</span>"
    if page + 1 < pages:
        paging += (
            f"<a class='glyph' href='?ss=1&in_iframe=1&pr={page + 1}' title='Next page'>&gt;</a>"
        )
    body = (
        "<!doctype html><html><head><title>Search Jobs</title></head><body>"
        "<div class='container-fluid iCIMS_JobsTable'>"
        + "".join(_row(request, board, job) for job in rows)
        + f"</div>{paging}</div></body></html>"
    )
    return Reply(200, body.encode(), HTML, board.revision)


@FORMAT.get(r"/icims/(?P<token>[^/]+)/jobs/(?P<id>\d+)/(?P<slug>[^/]+)/job", platform=PLATFORM)
def job_page(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: job_id(j) == request.match["id"])
    if job is None:
        body = (
            "<!doctype html><html><head><title>Job Listings</title></head><body>"
            "<div class='iCIMS_InfoMsg iCIMS_InfoMsg_Job'>The job you are looking for is no "
            "longer available.</div><a href='../../search?ss=1'>Search jobs</a></body></html>"
        )
        return Reply(200, body.encode(), HTML)
    return jsonld_page(board, job, job_url(request, board, job), job_id(job))
