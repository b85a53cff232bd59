"""Parse throughput on this machine, one core.

- JSON listings (Greenhouse with entity-escaped content, Lever, Ashby, Workday, and
  Pinpoint, Breezy HR, Rippling, Oracle Recruiting Cloud), synthesized from the
  sandbox world with descriptions of a realistic length, in MB/s, next to
  `json.loads` of the same bytes.
- XML and HTML listings (SuccessFactors, JazzHR, Jobvite feeds; an iCIMS search
  page), in MB/s next to lxml parsing the same bytes (bench/listing_builders.py).
- HTML detail pages of about 100 KB (JSON-LD pages, a configured HTML site, a
  Greenhouse Remix page), in pages/s, next to `lxml.html.fromstring` of the same bytes.

Targets: >= 20 MB/s of JSON listings and >= 150 HTML pages/s per core. The last line
is one JSON object with the figures. Run with `make bench` or
`.venv/bin/python bench/parse.py [--seconds N]`.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.listing_builders import BUILDERS as LISTING_BUILDERS
from bench.listing_builders import measure_feeds
from parsers.html_site import HtmlSiteSpec, build_parser
from parsers.registry import REGISTRY
from parsers.types import DocumentKind, RawDocument
from sandbox.formats.common import job_posting_jsonld, script_json
from sandbox.world import Job, build_board, job_locations

SEED = 7
FETCHED = datetime(2026, 2, 1, tzinfo=UTC)
JSON_TARGET_MB_S = 20.0
HTML_TARGET_PAGES_S = 150.0

# A job description as long as real ones (~6 KB of HTML with headings and lists).
_BODY = "".join(
    f"<h3>{title}</h3><ul>"
    + "".join(
        f"<li>{html.escape(s)} — we care about correctness, latency and the people who use it.</li>"
        for s in (
            "Design services",
            "Review code",
            "Own incidents",
            "Mentor engineers",
            "Write docs",
            "Measure",
        )
    )
    + "</ul><p>"
    + "You will work across teams to ship reliable systems used by millions. " * 6
    + "</p>"
    for title in ("What you will do", "What you bring", "Nice to have", "Benefits")
)


def jobs(count: int) -> list[tuple[str, Job]]:
    out: list[tuple[str, Job]] = []
    part = 0
    while len(out) < count:
        board = build_board(SEED, "bench", f"board-{part}", 0)
        out.extend((board.company, job) for job in board.jobs)
        part += 1
    return out[:count]


def description(company: str, job: Job) -> str:
    return "".join(f"<p>{html.escape(p)}</p>" for p in job.description_paragraphs(company)) + _BODY


def greenhouse_listing(rows: list[tuple[str, Job]]) -> bytes:
    items = [
        {
            "absolute_url": f"https://job-boards.greenhouse.io/acme/jobs/{job.job_id}",
            "location": {"name": job.location},
            "metadata": [
                {
                    "id": 1,
                    "name": "Employment Type",
                    "value": "Full-time",
                    "value_type": "single_select",
                }
            ],
            "id": job.job_id,
            "title": job.title,
            "company_name": company,
            "first_published": job.posted_at.isoformat(),
            "content": html.escape(description(company, job)),
            "departments": [{"id": 1, "name": job.department, "child_ids": [], "parent_id": None}],
            "offices": [{"id": 2, "name": loc, "location": loc} for loc in job_locations(job)],
        }
        for company, job in rows
    ]
    return json.dumps({"jobs": items, "meta": {"total": len(items)}}).encode()


def lever_listing(rows: list[tuple[str, Job]]) -> bytes:
    items = [
        {
            "id": f"{job.job_id:032x}"[:8] + "-0000-4000-a000-" + f"{job.job_id:012d}"[-12:],
            "text": job.title,
            "categories": {
                "commitment": "Full-time",
                "department": job.department,
                "location": job.location,
                "allLocations": list(job_locations(job)),
            },
            "createdAt": int(job.posted_at.timestamp() * 1000),
            "description": description(company, job),
            "descriptionPlain": " ".join(job.description_paragraphs(company)),
            "lists": [{"text": "Requirements", "content": "<li>Python</li><li>SQL</li>"}],
            "additional": "<div>Equal opportunity employer.</div>",
            "hostedUrl": f"https://jobs.lever.co/acme/{job.job_id}",
            "applyUrl": f"https://jobs.lever.co/acme/{job.job_id}/apply",
            "workplaceType": "hybrid",
        }
        for company, job in rows
    ]
    return json.dumps(items).encode()


def ashby_listing(rows: list[tuple[str, Job]]) -> bytes:
    items = [
        {
            "id": f"{job.job_id}",
            "title": job.title,
            "department": job.department,
            "employmentType": "FullTime",
            "location": job.location,
            "secondaryLocations": [
                {"location": loc, "address": {"postalAddress": {"addressLocality": loc}}}
                for loc in job_locations(job)[1:]
            ],
            "publishedAt": job.posted_at.isoformat(),
            "isRemote": False,
            "address": {"postalAddress": {"addressLocality": job.location}},
            "jobUrl": f"https://jobs.ashbyhq.com/acme/{job.job_id}",
            "applyUrl": f"https://jobs.ashbyhq.com/acme/{job.job_id}/application",
            "descriptionHtml": description(company, job),
            "descriptionPlain": " ".join(job.description_paragraphs(company))
            + " "
            + lxml.html.fromstring(_BODY).text_content(),
            "compensation": {
                "summaryComponents": [
                    {
                        "compensationType": "Salary",
                        "interval": "1 YEAR",
                        "currencyCode": "USD",
                        "minValue": 1,
                        "maxValue": 2,
                    }
                ]
            },
        }
        for company, job in rows
    ]
    return json.dumps({"jobs": items, "apiVersion": "1"}).encode()


def workday_page(rows: list[tuple[str, Job]]) -> bytes:
    items = [
        {
            "title": job.title,
            "externalPath": f"/job/Remote/{job.title.replace(' ', '-')}_JR{job.job_id % 10**9}",
            "locationsText": "2 Locations" if job.job_id % 3 == 0 else job.location,
            "postedOn": "Posted 3 Days Ago",
            "bulletFields": [f"JR{job.job_id % 10**9}"],
        }
        for _, job in rows
    ]
    return json.dumps({"total": len(items), "jobPostings": items, "facets": []}).encode()


def detail_page(company: str, job: Job, *, target: int = 100_000) -> bytes:
    """A job page as sites serve it: head, styles, scripts, navigation, the posting
    (JSON-LD and markup) and a footer, padded to about `target` bytes."""
    url = f"https://jobs.example.com/viec-lam/{job.job_id}"
    data = job_posting_jsonld(build_board(SEED, "bench", "board-0", 0), job, url, str(job.job_id))
    data["description"] = description(company, job)
    nav = "".join(
        f"<li class='nav-item'><a href='/category/{i}'>Category {i}</a></li>" for i in range(60)
    )
    related = "".join(
        f"<div class='job-card'><h3><a href='/viec-lam/{i}'>Related role {i}</a></h3><div class='company'>Company {i}</div><div class='location'>Hà Nội</div></div>"
        for i in range(40)
    )
    head = (
        "<!doctype html><html lang='vi'><head><meta charset='utf-8'>"
        f"<title>{html.escape(job.title)} - {html.escape(company)}</title>"
        "<style>" + ".c{color:#333;margin:0 auto;padding:4px 8px}" * 200 + "</style>"
        "<script>" + "window.__analytics=window.__analytics||[];" * 150 + "</script>"
        f"<script type='application/ld+json'>{script_json(data)}</script></head><body>"
        f"<nav><ul>{nav}</ul></nav><main><article class='job-detail'>"
        f"<h1 class='job-title'>{html.escape(job.title)}</h1><div class='company'>{html.escape(company)}</div>"
        f"<div class='location'>{html.escape(job.location)}</div>"
        f"<section class='description'>{description(company, job)}</section></article>"
        f"<aside>{related}</aside></main>"
    )
    footer = (
        "<footer>"
        + "<p class='legal'>Điều khoản sử dụng và chính sách bảo mật.</p>" * 40
        + "</footer>"
    )
    page = head + footer
    padding = max(0, target - len(page.encode()) - 20)
    return (page + f"<!-- {'x' * padding} --></body></html>").encode()


def remix_page(company: str, job: Job, *, target: int = 100_000) -> bytes:
    post = {
        "title": job.title,
        "content": description(company, job),
        "introduction": "<p>About us</p>",
        "conclusion": "<p>Equal opportunity</p>",
        "job_post_location": " | ".join(job_locations(job)),
        "public_url": f"https://job-boards.greenhouse.io/acme/jobs/{job.job_id}",
        "company_name": company,
        "pay_ranges": [
            {
                "title": "Annual Salary:",
                "min": "$100,000",
                "max": "$150,000",
                "currency_type": "USD",
            }
        ],
        "published_at": job.posted_at.isoformat(),
        "questions": [
            {"label": f"Question {i}", "fields": [{"name": f"q{i}", "type": "input_text"}]}
            for i in range(120)
        ],
    }
    state = {
        "state": {
            "loaderData": {
                "root": {"ENV": {"K": "v" * 2000}},
                "routes/$url_token_.jobs_.$job_post_id": {
                    "jobPost": post,
                    "jobPostId": str(job.job_id),
                },
            }
        }
    }
    body = "<div>" + "<span class='x'>styling</span>" * 1500 + "</div>"
    page = f"<!DOCTYPE html><html><head><title>{html.escape(job.title)}</title></head><body>{body}<script>window.__remixContext = {script_json(state)};</script></body></html>"
    padding = max(0, target - len(page.encode()) - 20)
    return (page.replace("</body>", f"<!-- {'x' * padding} --></body>")).encode()


def timed(fn: Callable[[], object], seconds: float) -> tuple[int, float]:
    """(runs, elapsed) of the fastest of several batches within about `seconds`.

    The best batch, as timeit reports: other processes on a shared machine only
    ever make a batch slower, never faster.
    """
    fn()  # warm up (imports, compiled patterns)
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-6)
    per_batch = max(1, int(seconds / 5 / once))
    best = float("inf")
    deadline = time.perf_counter() + seconds
    while True:
        batch_start = time.perf_counter()
        for _ in range(per_batch):
            fn()
        best = min(best, time.perf_counter() - batch_start)
        if time.perf_counter() >= deadline:
            return per_batch, best


def main(argv: list[str] | None = None) -> int:
    args_parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    args_parser.add_argument(
        "--seconds", type=float, default=1.5, help="time per measurement (default 1.5)"
    )
    args = args_parser.parse_args(argv)

    rows = jobs(200)
    listings = {
        "greenhouse": greenhouse_listing(rows),
        "lever": lever_listing(rows),
        "ashby": ashby_listing(rows),
        "workday": workday_page(rows[:20]),
    }
    urls: dict[str, str] = {}
    for name, build in LISTING_BUILDERS.items():  # Pinpoint, Breezy, ... in their real shapes
        listings[name], urls[name] = build(rows, description)
    print("JSON listings (MB/s of input; one core)")
    total_bytes = total_parse = total_raw = 0.0
    per_parser: dict[str, float] = {}
    postings_per_s: dict[str, float] = {}
    for name, body in listings.items():
        doc = RawDocument(
            body,
            urls.get(name, "https://acme.wd5.myworkdayjobs.com/wday/cxs/acme/Careers/jobs"),
            DocumentKind.LISTING,
            fetched_at=FETCHED,
        )
        parser = REGISTRY.get(name)
        outcome = parser.parse(doc)
        assert outcome.postings, f"{name}: the benchmark input must parse"
        runs, elapsed = timed(lambda p=parser, d=doc: p.parse(d), args.seconds)
        raw_runs, raw_elapsed = timed(lambda b=body: json.loads(b), args.seconds)
        mb = len(body) / 1e6
        rate, raw_rate = mb * runs / elapsed, mb * raw_runs / raw_elapsed
        per_parser[name] = round(rate, 1)
        postings_per_s[name] = round(len(outcome.postings) * runs / elapsed)
        print(
            f"  {parser.ref:<14} {len(body) / 1024:8.0f} KB  {rate:8.1f} MB/s "
            f"({postings_per_s[name]:>7} postings/s)   json.loads {raw_rate:8.1f} MB/s   ratio {rate / raw_rate:5.2f}"
        )
        total_bytes += mb * runs
        total_parse += elapsed
        total_raw += mb * runs * raw_elapsed / (mb * raw_runs)
    json_rate = total_bytes / total_parse
    json_raw_rate = total_bytes / total_raw
    feed_rates, feed_rate = measure_feeds(rows, description, timed, args.seconds)

    company = "Bright Labs"
    pages = {
        "jsonld": [detail_page(company, job) for _, job in rows[:20]],
        "site": [detail_page(company, job) for _, job in rows[20:40]],
        "greenhouse": [remix_page(company, job) for _, job in rows[40:60]],
    }
    site = build_parser(
        HtmlSiteSpec(
            name="bench_site",
            item="div.job-card",
            link="h3 a::attr(href)",
            id_pattern=r"/(\d+)$",
            detail_fields={
                "title": "h1.job-title::text",
                "company": ".company::text",
                "location": ".location::text",
                "description": "section.description",
            },
        )
    )
    parsers = {
        "jsonld": REGISTRY.get("jsonld"),
        "site": site,
        "greenhouse": REGISTRY.get("greenhouse"),
    }
    print("HTML detail pages (pages/s; one core)")
    total_pages = total_seconds = total_raw_seconds = 0.0
    pages_per_s: dict[str, float] = {}
    for name, bodies in pages.items():
        docs = [
            RawDocument(
                b, f"https://jobs.example.com/viec-lam/{i}", DocumentKind.DETAIL, fetched_at=FETCHED
            )
            for i, b in enumerate(bodies)
        ]
        parser = parsers[name]
        assert all(parser.parse(d).postings for d in docs), (
            f"{name}: the benchmark pages must parse"
        )
        runs, elapsed = timed(lambda p=parser, ds=docs: [p.parse(d) for d in ds], args.seconds)
        raw_runs, raw_elapsed = timed(
            lambda bs=bodies: [lxml.html.fromstring(b) for b in bs], args.seconds
        )
        rate, raw_rate = len(docs) * runs / elapsed, len(docs) * raw_runs / raw_elapsed
        pages_per_s[name] = round(rate, 1)
        size = sum(map(len, bodies)) / len(bodies) / 1024
        print(
            f"  {parser.ref:<20} {size:6.0f} KB/page  {rate:8.0f} pages/s   lxml.html {raw_rate:8.0f} pages/s   ratio {rate / raw_rate:5.2f}"
        )
        total_pages += len(docs) * runs
        total_seconds += elapsed
        total_raw_seconds += len(docs) * runs / raw_rate
    html_rate = total_pages / total_seconds
    html_raw_rate = total_pages / total_raw_seconds

    verdict = (
        "meets" if json_rate >= JSON_TARGET_MB_S and html_rate >= HTML_TARGET_PAGES_S else "MISSES"
    )
    print(
        f"overall: JSON {json_rate:.1f} MB/s (target {JSON_TARGET_MB_S:.0f}), HTML {html_rate:.0f} pages/s "
        f"(target {HTML_TARGET_PAGES_S:.0f}): {verdict} the targets"
    )
    print(
        json.dumps(
            {
                "json_mb_per_s": round(json_rate, 2),
                "html_pages_per_s": round(html_rate, 1),
                "json_vs_raw_ratio": round(json_rate / json_raw_rate, 3),
                "html_vs_raw_ratio": round(html_rate / html_raw_rate, 3),
                "json_raw_mb_per_s": round(json_raw_rate, 1),
                "html_raw_pages_per_s": round(html_raw_rate, 1),
                "json_mb_per_s_by_parser": per_parser,
                "json_postings_per_s_by_parser": postings_per_s,
                "feed_mb_per_s": round(feed_rate, 2),
                "feed_mb_per_s_by_parser": feed_rates,
                "html_pages_per_s_by_parser": pages_per_s,
                "meets_targets": verdict == "meets",
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
