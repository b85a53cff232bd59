"""Jobvite's public XML feed per company (`/CompanyJobs/Xml.aspx?c={companyEId}`:
`<result>` of `<job>`, or one job's fields with `&j={id}`; a company without open jobs
is redirected to `/nojobs.htm`), the career site's search page
(`jobs.jobvite.com/{slug}/search`, here `/{slug}/careers/search`: a table of job
links and `.jv-job-list-location` cells, 10 a page with a `.jv-pagination-next` link,
as the real capture in tests/fixtures/real_public/jobvite/ shows the rows) and the
career-site job pages (`jobs.jobvite.com/{slug}/job/{id}`, JSON-LD; 404 once the job
is closed)."""

from __future__ import annotations

import hashlib
import html

from sandbox.formats.common import find_job, html_not_found, jsonld_page, paragraphs_html
from sandbox.routing import HTML, Format, Reply, Request
from sandbox.world import Board, Job

FORMAT = Format("jobvite")
PLATFORM = "jobvite"
XML = "text/xml; charset=utf-8"
_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def job_code(job: Job) -> str:
    digest = hashlib.sha256(f"jobvite:{job.job_id}".encode()).digest()
    return "o" + "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:7])


def job_url(request: Request, board: Board, job: Job) -> str:
    return f"{request.base_url}/jobvite/{board.token}/careers/job/{job_code(job)}"


def _fields(request: Request, board: Board, job: Job) -> str:
    def cdata(tag: str, value: str) -> str:
        return f"<{tag}><![CDATA[{value}]]></{tag}>"

    return (
        cdata("id", job_code(job))
        + cdata("title", job.title)
        + cdata("requisitionId", f"REQ{job.job_id % 10**4}")
        + cdata("category", job.department)
        + cdata("jobtype", "Internship" if "Intern" in job.title else "Full-Time")
        + cdata("location", job.location)
        + f"<date>{job.posted_at.month}/{job.posted_at.day}/{job.posted_at.year}</date>"
        + cdata("detail-url", job_url(request, board, job))
        + cdata("apply-url", job_url(request, board, job) + "/apply")
        + cdata("description", paragraphs_html(board, job))
        + cdata("briefdescription", job.description_paragraphs(board.company)[0])
    )


@FORMAT.get(r"/jobvite/(?P<token>[^/]+)/CompanyJobs/Xml\.aspx", platform=PLATFORM)
def feed(request: Request) -> Reply:
    board = request.board()
    wanted = request.arg("j")
    jobs = [j for j in board.jobs if not wanted or job_code(j) == wanted]
    if not jobs:
        location = f"{request.base_url}/jobvite/{board.token}/nojobs.htm"
        return Reply(302, b"", HTML, headers=(("Location", location),))
    if wanted:
        body = f"<result>{_fields(request, board, jobs[0])}</result>"
    else:
        body = (
            "<result>"
            + "".join(f"<job>{_fields(request, board, j)}</job>" for j in jobs)
            + "</result>"
        )
    return Reply(
        200, ("<?xml version='1.0' encoding='UTF-8'?>" + body).encode(), XML, board.revision
    )


@FORMAT.get(r"/jobvite/(?P<token>[^/]+)/nojobs\.htm", platform=PLATFORM)
def no_jobs(request: Request) -> Reply:
    body = b"<!doctype html><html><body><p>There are currently no open jobs.</p></body></html>"
    return Reply(200, body, HTML)


def _job(request: Request) -> tuple[Board, Job | None]:
    board = request.board()
    return board, find_job(board, lambda j: job_code(j) == request.match["id"])


@FORMAT.get(r"/jobvite/(?P<token>[^/]+)/careers/job/(?P<id>[A-Za-z0-9]+)", platform=PLATFORM)
def job_page(request: Request) -> Reply:
    board, job = _job(request)
    if job is None:
        return html_not_found("The job you are looking for is no longer available.")
    return jsonld_page(board, job, job_url(request, board, job), job_code(job))


@FORMAT.get(r"/jobvite/(?P<token>[^/]+)/careers/job/(?P<id>[A-Za-z0-9]+)/apply", platform=PLATFORM)
def apply_page(request: Request) -> Reply:
    board, job = _job(request)
    if job is None:
        return html_not_found("The job you are looking for is no longer available.")
    body = f"<!doctype html><html><body><form><h1>Apply: {job.title}</h1></form></body></html>"
    return Reply(200, body.encode(), HTML, board.revision)


SEARCH_PAGE_SIZE = 10


def _search_row(request: Request, board: Board, job: Job) -> str:
    return (
        f"<tr><td class='jv-job-list-name'><a href='{html.escape(job_url(request, board, job))}'>"
        f"{html.escape(job.title)}</a></td>"
        f"<td class='jv-job-list-location'>{html.escape(job.location)}</td></tr>"
    )


@FORMAT.get(r"/jobvite/(?P<token>[^/]+)/careers/search", platform=PLATFORM)
def career_search(request: Request) -> Reply:
    board = request.board()
    page = int(request.arg("p", "0") or 0)
    jobs = board.jobs[page * SEARCH_PAGE_SIZE : (page + 1) * SEARCH_PAGE_SIZE]
    if not board.jobs:
        rows = "<p class='jv-no-jobs'>There are currently no open jobs.</p>"
    else:
        rows = (
            "<table class='jv-job-list'>"
            + "".join(_search_row(request, board, job) for job in jobs)
            + "</table>"
        )
    following = ""
    if (page + 1) * SEARCH_PAGE_SIZE < len(board.jobs):
        following = f"<a class='jv-pagination-next' href='?p={page + 1}'>Next</a>"
    body = (
        f"<!doctype html><html><head><title>Jobs at {html.escape(board.company)}</title></head>"
        f"<body><div class='jv-page-body'>{rows}<div class='jv-pagination'>{following}</div>"
        "</div></body></html>"
    )
    return Reply(200, body.encode(), HTML, board.revision)
