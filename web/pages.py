"""Server-rendered pages: search with facets, job pages, stats, health."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from markupsafe import Markup

from serving_sync import search
from web import i18n, navigation, present, structured
from web.db import Unavailable
from web.i18n import gettext as _
from web.respond import cached_counts, raw_params, render

router = APIRouter(include_in_schema=False)
# The stats page: the parse groups, then skills, experience and seniority, and how many
# postings were extracted at all (their denominator: "not extracted" is not "none").
STATS_PAGE_GROUPS = (*search.STATS_GROUPS, "skill", "experience", "seniority", "enrichment")


@router.get("/")
def search_page(request: Request) -> Response:
    raw = raw_params(request)
    query = search.parse_request(raw)
    canonical = navigation.canonical_url(query, (raw.get("cursor") or [None])[0])
    partial = bool(request.headers.get("HX-Request"))
    if not partial and not navigation.is_canonical(raw, query):
        # A form sent without JavaScript carries every field, empty or default: the
        # address a visitor keeps or shares is the short one.
        return RedirectResponse(canonical, status_code=303)
    settings = request.app.state.settings
    chips = navigation.chips(query)
    context = {
        "title": navigation.page_title(query, None),
        "filters": query.filters,
        "query": query,
        "canonical": canonical,
        "base_url": str(request.base_url).rstrip("/"),
        "filter_count": len(chips),  # one per chip (navigation.filter_count)
        "chips": chips,
        "clear_url": navigation.clear_url(query),
        "facet_top": settings.web_facet_top,
        "facet_all": settings.web_facet_all,
    }
    try:
        with request.app.state.pool.connection() as conn:
            page = search.search(conn, query)
            # The facets count what the results show: the corrected query, if it was.
            answered = query.filters
            if page.corrected_query is not None:
                answered = replace(answered, q=page.corrected_query)
            facets = cached_counts(
                request, conn, answered, search.PAGE_FACET_GROUPS, settings.web_facet_all
            )
    except Unavailable:
        # A distinct state: the form stays usable, and no one reads "0 results".
        return render(request, "search.html", {**context, "unavailable": True}, 503)
    total = facets.total if facets else None
    context.update(
        page=page,
        facets=facets,
        groups=search.PAGE_FACET_GROUPS,
        title=navigation.page_title(query, total),
        # Grouped by company the list holds fewer than the matching jobs: no "of N".
        position=navigation.position(query, page.listed, total if query.group == "none" else None),
    )
    if partial:  # the filters and results, swapped in place by filters.js
        response = render(request, "partial.html", context)
        response.headers["HX-Push-Url"] = canonical
        return response
    return render(request, "search.html", context)


@router.get("/jobs/{job_id}")
def job_page(request: Request, job_id: Annotated[int, Path(ge=0)]) -> Response:
    if job_id >= 2**63:
        return render(request, "not_found.html", {"title": _("Job not found")}, 404)
    # The search that led here (its words are marked in the description), checked as
    # the search itself checks it.
    back = search.parse_filters({"q": raw_params(request).get("q", [])})
    with request.app.state.pool.connection() as conn:
        found = search.job(conn, job_id)
        closed = None if found else search.closed_job(conn, job_id)
        similar = search.similar(conn, job_id) if found else []
    if found:
        # The canonical address keeps a `lang` the URL named, as the search page's does:
        # each language's page is its own, tied together by the hreflang links.
        page_url = i18n.localized(str(request.url_for("job_page", job_id=job_id)))
        context = {
            "title": found["title"],
            "job": found,
            "q": back.q,
            "page_url": page_url,
            "description": structured.meta_description(found),
            "posting": _posting(found, page_url),
            "similar": similar,
        }
        return render(request, "job.html", context)
    if closed:
        return render(request, "closed.html", {"title": _("Job closed"), "job": closed}, 410)
    return render(request, "not_found.html", {"title": _("Job not found")}, 404)


def _posting(job: dict[str, Any], page_url: str) -> Markup | None:
    """The page's JobPosting: only for a posting seen open at the last check."""
    found = structured.job_posting(job, page_url) if job["status"] == "active" else None
    return structured.json_ld(found) if found else None


@router.get("/stats")
def stats_page(request: Request) -> Response:
    filters = search.parse_filters(raw_params(request))
    settings = request.app.state.settings
    with request.app.state.pool.connection() as conn:
        found = cached_counts(request, conn, filters, STATS_PAGE_GROUPS, settings.web_stats_top)
    context = {"title": _("Statistics"), "filters": filters, "stats": found}
    return render(request, "stats.html", context)


@router.get("/docs")
def api_docs(request: Request) -> Response:
    """The API's interactive documentation (Swagger UI over /openapi.json), every asset
    from this app: no CDN, no inline script."""
    return render(request, "docs.html", {"title": _("API")})


@router.get("/healthz")
def healthz(request: Request) -> JSONResponse:
    """The last applied sync and its age, and per source the freshness that sync
    published (as `jobharbor status` reports it); 503 when the database cannot be reached."""
    try:
        with request.app.state.pool.connection() as conn:
            last = search.last_sync(conn)
            fresh = search.freshness(conn)
    except Unavailable:
        return JSONResponse({"status": "unavailable", "database": "unreachable"}, 503)
    body: dict[str, Any] = {"status": "ok", "last_sync_at": None, "last_sync_age_s": None}
    if last is not None:
        body.update(
            last_sync_at=last["finished_at"].isoformat(),
            last_sync_age_s=round(last["age_s"], 1),
            published_rows=last["source_rows"],
        )
    body["lagging"] = any(row["lagging"] for row in fresh)
    body["freshness"] = {row["source"]: present.freshness_body(row) for row in fresh}
    return JSONResponse(body)
