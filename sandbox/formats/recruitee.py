"""Recruitee careers API (`https://{company}.recruitee.com/api/offers/`, one offer
at `/api/offers/{slug}`) in the real shape: string salary bounds, "YYYY-MM-DD
HH:MM:SS UTC" timestamps, separate hybrid / remote / on_site flags."""

from __future__ import annotations

from typing import Any

from sandbox.formats.common import (
    find_job,
    html_not_found,
    json_error,
    json_reply,
    jsonld_page,
    paragraphs_html,
)
from sandbox.formats.html_site import slug
from sandbox.routing import Format, Reply, Request
from sandbox.world import Board, Job, country_of, job_locations

FORMAT = Format("recruitee")
PLATFORM = "recruitee"


def offer_slug(job: Job) -> str:
    return f"{slug(job.title)}-{job.job_id % 1000}"


def offer(request: Request, board: Board, job: Job) -> dict[str, Any]:
    base = f"{request.base_url}/recruitee/{board.token}"
    stamp = job.posted_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    item: dict[str, Any] = {
        "id": job.job_id,
        "slug": offer_slug(job),
        "title": job.title,
        "company_name": board.company,
        "department": job.department,
        "location": job.location,
        "city": job.location.split(",")[0],
        "country": country_of(job.location),
        "locations": [
            {
                "id": i + 1,
                "name": loc.split(",")[0],
                "city": loc.split(",")[0],
                "state": None,
                "country": country_of(loc),
            }
            for i, loc in enumerate(job_locations(job))
        ],
        "description": paragraphs_html(board, job),
        "requirements": "<ul>" + "".join(f"<li>{s}</li>" for s in job.skills) + "</ul>",
        "employment_type_code": "internship" if "Intern" in job.title else "fulltime_permanent",
        "remote": job.location.startswith("Remote"),
        "hybrid": job.location.startswith("Hybrid"),
        "on_site": not job.location.startswith(("Remote", "Hybrid")),
        "status": "published",
        "created_at": stamp,
        "published_at": stamp,
        "updated_at": stamp,
        "careers_url": f"{base}/o/{offer_slug(job)}",
        "careers_apply_url": f"{base}/o/{offer_slug(job)}/c/new",
        "open_questions": [],
        "tags": [],
    }
    if job.salary:
        low, high = job.salary
        item["salary"] = {
            "min": str(low),
            "max": str(high),
            "period": "year",
            "currency": job.currency,
        }
    return item


@FORMAT.get(r"/recruitee/(?P<token>[^/]+)/api/offers/?", platform=PLATFORM)
def offers(request: Request) -> Reply:
    board = request.board()
    return json_reply({"offers": [offer(request, board, job) for job in board.jobs]}, board)


@FORMAT.get(r"/recruitee/(?P<token>[^/]+)/api/offers/(?P<slug>[^/]+)", platform=PLATFORM)
def one_offer(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: offer_slug(j) == request.match["slug"])
    if job is None:
        return json_error(404, {"error": "Not found"})
    return json_reply({"offer": offer(request, board, job)}, board)


@FORMAT.get(r"/recruitee/(?P<token>[^/]+)/o/(?P<slug>[^/]+)(?:/c/new)?", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: offer_slug(j) == request.match["slug"])
    if job is None:
        return html_not_found()
    url = f"{request.base_url}/recruitee/{board.token}/o/{offer_slug(job)}"
    return jsonld_page(board, job, url, str(job.job_id))
