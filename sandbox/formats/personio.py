"""Personio's public XML feed (`https://{company}.jobs.personio.de/xml`): the
`<workzag-jobs><position>` shape with `additionalOffices/office`, CDATA job
descriptions, `employmentType` + `schedule`; and the hosted job page (JSON-LD)."""

from __future__ import annotations

from xml.sax.saxutils import escape

from sandbox.formats.common import find_job, html_not_found, jsonld_page
from sandbox.routing import Format, Reply, Request
from sandbox.world import Board, Job, job_locations

FORMAT = Format("personio")
PLATFORM = "personio"
XML = "text/xml; charset=utf-8"


def _position(board: Board, job: Job) -> str:
    offices = job_locations(job)
    descriptions = "".join(
        f"<jobDescription><name>{escape(name)}</name><value><![CDATA[{value}]]></value></jobDescription>"
        for name, value in (
            (
                "About the role",
                job.description_html(board.company, escape),
            ),
            (
                "Your skills",
                "<ul>" + "".join(f"<li>{escape(s)}</li>" for s in job.skills) + "</ul>",
            ),
        )
    )
    additional = "".join(f"<office>{escape(o.split(',')[0])}</office>" for o in offices[1:])
    return (
        "<position>"
        f"<id>{job.job_id % 10**7}</id>"
        f"<subcompany>{escape(board.company)}</subcompany>"
        f"<office>{escape(offices[0].split(',')[0])}</office>"
        f"<additionalOffices>{additional}</additionalOffices>"
        f"<department>{escape(job.department)}</department>"
        f"<recruitingCategory>{escape(job.department)}</recruitingCategory>"
        f"<name>{escape(job.title)}</name>"
        f"<jobDescriptions>{descriptions}</jobDescriptions>"
        f"<employmentType>{'intern' if 'Intern' in job.title else 'permanent'}</employmentType>"
        "<seniority>experienced</seniority><schedule>full-time</schedule>"
        "<yearsOfExperience>1-2</yearsOfExperience>"
        "<occupation>software_and_web_development</occupation><occupationCategory>it_software</occupationCategory>"
        f"<createdAt>{job.posted_at.isoformat()}</createdAt>"
        "</position>"
    )


@FORMAT.get(r"/personio/(?P<token>[^/]+)/xml", platform=PLATFORM)
def feed(request: Request) -> Reply:
    board = request.board()
    body = (
        "<?xml version='1.0' encoding='UTF-8'?>\n<workzag-jobs>"
        + "".join(_position(board, job) for job in board.jobs)
        + "</workzag-jobs>"
    )
    return Reply(200, body.encode(), XML, board.revision)


@FORMAT.get(r"/personio/(?P<token>[^/]+)/job/(?P<id>\d+)", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: str(j.job_id % 10**7) == request.match["id"])
    if job is None:
        return html_not_found()
    url = f"{request.base_url}/personio/{board.token}/job/{job.job_id % 10**7}"
    return jsonld_page(board, job, url, str(job.job_id % 10**7))
