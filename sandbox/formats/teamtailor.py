"""Teamtailor's public jobs feed (`/jobs.json`, a JSON Feed 1.1 whose items embed a
schema.org JobPosting as `_jobposting`) and the hosted job page (JSON-LD). Like the
real captures, feed items carry no description: it is on the hosted page."""

from __future__ import annotations

from sandbox.formats.common import (
    find_job,
    html_not_found,
    job_posting_jsonld,
    json_reply,
    jsonld_page,
)
from sandbox.formats.html_site import slug
from sandbox.routing import Format, Reply, Request
from sandbox.world import Board, Job, job_uuid

FORMAT = Format("teamtailor")
PLATFORM = "teamtailor"


def job_path(job: Job) -> str:
    return f"{job.job_id % 10**7}-{slug(job.title)}"


def job_url(request: Request, board: Board, job: Job) -> str:
    return f"{request.base_url}/teamtailor/{board.token}/jobs/{job_path(job)}"


@FORMAT.get(r"/teamtailor/(?P<token>[^/]+)/jobs\.json", platform=PLATFORM)
def feed(request: Request) -> Reply:
    board = request.board()
    items = []
    for job in board.jobs:
        url = job_url(request, board, job)
        posting = job_posting_jsonld(board, job, url, str(job.job_id % 10**7))
        posting.pop("description")
        posting["identifier"]["value"] = job.job_id % 10**7
        items.append(
            {
                "id": job_uuid(job),
                "title": job.title,
                "url": url,
                "date_published": job.posted_at.isoformat(),
                "_jobposting": posting,
            }
        )
    home = f"{request.base_url}/teamtailor/{board.token}/jobs"
    data = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": board.company,
        "home_page_url": home,
        "feed_url": f"{home}.json",
        "items": items,
    }
    return json_reply(data, board)


@FORMAT.get(r"/teamtailor/(?P<token>[^/]+)/jobs/(?P<id>\d+)-[a-z0-9-]*", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: str(j.job_id % 10**7) == request.match["id"])
    if job is None:
        return html_not_found()
    return jsonld_page(board, job, job_url(request, board, job), str(job.job_id % 10**7))
