"""SmartRecruiters public API: `/v1/companies/{company}/postings` pages with
`offset`, `limit` (default 10, at most 100) and `totalFound`, and the posting
detail `/v1/companies/{company}/postings/{id}` with `jobAd.sections`, in the real
shape (string latitude/longitude, `location.remote` / `location.hybrid`); and the
posting page on the separate public host (`jobs.smartrecruiters.com/{company}/{id}`,
here `/smartrecruiters/jobs/{company}/{id}`, with `?apply` for the apply page)."""

from __future__ import annotations

import html
from typing import Any

from sandbox.formats.common import find_job, html_not_found, json_error, json_reply, jsonld_page
from sandbox.routing import Format, Reply, Request
from sandbox.world import COUNTRY_CODES, Board, Job, country_of

FORMAT = Format("smartrecruiters")
PLATFORM = "smartrecruiters"
MAX_LIMIT = 100


def _int_arg(request: Request, name: str, default: int) -> int:
    try:
        return max(0, int(request.arg(name, str(default))))
    except ValueError:
        return default


def _row(request: Request, board: Board, job: Job) -> dict[str, Any]:
    city = job.location.split(",")[0].replace("Remote - ", "").replace("Hybrid - ", "")
    return {
        "id": str(job.job_id),
        "name": job.title,
        "uuid": f"00000000-0000-4000-8000-{job.job_id % 10**12:012d}",
        "refNumber": f"REF{job.job_id % 100000}",
        "company": {"identifier": board.token, "name": board.company},
        "releasedDate": job.posted_at.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        "location": {
            "city": city,
            "country": COUNTRY_CODES.get(country_of(job.location) or "", "").lower(),
            "remote": job.location.startswith("Remote"),
            "hybrid": job.location.startswith("Hybrid"),
            "latitude": "52.52",
            "longitude": "13.405",
            "fullLocation": job.location,
        },
        "department": {"id": "1", "label": job.department},
        "typeOfEmployment": {"id": "intern", "label": "Intern"}
        if "Intern" in job.title
        else {"id": "permanent", "label": "Full-time"},
        "customField": [],
        "visibility": "PUBLIC",
        "ref": f"{request.base_url}/smartrecruiters/v1/companies/{board.token}/postings/{job.job_id}",
        "language": {"code": "en", "label": "English", "labelNative": "English (US)"},
    }


@FORMAT.get(r"/smartrecruiters/v1/companies/(?P<token>[^/]+)/postings", platform=PLATFORM)
def postings(request: Request) -> Reply:
    board = request.board()
    offset = _int_arg(request, "offset", 0)
    limit = min(_int_arg(request, "limit", 10) or 10, MAX_LIMIT)
    page = board.jobs[offset : offset + limit]
    data = {
        "offset": offset,
        "limit": limit,
        "totalFound": len(board.jobs),
        "content": [_row(request, board, job) for job in page],
    }
    return json_reply(data, board)


@FORMAT.get(
    r"/smartrecruiters/v1/companies/(?P<token>[^/]+)/postings/(?P<id>\d+)", platform=PLATFORM
)
def posting(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: str(j.job_id) == request.match["id"])
    if job is None:
        return json_error(
            404, {"message": f"Job posting with id = {request.match['id']} not found"}
        )
    paragraphs = job.description_paragraphs(board.company)
    detail = _row(request, board, job)
    detail.pop("ref")
    detail.update(
        active=True,
        postingUrl=f"{request.base_url}/smartrecruiters/jobs/{board.token}/{job.job_id}",
        applyUrl=f"{request.base_url}/smartrecruiters/jobs/{board.token}/{job.job_id}?apply",
        jobAd={
            "sections": {
                "companyDescription": {
                    "title": "Company Description",
                    "text": f"<p>{html.escape(paragraphs[0])}</p>",
                },
                "jobDescription": {
                    "title": "Job Description",
                    "text": "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs[1:]),
                },
                "qualifications": {
                    "title": "Qualifications",
                    "text": "<ul>" + "".join(f"<li>{s}</li>" for s in job.skills) + "</ul>",
                },
                "additionalInformation": {
                    "title": "Additional Information",
                    "text": "<p>Equal opportunity employer.</p>",
                },
            }
        },
    )
    return json_reply(detail, board)


@FORMAT.get(r"/smartrecruiters/jobs/(?P<token>[^/]+)/(?P<id>\d+)", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: str(j.job_id) == request.match["id"])
    if job is None:
        return html_not_found("This job is no longer available.")
    url = f"{request.base_url}/smartrecruiters/jobs/{board.token}/{job.job_id}"
    return jsonld_page(board, job, url, str(job.job_id))
