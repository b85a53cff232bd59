"""SAP SuccessFactors Recruiting, per career host: the XML feed
(`/career?company=X&career_ns=job_listing_summary&resultType=XML`: `<Job-Listing>`
of `<Job>` with escaped-HTML `Job-Description`, MM/DD/YYYY `Posted-Date` and
label/value facets numbered differently per tenant) and each job page
(`/career?career_ns=job_listing&company=X&career_job_req_id=N`): the posting while
it is posted, a "no longer available" page once it is not."""

from __future__ import annotations

import html
from dataclasses import replace
from xml.sax.saxutils import escape

from sandbox.formats.common import jsonld_page, paragraphs_html
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
