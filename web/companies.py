"""Company pages: /companies/{slug} shows a company's open jobs (the search page's
filters apply too), the sources they come from and a small stats panel (jobs by
country, work mode and month); /api/companies/{slug} answers the same as JSON."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse, Response

from serving_sync import companies, search
from web import api, contract, i18n, navigation
from web.i18n import gettext as _
from web.i18n import ngettext
from web.respond import cached_counts, json_response, raw_params, render

router = APIRouter()
PANEL_GROUPS = ("source", "country", "work_mode", "month")
PANEL_TOP = 8
Slug = Annotated[str, Path(max_length=companies.MAX_SLUG_CHARS, description="The company's slug")]


def company_link(name: str) -> str:
    return i18n.localized("/companies/" + quote(companies.slug(name), safe=""))


def _read(request: Request, slug: str) -> dict[str, Any] | None:
    """The company, one page of its jobs under the request's filters, and its panel."""
    query = search.parse_request(raw_params(request))
    with request.app.state.pool.connection() as conn:
        name = companies.company_named(conn, slug)
        if name is None:
            return None
        filters = replace(query.filters, company=(name,))
        query = replace(query, filters=filters, group="none")  # one company: nothing to group
        page = search.search(conn, query)
        panel = cached_counts(request, conn, filters, PANEL_GROUPS, PANEL_TOP)
    return {"name": name, "query": query, "page": page, "panel": panel}


@router.get("/companies/{slug}", include_in_schema=False)
def company_page(request: Request, slug: Slug) -> Response:
    found = _read(request, slug)
    if found is None:
        context = {"title": _("Company not found"), "page": True, "company": True}
        return render(request, "not_found.html", context, 404)
    query, page, panel = found["query"], found["page"], found["panel"]
    base = f"/companies/{quote(slug, safe='')}"
    context = {
        "title": _title(found["name"], panel.total),
        "company": found["name"],
        "filters": query.filters,
        "query": query,
        "page": page,
        "panel": panel,
        "groups": PANEL_GROUPS,
        "search_url": navigation.canonical_url(query, None),
        # This page's own address without empty or default parameters, its language kept
        # where the URL named it (as the search and job pages write theirs).
        "canonical": str(request.base_url).rstrip("/")
        + i18n.localized(_here(base, query, query.cursor)),
        "next_url": _here(base, query, page.next_cursor) if page.next_cursor else None,
        "first_url": _here(base, query, None) if query.cursor else None,
        "previous_url": _here(base, query, page.previous_cursor) if page.has_previous else None,
        "position": navigation.position(query, page.listed, panel.total),
        "description": _("Open jobs at %(company)s, from the employer's own boards.")
        % {"company": found["name"]},
    }
    return render(request, "company.html", context)


def _title(name: str, total: int | None) -> str:
    if total is None:
        return _("%(company)s — ? open jobs") % {"company": name}
    count = ngettext("%(n)s open job", "%(n)s open jobs", total) % {"n": i18n.number(total)}
    return f"{name} — {count}"


def _here(base: str, query: search.SearchRequest, cursor: str | None) -> str:
    """This company page with the same filters (the company is in the path)."""
    pairs = [(k, v) for k, v in navigation.canonical_pairs(query, cursor) if k != "company"]
    return base + ("?" + urlencode(pairs) if pairs else "")


@router.get(
    "/api/companies/{slug}",
    tags=["api"],
    responses={**contract.API_RESPONSES, **contract.COMPANY_RESPONSES},
)
def company_api(request: Request, slug: Slug) -> JSONResponse:
    """A company's open jobs (one page, newest first; the list's filters apply too), the
    sources they come from and their counts by country, work mode and month."""
    found = _read(request, slug)
    if found is None:
        return JSONResponse({"detail": "no such company"}, status_code=404)
    page, panel = found["page"], found["panel"]
    body = {
        "company": found["name"],
        "slug": slug,
        "jobs": panel.total,
        "stats": api.buckets_body(panel.groups, nonzero=True),
        "items": [{**item, "page": f"/jobs/{item['id']}"} for item in page.items],
        "next_cursor": page.next_cursor,
        "has_previous": page.has_previous,
        "previous_cursor": page.previous_cursor,
    }
    return json_response(body)
