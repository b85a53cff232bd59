"""SAP SuccessFactors Recruiting, per career host: the XML feed
(`/career?company=X&career_ns=job_listing_summary&resultType=XML`: `<Job-Listing>`
of `<Job>` with escaped-HTML `Job-Description`, MM/DD/YYYY `Posted-Date` and
label/value facets numbered differently per tenant) and each job page
(`/career?career_ns=job_listing&company=X&career_job_req_id=N`): the posting while
it is posted, a "no longer available" page once it is not.

Career Site Builder sites, per site host: the RSS feed (`/googlefeed.xml`: `<item>`s
with `g:id` = the requisition id, `g:location`, `g:job_function`, a title with the
location in parentheses, the description escaped once more) and each job's page
(`/job/{slug}/{id}/`, JSON-LD; 404 once the job is gone)."""

from __future__ import annotations

import html
import re
from dataclasses import replace
from email.utils import format_datetime
from xml.sax.saxutils import escape

from sandbox.formats.common import find_job, html_not_found, jsonld_page, paragraphs_html
from sandbox.routing import HTML, Format, Reply, Request
from sandbox.world import Board, Job, country_of, token_words

FORMAT = Format("successfactors")
PLATFORM = "successfactors"
XML = "text/xml; charset=utf-8"
_ROUTE = r"/successfactors/(?P<token>[^/]+)/career"


def req_id(job: Job) -> str:
    return str(job.job_id % 10**5 + 10**5)


def _facets(board: Board, job: Job) -> str:
    # Tenants number their facets differently: this one puts the location second.
    facets = [
        ("filter1", "Job Family / Functional Area", job.department),
        ("filter2", "Posting Location", job.location),
        ("filter3", "Country", country_of(job.location) or ""),
        ("mfield1", "Type of Employment", "Internship" if "Intern" in job.title else "Regular"),
    ]
    if board.token.startswith("career10"):
        facets = [
            (tag, label, value)
            for (tag, _, _), (_, label, value) in zip(facets, facets[::-1], strict=True)
        ]
    return "".join(
        f"<{tag}><label>{escape(label)}</label><value>{escape(value)}</value></{tag}>"
        for tag, label, value in facets
    )


def _job(board: Board, job: Job) -> str:
    return (
        "<Job>"
        f"<JobTitle>{escape(job.title)}</JobTitle>"
        f"<ReqId>{req_id(job)}</ReqId>"
        f"<Posted-Date>{job.posted_at:%m/%d/%Y}</Posted-Date>"
        f"<Job-Description>{escape(paragraphs_html(board, job))}</Job-Description>"
        f"{_facets(board, job)}"
        "</Job>"
    )


def _feed(board: Board) -> Reply:
    body = (
        "<?xml version='1.0' encoding='UTF-8'?>\n<Job-Listing>"
        + "".join(_job(board, job) for job in board.jobs)
        + "</Job-Listing>"
    )
    return Reply(200, body.encode(), XML, board.revision)


def _page(request: Request, board: Board) -> Reply:
    wanted = request.arg("career_job_req_id")
    job = next((j for j in board.jobs if req_id(j) == wanted), None)
    if job is None:
        body = (
            "<!doctype html><html><head><title>Career Opportunities</title></head><body>"
            "<div class='errorMessage'>The job you are looking for is no longer available.</div>"
            "<a href='?career_ns=job_listing_summary'>View all jobs</a></body></html>"
        )
        return Reply(200, body.encode(), HTML)
    url = f"{request.base_url}{request.path}?career_ns=job_listing&company={html.escape(request.arg('company'))}&navBarLevel=JOB_SEARCH&career_job_req_id={wanted}"
    return jsonld_page(board, job, url, wanted)


@FORMAT.get(_ROUTE, platform=PLATFORM)
def career(request: Request) -> Reply:
    board = request.board()
    # The board is a host; the employer is the company id the feed is asked for.
    owner = token_words(request.arg("company"))
    board = replace(board, company=owner) if owner else board
    namespace = request.arg("career_ns")
    if namespace == "job_listing_summary" and request.arg("resultType") == "XML":
        return _feed(board)
    if namespace == "job_listing":
        return _page(request, board)
    body = "<!doctype html><html><body><div id='careerSite'>Search jobs</div></body></html>"
    return Reply(200, body.encode(), HTML, board.revision)


# ---------------------------------------------------------------- Career Site Builder


def _slug(job: Job) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", f"{job.location} {job.title}").strip("-")


def csb_job_url(request: Request, board: Board, job: Job) -> str:
    return f"{request.base_url}/successfactors/{board.token}/job/{_slug(job)}/{req_id(job)}/"


def _item(request: Request, board: Board, job: Job) -> str:
    link = csb_job_url(request, board, job)
    return (
        "<item>"
        f"<title>{escape(job.title)} ({escape(job.location)})</title>"
        f"<link>{escape(link)}</link><guid>{escape(link)}</guid>"
        f"<description>{escape(escape(paragraphs_html(board, job)))}</description>"
        f"<pubDate>{format_datetime(job.posted_at)}</pubDate>"
        f"<g:id>{req_id(job)}</g:id><g:location>{escape(job.location)}</g:location>"
        f"<g:job_function>{escape(job.department)}</g:job_function>"
        "</item>"
    )


@FORMAT.get(r"/successfactors/(?P<token>[^/]+)/googlefeed\.xml", platform=PLATFORM)
def csb_feed(request: Request) -> Reply:
    board = request.board()
    body = (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        "<rss version='2.0' xmlns:g='http://base.google.com/ns/1.0'><channel>"
        f"<title>Jobs at {escape(board.company)}</title>"
        f"<link>{escape(request.base_url)}/successfactors/{board.token}/</link>"
        + "".join(_item(request, board, job) for job in board.jobs)
        + "</channel></rss>"
    )
    return Reply(200, body.encode(), "application/rss+xml; charset=utf-8", board.revision)


@FORMAT.get(
    r"/successfactors/(?P<token>[^/]+)/job/(?P<slug>[^/]+)/(?P<id>\d+)/?", platform=PLATFORM
)
def csb_job_page(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: req_id(j) == request.match["id"])
    if job is None:
        return html_not_found("The job you are looking for is no longer available.")
    return jsonld_page(board, job, csb_job_url(request, board, job), req_id(job))
