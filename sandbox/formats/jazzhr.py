"""JazzHR's public XML job feed (`/feeds/export/jobs/{company}`: `<jobs>` with the
publisher and company, then `<job>` elements in CDATA, a filled one included with its
status) and the company's apply pages (`{company}.applytojob.com/apply/{code}/{slug}`,
JSON-LD): a closed job's page redirects up to the board's `/apply` list."""

from __future__ import annotations

import hashlib

from sandbox.formats.common import find_job, jsonld_page, paragraphs_html
from sandbox.formats.html_site import slug
from sandbox.routing import HTML, Format, Reply, Request
from sandbox.world import Board, Job, country_of

FORMAT = Format("jazzhr")
PLATFORM = "jazzhr"
XML = "application/xml; charset=utf-8"


def board_code(job: Job) -> str:
    return hashlib.sha256(f"jazz:{job.job_id}".encode()).hexdigest()[:10]


def apply_url(request: Request, board: Board, job: Job) -> str:
    return f"{request.base_url}/jazzhr/{board.token}/apply/{board_code(job)}/{slug(job.title)}"


def _cdata(tag: str, value: str | None) -> str:
    return f"<{tag}><![CDATA[{value or ''}]]></{tag}>"


def _job(request: Request, board: Board, job: Job, status: str = "Open") -> str:
    city, _, state = job.location.partition(", ")
    remote = job.location.startswith("Remote")
    return (
        "<job>"
        + "".join(
            _cdata(tag, value)
            for tag, value in (
                ("id", f"job_{job.posted_at:%Y%m%d%H%M%S}_{board_code(job).upper()}"),
                ("status", status),
                ("title", job.title),
                ("department", job.department),
                ("url", apply_url(request, board, job)),
                ("city", None if remote else city.removeprefix("Hybrid - ")),
                ("state", state if len(state) == 2 else None),
                ("country", country_of(job.location)),
                ("postalcode", None),
                ("description", paragraphs_html(board, job)),
                ("type", "Intern" if "Intern" in job.title else "Full Time"),
                ("experience", "Experienced"),
                ("original_open_date", job.posted_at.date().isoformat()),
            )
        )
        + "</job>"
    )


@FORMAT.get(r"/jazzhr/feeds/export/jobs/(?P<token>[^/]+)", platform=PLATFORM)
def feed(request: Request) -> Reply:
    board = request.board()
    filled = board.jobs[0].__class__(
        **{**vars(board.jobs[0]), "job_id": 1, "title": "Old Closed Role"}
    )
    body = (
        "<?xml version='1.0' encoding='utf-8'?>\n<jobs>"
        + _cdata("publisher", "JazzHR")
        + "<publisherurl>http://app.jazz.co</publisherurl>"
        + _cdata("company", board.company)
        + "".join(_job(request, board, job) for job in board.jobs)
        + _job(request, board, filled, status="Filled")
        + "</jobs>"
    )
    return Reply(200, body.encode(), XML, board.revision)


@FORMAT.get(r"/jazzhr/(?P<token>[^/]+)/apply", platform=PLATFORM)
def board_page(request: Request) -> Reply:
    board = request.board()
    links = "".join(
        f"<li><a href='{apply_url(request, board, job)}'>{job.title}</a></li>" for job in board.jobs
    )
    body = f"<!doctype html><html><body><h1>{board.company}</h1><ul>{links}</ul></body></html>"
    return Reply(200, body.encode(), HTML, board.revision)


@FORMAT.get(
    r"/jazzhr/(?P<token>[^/]+)/apply/(?P<code>[0-9a-f]{10})/(?P<slug>[^/]+)", platform=PLATFORM
)
def apply_page(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: board_code(j) == request.match["code"])
    if job is None:  # JazzHR sends a closed job's visitors to the board's list
        location = f"{request.base_url}/jazzhr/{board.token}/apply"
        return Reply(302, b"", HTML, headers=(("Location", location),))
    return jsonld_page(board, job, apply_url(request, board, job), board_code(job))
