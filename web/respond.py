"""What the pages and the API share to answer a request: rendering a template, a JSON
body, the query parameters with their repeats, and the short-lived counts cache.

They live apart from the app factory (web.app) so the routers import them, and the
factory imports the routers, without a cycle."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse, Response

from serving_sync import search
from web import i18n


def render(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    context = {**context, "ui": ui_context(request)}
    return request.app.state.templates.TemplateResponse(request, name, context, status_code=status)


def ui_context(request: Request) -> dict[str, Any]:
    """The page's language (for <html lang>), the switch to the other one (this very
    address with `lang` set, a plain link), and the page in every language as absolute
    addresses for its hreflang links (web.i18n.alternates)."""
    here = i18n.locale()
    switches = [
        {"lang": other, "name": i18n.NAMES[other], "url": _switch(request, other)}
        for other in i18n.LOCALES
        if other != here
    ]
    base = str(request.base_url).rstrip("/")
    alternates = [
        {"hreflang": hreflang, "url": base + address}
        for hreflang, address in i18n.alternates(request.url.path, request.url.query)
    ]
    return {"lang": here, "switches": switches, "alternates": alternates}


def _switch(request: Request, target: str) -> str:
    # An htmx fragment's URL is the page's own: the switch leads to the whole page.
    return i18n.switch_url(request.url.path, request.url.query, target)


def json_response(body: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(jsonable_encoder(body), status_code=status)


def cached_counts(
    request: Request, conn: Any, filters: search.Filters, groups: tuple[str, ...], top_n: int
) -> search.Counts:
    """Facet or stats counts, reused for the same filters for a few seconds."""
    settings = request.app.state.settings
    return request.app.state.counts_cache.get_or_compute(
        (filters, groups, top_n),
        lambda: search.counts(
            conn, filters, groups, budget_ms=settings.web_facet_budget_ms, top_n=top_n
        ),
    )


def raw_params(request: Request) -> dict[str, list[str]]:
    """Query parameters, each name with every value given (repeats mean OR)."""
    found: dict[str, list[str]] = {}
    for key, value in request.query_params.multi_items():
        found.setdefault(key, []).append(value)
    return found
