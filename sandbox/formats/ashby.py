"""Ashby posting API (`/posting-api/job-board/{org}[?includeCompensation=true]`) and
the hosted job page (schema.org JSON-LD; a soft-404 once removed), in Ashby's real shape: `{"jobs": [...],
"apiVersion": "1"}`, free-text `location` beside `address.postalAddress`,
`secondaryLocations[]`, `isRemote`, `workplaceType`, `compensation.summaryComponents`."""

from __future__ import annotations

from typing import Any

from sandbox.formats.common import (
    find_job,
    json_reply,
    jsonld_page,
    paragraphs_html,
)
from sandbox.routing import HTML, Format, Reply, Request
from sandbox.world import Board, Job, country_of, job_locations, job_uuid, money

FORMAT = Format("ashby")
PLATFORM = "ashby"


def _address(location: str) -> dict[str, Any]:
    return {
        "postalAddress": {
            "addressLocality": location.split(",")[0],
            "addressCountry": country_of(location),
        }
    }


def job_object(request: Request, board: Board, job: Job, *, compensation: bool) -> dict[str, Any]:
    url = f"{request.base_url}/ashby/jobs/{board.token}/{job_uuid(job)}"
    workplace = (
        "Remote"
        if job.location.startswith("Remote")
        else "Hybrid"
        if job.location.startswith("Hybrid")
        else "OnSite"
    )
    item: dict[str, Any] = {
        "id": job_uuid(job),
        "title": job.title,
        "department": job.department,
        "team": job.department,
        "employmentType": "Intern" if "Intern" in job.title else "FullTime",
        "location": job.location,
        "shouldDisplayCompensationOnJobPostings": bool(job.salary),
        "secondaryLocations": [
            {"location": loc, "address": _address(loc)} for loc in job_locations(job)[1:]
        ],
        "publishedAt": job.posted_at.isoformat(timespec="milliseconds"),
        "isListed": True,
        "isRemote": workplace == "Remote",
        "workplaceType": workplace,
        "address": _address(job.location),
        "jobUrl": url,
        "applyUrl": f"{url}/application",
        "descriptionHtml": paragraphs_html(board, job),
        "descriptionPlain": "\n\n".join(job.description_paragraphs(board.company)),
    }
    if compensation:
        components = []
        summary = None
        if job.salary:
            low, high = job.salary
            summary = f"{money(low // 1000, job.currency)}K – {money(high // 1000, job.currency)}K"
            components.append(
                {
                    "compensationType": "Salary",
                    "interval": "1 YEAR",
                    "currencyCode": job.currency,
                    "minValue": low,
                    "maxValue": high,
                }
            )
        components.append(
            {
                "compensationType": "EquityPercentage",
                "interval": "NONE",
                "currencyCode": None,
                "minValue": None,
                "maxValue": None,
            }
        )
        item["compensation"] = {
            "compensationTierSummary": summary,
            "scrapeableCompensationSalarySummary": summary.replace("–", "-") if summary else None,
            "compensationTiers": [],
            "summaryComponents": components,
        }
    return item


@FORMAT.get(r"/ashby/posting-api/job-board/(?P<token>[^/]+)", platform=PLATFORM)
def job_board(request: Request) -> Reply:
    board = request.board()
    compensation = request.arg("includeCompensation", "false").lower() == "true"
    jobs = [job_object(request, board, job, compensation=compensation) for job in board.jobs]
    return json_reply({"jobs": jobs, "apiVersion": "1"}, board)


_NOT_FOUND_PAGE = (
    b"<!doctype html><html><head><meta charset='utf-8'><title>Jobs</title></head>"
    b"<body><main><h1>Job not found</h1><p>The job you have requested was not found.</p>"
    b"</main></body></html>"
)


@FORMAT.get(r"/ashby/jobs/(?P<token>[^/]+)/(?P<id>[0-9a-f-]+)(?:/application)?", platform=PLATFORM)
def hosted(request: Request) -> Reply:
    board = request.board()
    job = find_job(board, lambda j: job_uuid(j) == request.match["id"])
    if job is None:
        # Like jobs.ashbyhq.com: 200 and "The job you have requested was not found".
        return Reply(200, _NOT_FOUND_PAGE, HTML)
    return jsonld_page(
        board, job, f"{request.base_url}/ashby/jobs/{board.token}/{job_uuid(job)}", job_uuid(job)
    )
