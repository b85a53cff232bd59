"""BambooHR careers JSON: `/careers/list` (`{"meta": {"totalCount"}, "result": [...]}`,
no dates, no descriptions) and `/careers/{id}/detail` (`result.jobOpening` with
`description`, `datePosted`, `compensation`; 404 once the opening is removed).
`locationType` "1" is remote. The hosted page `/careers/{id}` is a client-side app
that loads the detail: it answers 200 for any id (a removed opening's page is a
soft-404)."""

from __future__ import annotations

from typing import Any

from sandbox.formats.common import find_job, json_error, json_reply, jsonld_page, paragraphs_html
from sandbox.routing import HTML, Format, Reply, Request
from sandbox.world import Board, Job, country_of

FORMAT = Format("bamboohr")
PLATFORM = "bamboohr"


def _location_type(job: Job) -> str:
    return (
        "1"
        if job.location.startswith("Remote")
        else "2"
        if job.location.startswith("Hybrid")
        else "0"
    )


def _row(board: Board, job: Job) -> dict[str, Any]:
    remote = job.location.startswith("Remote")
    return {
        "id": str(job.job_id % 10**6),
        "jobOpeningName": job.title,
        "departmentId": "18",
        "departmentLabel": job.department,
        "employmentStatusLabel": "Intern" if "Intern" in job.title else "Full-Time",
        "location": {"city": None if remote else job.location.split(",")[0], "state": None},
        # A free-entered location, used on remote requisitions only (as on real boards).
        "atsLocation": {
            "country": country_of(job.location) if remote else None,
            "state": None,
            "province": None,
            "city": None,
        },
        "isRemote": remote,
        "locationType": _location_type(job),
    }


@FORMAT.get(r"/bamboohr/(?P<token>[^/]+)/careers/list", platform=PLATFORM)
def careers_list(request: Request) -> Reply:
    board = request.board()
    rows = [_row(board, job) for job in board.jobs]
    return json_reply({"meta": {"totalCount": len(rows)}, "result": rows}, board)


@FORMAT.get(r"/bamboohr/(?P<token>[^/]+)/careers/(?P<id>\d+)/detail", platform=PLATFORM)
def detail(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: str(j.job_id % 10**6) == request.match["id"])
    if job is None:
        return json_error(404, {"error": "Job opening not found"})
    opening = _row(board, job)
    opening.update(
        description=paragraphs_html(board, job),
        datePosted=job.posted_at.date().isoformat(),
        compensation=f"{job.money_range()} per year" if job.salary else None,
        jobOpeningShareUrl=f"{request.base_url}/bamboohr/{board.token}/careers/{opening['id']}",
        jobOpeningStatus="Open",
    )
    opening["location"]["addressCountry"] = country_of(job.location)
    return json_reply({"meta": {}, "result": {"jobOpening": opening, "formFields": {}}}, board)


_SHELL = (
    b"<!doctype html><html><head><meta charset='utf-8'><title>Careers</title></head>"
    b"<body><div id='root'></div><script src='/careers/app.js'></script></body></html>"
)


@FORMAT.get(r"/bamboohr/(?P<token>[^/]+)/careers/(?P<id>\d+)/?", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: str(j.job_id % 10**6) == request.match["id"])
    if job is None:
        return Reply(200, _SHELL, HTML)  # the app shell for any id: a soft-404
    url = f"{request.base_url}/bamboohr/{board.token}/careers/{request.match['id']}"
    return jsonld_page(board, job, url, request.match["id"])
