"""What lets a visitor follow a search and a crawler find the jobs: the Atom feed of any
search, robots.txt and the sitemap of open job pages (split past 50,000 URLs, the most
one sitemap file may list, under a sitemap index)."""

from __future__ import annotations

import pathlib
from dataclasses import replace
from datetime import UTC, datetime
from typing import Annotated, Any
from xml.etree import ElementTree as ET

from fastapi import APIRouter, Path, Request
from fastapi.responses import FileResponse, PlainTextResponse, Response

from serving_sync import search
from web import feed, navigation
from web.respond import raw_params

router = APIRouter(include_in_schema=False)
STATIC = pathlib.Path(__file__).parent / "static"
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"


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
    """The search page and every open job page; past the URLs one file may list
    (JOBHARBOR_WEB_SITEMAP_URLS, 50,000), an index of parts of job pages."""
    per_part = request.app.state.settings.web_sitemap_urls
    with request.app.state.pool.connection() as conn:
        size = conn.execute("SELECT serving.web_sitemap_size() AS n").fetchone()["n"]
        if size + 1 > per_part:
            return _xml(_index(_base(request), -(-size // per_part)))
        rows = _part(conn, 0, per_part)
    return _xml(_urlset(_base(request), rows, with_search=True))


@router.get("/sitemap-{part}.xml")
def sitemap_part(request: Request, part: Annotated[int, Path(ge=1, le=100_000)]) -> Response:
    """One part of a split sitemap (numbered from 1, as the index lists them)."""
    per_part = request.app.state.settings.web_sitemap_urls
    with request.app.state.pool.connection() as conn:
        rows = _part(conn, part - 1, per_part)
    if not rows:
        return Response("No such sitemap part.", status_code=404, media_type="text/plain")
    return _xml(_urlset(_base(request), rows, with_search=False))


def _part(conn: Any, part: int, per_part: int) -> list[dict[str, Any]]:
    sql = "SELECT * FROM serving.web_sitemap(%s, %s)"
    return conn.execute(sql, (part, per_part)).fetchall()


def _urlset(base: str, rows: list[dict[str, Any]], *, with_search: bool) -> ET.Element:
    urlset = ET.Element(f"{{{SITEMAP}}}urlset")
    if with_search:
        ET.SubElement(ET.SubElement(urlset, f"{{{SITEMAP}}}url"), f"{{{SITEMAP}}}loc").text = (
            base + "/"
        )
    for row in rows:
        url = ET.SubElement(urlset, f"{{{SITEMAP}}}url")
        ET.SubElement(url, f"{{{SITEMAP}}}loc").text = f"{base}/jobs/{row['id']}"
        ET.SubElement(url, f"{{{SITEMAP}}}lastmod").text = row["modified"].date().isoformat()
    return urlset


def _index(base: str, parts: int) -> ET.Element:
    index = ET.Element(f"{{{SITEMAP}}}sitemapindex")
    for part in range(1, parts + 1):
        entry = ET.SubElement(index, f"{{{SITEMAP}}}sitemap")
        ET.SubElement(entry, f"{{{SITEMAP}}}loc").text = f"{base}/sitemap-{part}.xml"
    return index


def _xml(root: ET.Element) -> Response:
    ET.register_namespace("", SITEMAP)
    body = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return Response(body, media_type="application/xml")


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")
