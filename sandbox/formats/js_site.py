"""A job site whose listing is rendered in the browser: the HTML is an empty shell
and a script fetches the jobs as JSON and builds the cards (the same markup as the
server-rendered html_site format, so one parser config reads both). A plain HTTP
fetch sees no jobs; only the browser path sees the listing."""

from __future__ import annotations

import json
import math

from sandbox.formats.html_site import PAGE_SIZE, detail_page, detail_path
from sandbox.routing import HTML, Format, Reply, Request, not_found

FORMAT = Format("js")
PLATFORM = "js"

_SHELL = """<!doctype html><html lang='vi'><head><meta charset='utf-8'>
<title>Việc làm</title></head><body>
<p class='total'></p><section class='job-list'></section><nav class='pagination'></nav>
<script>
fetch('api/jobs' + location.search).then(r => r.json()).then(data => {
  document.querySelector('p.total').textContent = data.total + ' việc làm';
  const list = document.querySelector('section.job-list');
  for (const job of data.jobs) {
    const card = document.createElement('article');
    card.className = 'job-card';
    card.innerHTML = "<h3><a class='job-title'></a></h3><div class='company'></div>"
      + "<div class='location'></div><time class='posted'></time>";
    const link = card.querySelector('a.job-title');
    link.href = job.url; link.textContent = job.title;
    card.querySelector('.company').textContent = job.company;
    card.querySelector('.location').textContent = job.location;
    const time = card.querySelector('time.posted');
    time.setAttribute('datetime', job.posted); time.textContent = job.posted;
    list.appendChild(card);
  }
  if (data.page < data.pages) {
    const next = document.createElement('a');
    next.className = 'next'; next.rel = 'next'; next.href = '?page=' + (data.page + 1);
    next.textContent = 'Trang sau';
    document.querySelector('nav.pagination').appendChild(next);
  }
  document.body.setAttribute('data-rendered', 'true');
});
</script></body></html>"""


def _site_base(request: Request) -> str:
    return f"{request.base_url}/js/{request.match['token']}"


def _page(request: Request) -> int:
    try:
        return int(request.arg("page", "1"))
    except ValueError:
        return 1


@FORMAT.get(r"/js/(?P<token>[^/]+)/jobs", platform=PLATFORM)
def shell(request: Request) -> Reply:
    return Reply(200, _SHELL.encode(), HTML)  # the shell never changes: no validators


@FORMAT.get(r"/js/(?P<token>[^/]+)/api/jobs", platform=PLATFORM)
def api(request: Request) -> Reply:
    board = request.board(vietnamese=True)
    page = _page(request)
    pages = max(1, math.ceil(len(board.jobs) / PAGE_SIZE))
    if page < 1 or page > pages:
        return not_found("page not found")
    jobs = board.jobs[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    body = {
        "total": len(board.jobs),
        "page": page,
        "pages": pages,
        "jobs": [
            {
                "title": job.title,
                "company": board.company,
                "location": job.location,
                "posted": job.posted_at.date().isoformat(),
                "url": detail_path(_site_base(request), job),
            }
            for job in jobs
        ],
    }
    return Reply(200, json.dumps(body, ensure_ascii=False).encode(), revision=board.revision)


@FORMAT.get(r"/js/(?P<token>[^/]+)/viec-lam/[a-z0-9-]*?-?(?P<job_id>\d+)", platform=PLATFORM)
def detail(request: Request) -> Reply:
    board = request.board(vietnamese=True)
    job = next((j for j in board.jobs if str(j.job_id) == request.match["job_id"]), None)
    if job is None:
        return not_found("Việc làm không tồn tại", HTML)
    url = detail_path(_site_base(request), job)
    return Reply(200, detail_page(board, job, url), HTML, board.revision)
