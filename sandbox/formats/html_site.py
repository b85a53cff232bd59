"""A Vietnamese-style HTML job site: paginated listing cards and detail pages that
embed schema.org JobPosting JSON-LD (the shape of ITviec / TopCV style sites)."""

from __future__ import annotations

import html
import json
import math
import re
import unicodedata

from sandbox.routing import HTML, Format, Reply, Request, not_found
from sandbox.world import Board, Job

FORMAT = Format("html_site")
PAGE_SIZE = 10
SITES = ("vieclam",)  # the HTML job sites the sandbox hosts; boards are their categories


def slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text.replace("đ", "d").replace("Đ", "D"))
    ascii_text = ascii_text.encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def detail_path(site_base: str, job: Job) -> str:
    return f"{site_base}/viec-lam/{slug(job.title)}-{job.job_id}"


def listing_page(board: Board, site_base: str, page: int) -> bytes | None:
    """Page `page` (1-based) of the listing, or None past the last page."""
    pages = max(1, math.ceil(len(board.jobs) / PAGE_SIZE))
    if page < 1 or page > pages:
        return None
    jobs = board.jobs[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    cards = "".join(
        "<article class='job-card'>"
        f"<h3><a class='job-title' href='{html.escape(detail_path(site_base, job))}'>{html.escape(job.title)}</a></h3>"
        f"<div class='company'>{html.escape(board.company)}</div>"
        f"<div class='location'>{html.escape(job.location)}</div>"
        f"<time class='posted' datetime='{job.posted_at.date().isoformat()}'>{job.posted_at.date().isoformat()}</time>"
        "</article>"
        for job in jobs
    )
    next_link = (
        f"<a class='next' rel='next' href='?page={page + 1}'>Trang sau</a>" if page < pages else ""
    )
    return (
        "<!doctype html><html lang='vi'><head><meta charset='utf-8'>"
        f"<title>Việc làm tại {html.escape(board.company)} - trang {page}</title></head><body>"
        f"<p class='total'>{len(board.jobs)} việc làm</p>"
        f"<section class='job-list'>{cards}</section>"
        f"<nav class='pagination'>{next_link}</nav>"
        "</body></html>"
    ).encode()


def _jsonld(board: Board, job: Job, url: str) -> str:
    data = {
        "@context": "https://schema.org",
        "@type": "JobPosting",
        "title": job.title,
        "description": job.description_html(board.company, escape=str),
        "identifier": {"@type": "PropertyValue", "name": board.company, "value": str(job.job_id)},
        "datePosted": job.posted_at.date().isoformat(),
        "employmentType": "FULL_TIME",
        "hiringOrganization": {"@type": "Organization", "name": board.company},
        "jobLocation": {
            "@type": "Place",
            "address": {
                "@type": "PostalAddress",
                "addressLocality": job.location,
                "addressCountry": "VN",
            },
        },
        "url": url,
    }
    if pay := job.pay():
        data["baseSalary"] = {
            "@type": "MonetaryAmount",
            "currency": pay.currency,
            "value": {
                "@type": "QuantitativeValue",
                "minValue": pay.low,
                "maxValue": pay.high,
                "unitText": pay.unit,
            },
        }
    # JSON-LD inside <script> must not contain "</": escape it as the real sites do.
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


def detail_page(board: Board, job: Job, url: str) -> bytes:
    paragraphs = job.description_html(board.company)
    return (
        "<!doctype html><html lang='vi'><head><meta charset='utf-8'>"
        f"<title>{html.escape(job.title)} - {html.escape(board.company)}</title>"
        f"<script type='application/ld+json'>{_jsonld(board, job, url)}</script>"
        "</head><body><article class='job-detail'>"
        f"<h1 class='job-title'>{html.escape(job.title)}</h1>"
        f"<div class='company'>{html.escape(board.company)}</div>"
        f"<div class='location'>{html.escape(job.location)}</div>"
        f"<section class='description'>{paragraphs}</section>"
        "</article></body></html>"
    ).encode()


def _site_base(request: Request) -> str:
    return f"{request.base_url}/sites/{request.match['site']}/{request.match['token']}"


def _routes_for(site: str) -> None:
    platform = f"site:{site}"

    @FORMAT.get(rf"/sites/(?P<site>{site})/(?P<token>[^/]+)/jobs", platform=platform)
    def listing(request: Request) -> Reply:
        try:
            page = int(request.arg("page", "1"))
        except ValueError:
            page = 1
        board = request.board(vietnamese=True)
        body = listing_page(board, _site_base(request), page)
        if body is None:
            return not_found("Trang không tồn tại", HTML)
        return Reply(200, body, HTML, board.revision)

    @FORMAT.get(
        rf"/sites/(?P<site>{site})/(?P<token>[^/]+)/viec-lam/[a-z0-9-]*?-?(?P<job_id>\d+)",
        platform=platform,
    )
    def detail(request: Request) -> Reply:
        board = request.board(vietnamese=True)
        job = next((j for j in board.jobs if str(j.job_id) == request.match["job_id"]), None)
        if job is None:
            return not_found("Việc làm không tồn tại", HTML)
        url = detail_path(_site_base(request), job)
        return Reply(200, detail_page(board, job, url), HTML, board.revision)


for _site in SITES:
    _routes_for(_site)
