"""BambooHR careers JSON: `/careers/list` (`{"meta": {"totalCount"}, "result": [...]}`,
no dates, no descriptions) and `/careers/{id}/detail` (`result.jobOpening` with
`description`, `datePosted`, `compensation`). `locationType` "1" is remote."""

from __future__ import annotations

from typing import Any

from sandbox.formats.common import find_job, json_error, json_reply, paragraphs_html
from sandbox.routing import Format, Reply, Request
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
        compensation=f"${job.salary[0]:,} - ${job.salary[1]:,} per year" if job.salary else None,
        jobOpeningShareUrl=f"{request.base_url}/bamboohr/{board.token}/careers/{opening['id']}",
        jobOpeningStatus="Open",
    )
    opening["location"]["addressCountry"] = country_of(job.location)
    return json_reply({"meta": {}, "result": {"jobOpening": opening, "formFields": {}}}, board)
