"""What lets a visitor follow a search and a crawler find the jobs: the Atom feed of any
search, robots.txt and the sitemap of company and open job pages, each with its
language alternates (split past 50,000 URLs, the most one sitemap file may list, under a
sitemap index)."""

from __future__ import annotations

import pathlib
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Annotated, Any
from xml.etree import ElementTree as ET

from fastapi import APIRouter, Path, Request
from fastapi.responses import FileResponse, PlainTextResponse, Response

from serving_sync import companies, search
from web import feed, i18n, navigation
from web.respond import raw_params

router = APIRouter(include_in_schema=False)
STATIC = pathlib.Path(__file__).parent / "static"
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML = "http://www.w3.org/1999/xhtml"


@router.get("/feed")
def search_feed(request: Request) -> Response:
    """The search given by the same parameters as the page, as an Atom feed: the newest
    matches (up to 50, or `limit`), each linking to its job page."""
    raw = raw_params(request)
    query = search.parse_request(raw)
    asked = replace(query, sort="newest", cursor=None)
    limit = query.limit if "limit" in raw else search.MAX_LIMIT
    query = replace(asked, limit=limit)
    with request.app.state.pool.connection() as conn:
        page = search.search(conn, query)
    base = str(request.base_url).rstrip("/")
    body = feed.atom(
        title=f"jobharbor: {navigation.page_title(query, None)}",
        feed_url=str(request.url),
        page_url=base + navigation.canonical_url(asked, None),
        job_url=base + "/jobs/{id}",
        items=page.items,
        now=datetime.now(UTC),
    )
    return Response(body, media_type="application/atom+xml")


@router.get("/favicon.ico")
def favicon() -> FileResponse:
    """Browsers ask for it whatever the page links: the same mark as the pages' icon."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


@router.get("/robots.txt")
def robots(request: Request) -> PlainTextResponse:
    """Crawlers may read the pages; the API and deep cursor pages are not for indexing."""
    base = _base(request)
    lines = ["User-agent: *", "Allow: /", "Disallow: /api/", "Disallow: /*cursor="]
    return PlainTextResponse("\n".join([*lines, f"Sitemap: {base}/sitemap.xml", ""]))


@router.get("/sitemap.xml")
def sitemap(request: Request) -> Response:
    """The search page, every published company's page and every open job page; past the
    URLs one file may list (JOBHARBOR_WEB_SITEMAP_URLS, 50,000), an index of parts: job
    pages in /sitemap-N.xml, company pages in /sitemap-companies-N.xml."""
    per_part = request.app.state.settings.web_sitemap_urls
    with request.app.state.pool.connection() as conn:
        jobs = _count(conn, "serving.web_sitemap_size()")
        named = _count(conn, "serving.web_sitemap_companies_size()")
        if 1 + named + jobs > per_part:
            return _xml(_index(_base(request), _parts(jobs, per_part), _parts(named, per_part)))
        urls = [("/", None), *_company_urls(conn, 0, per_part), *_job_urls(conn, 0, per_part)]
    return _xml(_urlset(_base(request), urls))


@router.get("/sitemap-companies-{part}.xml")
def sitemap_companies_part(
    request: Request, part: Annotated[int, Path(ge=1, le=100_000)]
) -> Response:
    """One part of a split sitemap's company pages (numbered from 1). Declared before
    /sitemap-{part}.xml, whose pattern would take its path."""
    per_part = request.app.state.settings.web_sitemap_urls
    with request.app.state.pool.connection() as conn:
        urls = _company_urls(conn, part - 1, per_part)
    return _urlset_or_404(request, urls)


@router.get("/sitemap-{part}.xml")
def sitemap_part(request: Request, part: Annotated[int, Path(ge=1, le=100_000)]) -> Response:
    """One part of a split sitemap's job pages (numbered from 1, as the index lists them)."""
    per_part = request.app.state.settings.web_sitemap_urls
    with request.app.state.pool.connection() as conn:
        urls = _job_urls(conn, part - 1, per_part)
    return _urlset_or_404(request, urls)


Url = tuple[str, date | None]  # a path on this site and when it last changed, if known


def _job_urls(conn: Any, part: int, per_part: int) -> list[Url]:
    sql = "SELECT * FROM serving.web_sitemap(%s, %s)"
    rows = conn.execute(sql, (part, per_part)).fetchall()
    return [(f"/jobs/{row['id']}", row["modified"].date()) for row in rows]


def _company_urls(conn: Any, part: int, per_part: int) -> list[Url]:
    sql = "SELECT * FROM serving.web_sitemap_companies(%s, %s)"
    rows = conn.execute(sql, (part, per_part)).fetchall()
    # Names that fold to one slug share one page: list it once.
    slugs = dict.fromkeys(companies.slug(row["company"]) for row in rows)
    return [(f"/companies/{slug}", None) for slug in slugs if slug]


def _count(conn: Any, function: str) -> int:
    return int(conn.execute(f"SELECT {function} AS n").fetchone()["n"])


def _parts(urls: int, per_part: int) -> int:
    return -(-urls // per_part)


def _urlset_or_404(request: Request, urls: list[Url]) -> Response:
    if not urls:
        return Response("No such sitemap part.", status_code=404, media_type="text/plain")
    return _xml(_urlset(_base(request), urls))


def _urlset(base: str, urls: list[Url]) -> ET.Element:
    urlset = ET.Element(f"{{{SITEMAP}}}urlset")
    for path, modified in urls:
        url = ET.SubElement(urlset, f"{{{SITEMAP}}}url")
        ET.SubElement(url, f"{{{SITEMAP}}}loc").text = base + path
        if modified is not None:
            ET.SubElement(url, f"{{{SITEMAP}}}lastmod").text = modified.isoformat()
        # The page in each language, as its own hreflang links name it.
        for hreflang, address in i18n.alternates(path, ""):
            attributes = {"rel": "alternate", "hreflang": hreflang, "href": base + address}
            ET.SubElement(url, f"{{{XHTML}}}link", attributes)
    return urlset


def _index(base: str, job_parts: int, company_parts: int) -> ET.Element:
    index = ET.Element(f"{{{SITEMAP}}}sitemapindex")
    names = [f"sitemap-{n}" for n in range(1, job_parts + 1)]
    names += [f"sitemap-companies-{n}" for n in range(1, company_parts + 1)]
    for name in names:
        entry = ET.SubElement(index, f"{{{SITEMAP}}}sitemap")
        ET.SubElement(entry, f"{{{SITEMAP}}}loc").text = f"{base}/{name}.xml"
    return index


def _xml(root: ET.Element) -> Response:
    ET.register_namespace("", SITEMAP)
    ET.register_namespace("xhtml", XHTML)
    body = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return Response(body, media_type="application/xml")


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")
