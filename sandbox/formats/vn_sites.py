"""Two Vietnamese job sites in the markup of the real ones, so the selectors shipped
for ITviec and TopCV in sources.yaml run end to end against the sandbox:

- `itviec`: `div.job-card` cards ("Posted 7 hours ago", "Sign in to view salary",
  work mode, `/it-jobs/<slug>-<id>?lab_feature=...` links), detail pages with
  JSON-LD, and ITviec's 404 page ("Oops! This page has found a better job").
- `topcv`: `div.job-item-search-result` cards (`label.title-salary` "12 - 18 triệu"
  / "Thoả thuận", `span.city-text` "Hà Nội & 2 nơi khác", links with tracking
  parameters), pagination through `a[rel=next][data-href]`, the total in the
  title, and an expired posting's page ("Tin tuyển dụng đã hết hạn").
"""

from __future__ import annotations

import html
import math

from sandbox.formats.common import find_job, job_posting_jsonld, jsonld_page, script_json
from sandbox.formats.html_site import slug
from sandbox.routing import HTML, Format, Reply, Request
from sandbox.world import Board, Job, job_locations

FORMAT = Format("vn_sites")
PAGE_SIZE = 10


def _page_of(request: Request, board: Board) -> list[Job] | None:
    try:
        page = int(request.arg("page", "1"))
    except ValueError:
        page = 1
    pages = max(1, math.ceil(len(board.jobs) / PAGE_SIZE))
    if page < 1 or page > pages:
        return None
    return list(board.jobs[(page - 1) * PAGE_SIZE : page * PAGE_SIZE])


def _page_number(request: Request) -> int:
    try:
        return int(request.arg("page", "1"))
    except ValueError:
        return 1


def _has_next(request: Request, board: Board) -> bool:
    return _page_number(request) < math.ceil(len(board.jobs) / PAGE_SIZE)


def vn_salary(job: Job) -> str:
    if not job.salary:
        return "Thoả thuận"
    low, high = job.salary
    return f"{low // 10000} - {high // 10000} triệu"


def vn_location(job: Job) -> str:
    locations = job_locations(job)
    if "&" in job.location or len(locations) == 1:
        return job.location
    return f"{locations[0]} & {len(locations) - 1} nơi khác"


# ---------------------------------------------------------------- itviec-shaped


def _itviec_base(request: Request) -> str:
    return f"/sites/itviec/{request.match['token']}"


def itviec_path(request: Request, job: Job) -> str:
    return f"{_itviec_base(request)}/it-jobs/{slug(job.title)}-{job.job_id % 10**6}"


def _posted(job: Job) -> str:
    hours = job.job_id % 50
    return f"Posted\n{hours} hours ago" if hours < 24 else f"Posted\n{hours - 23} days ago"


def _itviec_card(request: Request, board: Board, job: Job) -> str:
    mode = "Remote" if job.job_id % 7 == 0 else "Hybrid" if job.job_id % 5 == 0 else "At office"
    salary = (
        "<a class='sign-in-view-salary' href='/sign_in'>Sign in to view salary</a>"
        if job.job_id % 2
        else f"<span>{html.escape(vn_salary(job))}</span>"
    )
    href = html.escape(itviec_path(request, job)) + "?lab_feature=employer_job"
    return (
        "<div class='job-card ipt-4 h-100 d-flex flex-column'>"
        f"<div class='d-flex'><span class='small-text text-dark-grey'>\n{_posted(job)}\n</span></div>"
        f"<h3 class='imt-3'><a class='text-reset' href=\"{href}\"> {html.escape(job.title)}</a></h3>"
        f"<div class='imy-2'><span class='ims-2 small-text'><a class='text-rich-grey' href='/companies/{slug(board.company)}'>{html.escape(board.company)}</a></span></div>"
        f"<div class='fw-500'><div class='d-flex align-items-center salary text-rich-grey'>{salary}</div></div>"
        f"<div class='imt-1 d-flex'><div class='text-rich-grey flex-shrink-0'>\n{mode}\n</div>"
        f"<div class='text-rich-grey text-truncate text-nowrap' title='{html.escape(job.location)}'>{html.escape(job.location)}</div></div>"
        "</div>"
    )


@FORMAT.get(r"/sites/itviec/(?P<token>[^/]+)/it-jobs", platform="site:itviec")
def itviec_listing(request: Request) -> Reply:
    board = request.board(vietnamese=True)
    jobs = _page_of(request, board)
    if jobs is None:
        return _itviec_404()
    cards = "".join(_itviec_card(request, board, job) for job in jobs)
    following = (
        f"<div class='page'><a rel='next' href='?page={_page_number(request) + 1}'>Next</a></div>"
        if _has_next(request, board)
        else ""
    )
    body = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{len(board.jobs)} IT jobs | ITviec</title></head><body>"
        f"<div class='row'>{cards}</div>{following}</body></html>"
    ).encode()
    return Reply(200, body, HTML, board.revision)


def _itviec_404() -> Reply:
    body = (
        b"<!doctype html><html><head><title>Oops! This page has found a better job</title></head>"
        b"<body><h1>Oops!</h1><p>We're sorry, but the page you're looking for doesn't exist.</p>"
        b"</body></html>"
    )
    return Reply(404, body, HTML)


@FORMAT.get(
    r"/sites/itviec/(?P<token>[^/]+)/it-jobs/[a-z0-9-]*?-(?P<id>\d+)", platform="site:itviec"
)
def itviec_detail(request: Request) -> Reply:
    board = request.board(vietnamese=True)
    job = find_job(board, lambda j: str(j.job_id % 10**6) == request.match["id"])
    if job is None:
        return _itviec_404()
    url = f"{request.base_url}{itviec_path(request, job)}"
    return jsonld_page(board, job, url, str(job.job_id % 10**6), lang="vi")


# ---------------------------------------------------------------- topcv-shaped


def topcv_url(request: Request, job: Job) -> str:
    return f"{request.base_url}/sites/topcv/{request.match['token']}/viec-lam/{slug(job.title)}/{job.job_id % 10**7}.html"


def _topcv_card(request: Request, board: Board, job: Job) -> str:
    href = html.escape(
        topcv_url(request, job) + "?ta_source=JobSearchList_LinkDetail&u_sr_id=abc_1"
    )
    return (
        f"<div class='job-item-search-result job-ta' data-job-id='{job.job_id % 10**7}'>"
        "<div class='body'><div class='title-block'><div>"
        f"<h3 class='title '><a target='_blank' href=\"{href}\"><span data-original-title='{html.escape(job.title)}'>{html.escape(job.title)}</span></a></h3>"
        f"<a class='company' href='#'><span class='company-name'>{html.escape(board.company)}</span></a>"
        f"</div><div class='box-right'><label class='title-salary'>\n{html.escape(vn_salary(job))}\n</label></div></div>"
        f"<div class='info'><div class='label-content'><label class='address'><span class='city-text'>\n{html.escape(vn_location(job))}\n</span></label></div></div>"
        "</div></div>"
    )


@FORMAT.get(r"/sites/topcv/(?P<token>[^/]+)/tim-viec-lam", platform="site:topcv")
def topcv_listing(request: Request) -> Reply:
    board = request.board(vietnamese=True)
    jobs = _page_of(request, board)
    if jobs is None:
        return Reply(404, b"<html><body>404</body></html>", HTML)
    page = _page_number(request)
    listing = f"{request.base_url}/sites/topcv/{request.match['token']}/tim-viec-lam"
    previous = (
        f"<li><a data-href='{listing}?page={page - 1}' rel='prev'>‹</a></li>" if page > 1 else ""
    )
    following = (
        f"<li><a data-href='{listing}?page={page + 1}' rel='next' aria-label='Next »'>›</a></li>"
        if _has_next(request, board)
        else "<li class='disabled' aria-disabled='true'><span>›</span></li>"
    )
    total = f"{len(board.jobs):,}".replace(",", ".")
    body = (
        "<!doctype html><html lang='vi'><head><meta charset='utf-8'>"
        f"<title>Tuyển dụng {total} việc làm {html.escape(board.company)} [Update 18/10/2025]</title></head><body>"
        f"<div class='job-list-search-result'>{''.join(_topcv_card(request, board, j) for j in jobs)}</div>"
        f"<nav class='box-pagination'><ul class='pagination'>{previous}{following}</ul></nav>"
        "</body></html>"
    ).encode()
    return Reply(200, body, HTML, board.revision)


@FORMAT.get(
    r"/sites/topcv/(?P<token>[^/]+)/viec-lam/[a-z0-9-]+/(?P<id>\d+)\.html", platform="site:topcv"
)
def topcv_detail(request: Request) -> Reply:
    board = request.board(vietnamese=True)
    job = find_job(board, lambda j: str(j.job_id % 10**7) == request.match["id"])
    if job is None:
        body = (
            "<!doctype html><html lang='vi'><head><meta charset='utf-8'><title>TopCV</title></head>"
            "<body><div class='job-detail__expired'>Tin tuyển dụng đã hết hạn</div></body></html>"
        ).encode()
        return Reply(200, body, HTML)
    url = topcv_url(request, job)
    data = job_posting_jsonld(board, job, url, str(job.job_id % 10**7))
    body = (
        "<!doctype html><html lang='vi'><head><meta charset='utf-8'>"
        f"<title>{html.escape(job.title)}</title>"
        f"<script type='application/ld+json'>{script_json(data)}</script></head><body>"
        f"<h1 class='job-detail__info--title'>{html.escape(job.title)}</h1>"
        f"<div class='job-detail__info--section-content-value'>{html.escape(vn_salary(job))}</div>"
        "</body></html>"
    ).encode()
    return Reply(200, body, HTML, board.revision)
