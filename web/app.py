"""The web app: HTML pages and the JSON API over the same queries (serving_sync.search).

Every data route reads through the read-only web role's pool. Bad input is a 422 that
names the parameter; an unreachable database is a 503 "search unavailable", never an
empty result.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler, request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from serving_sync.problems import Problem, problem
from serving_sync.search import InvalidParameter
from web import (
    api,
    companies,
    contract,
    discovery,
    guard,
    i18n,
    navigation,
    pages,
    present,
)
from web.cache import CountsCache
from web.db import ReaderPool, Unavailable
from web.ratelimit import RateLimiter
from web.respond import raw_params, render
from web.settings import WebSettings

HERE = Path(__file__).parent
# Routes that read no data: never rate limited.
_UNLIMITED = ("/healthz", "/static/", "/docs", "/openapi.json", "/robots.txt", "/favicon.ico")
# Swagger UI's script and styles, as fastapi-swagger bundles them (served from here).
SWAGGER_ASSETS = resources.files("fastapi_swagger") / "resources"
SUGGEST_PATH = "/api/suggest"


def templates() -> Jinja2Templates:
    found = Jinja2Templates(directory=HERE / "templates")
    env = found.env
    # Built once: gettext and ngettext read the request's language (web.i18n) themselves.
    env.add_extension("jinja2.ext.i18n")
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_callables(i18n.escaped_gettext, i18n.escaped_ngettext, newstyle=True)  # type: ignore[attr-defined]
    env.globals.update(
        group_label=present.group_label,
        value_label=present.value_label,
        query_string=present.query_string,
        with_value=present.with_value,
        page_link=present.page_link,
        text_language=present.text_language,
        spelling_links=present.spelling_links,
        safe_url=present.safe_url,
        number=present.number,
        moment_utc=i18n.moment_utc,
        percent=present.percent,
        posted_text=present.posted_text,
        date_shown=present.date_shown,
        salary_text=present.salary_text,
        salary_year_text=present.salary_year_text,
        salary_converted_text=present.salary_converted_text,
        day=present.day,
        param_name=present.param_name,
        field_label=present.field_label,
        extracted_value=present.extracted_value,
        work_mode_source=present.work_mode_source,
        problem_text=navigation.problem_text,
        here=i18n.localized,
        link_pairs=i18n.link_pairs,
        enriched_fields=present.ENRICHED_FIELDS,
        company_note=present.company_note,
        legal_entity_text=present.legal_entity_text,
        enrichment_body=present.enrichment_body,
        description_view=present.description_view,
        snippet_pieces=present.snippet_pieces,
        job_link=present.job_link,
        feed_url=navigation.feed_url,
        more_link=navigation.more_link,
        company_link=companies.company_link,
        elsewhere_text=present.elsewhere_text,
        excerpt_in_context=present.excerpt_in_context,
    )
    return found


def create_app(reader_url: str, settings: WebSettings | None = None) -> FastAPI:
    settings = settings or WebSettings()
    pool = ReaderPool(
        reader_url, size=settings.web_pool_size, timeout_s=settings.web_pool_timeout_s
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        pool.open()
        try:
            yield
        finally:
            pool.close()

    app = FastAPI(
        title="jobharbor",
        summary="Search open job postings: the same queries as the web pages.",
        lifespan=lifespan,
        docs_url=None,  # web.pages.api_docs: the same Swagger UI from bundled assets
        redoc_url=None,
    )
    app.state.pool = pool
    app.state.settings = settings
    app.state.limiter = RateLimiter(settings.web_rate_limit_per_minute)
    app.state.suggest_limiter = RateLimiter(settings.web_suggest_rate_limit_per_minute)
    app.state.counts_cache = CountsCache(settings.web_counts_cache_s)
    app.state.templates = templates()
    app.mount("/static/swagger", StaticFiles(directory=str(SWAGGER_ASSETS)), name="swagger")
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    _install_middleware(app)
    guard.install(app)
    _install_errors(app)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(discovery.router)
    app.include_router(companies.router)
    contract.install(app)
    return app


def _install_middleware(app: FastAPI) -> None:
    @app.middleware("http")
    async def limit_and_vary(request: Request, call_next: Any) -> Response:
        path = request.url.path
        refused = _choose_language(request)
        if not path.startswith(_UNLIMITED):
            client = request.client.host if request.client else "?"
            limiter = app.state.suggest_limiter if path == SUGGEST_PATH else app.state.limiter
            wait = limiter.allow(client)
            if wait is not None:
                return _too_many(request, int(wait) + 1)
        if refused is not None:
            response = _bad_lang(request, refused)
            response.headers.update(guard.security_headers())
            return response
        response = await call_next(request)
        response.headers.update(guard.security_headers())
        if response.headers.get("content-type", "").startswith("text/html"):
            # The same URL answers htmx with a fragment and browsers with a page, and,
            # unless the URL names the language, in the one the cookie or browser asks.
            vary = ["HX-Request"]
            if not i18n.current().from_url:
                vary += ["Accept-Language", "Cookie"]
            response.headers["Vary"] = ", ".join(vary)
        choice = i18n.current()
        if choice.from_url and not is_api(request):
            # The switch sticks: later pages without `lang` come in the same language.
            response.set_cookie(
                i18n.COOKIE,
                choice.locale,
                max_age=i18n.COOKIE_MAX_AGE_S,
                path="/",
                samesite="lax",
                httponly=True,
            )
        return response


def _choose_language(request: Request) -> Problem | None:
    """Sets the request's language (web.i18n); the problem when a page's `lang` is
    refused. The API has no language: it answers in English whatever the header or the
    cookie ask, and refuses `lang` as it refuses any parameter it does not have."""
    if is_api(request):
        i18n.activate(i18n.Choice())
        return None
    cookie = request.cookies.get(i18n.COOKIE)
    accept = request.headers.get("accept-language")
    try:
        i18n.activate(i18n.choose(raw_params(request), cookie, accept))
    except i18n.InvalidLang as exc:
        # The refusal itself in the language the visitor would have had.
        i18n.activate(i18n.choose({}, cookie, accept))
        return None if request.url.path.startswith(_UNLIMITED) else exc.refusal
    return None


def _bad_lang(request: Request, refusal: Problem) -> Response:
    return _refused_page(request, InvalidParameter(i18n.PARAM, refusal))


def _too_many(request: Request, wait_s: int) -> Response:
    """429, as text for the API and as a page for a browser."""
    headers = {"Retry-After": str(wait_s), **guard.security_headers()}
    if is_api(request):
        body = {"detail": "Too many requests: slow down a little.", "retry_after_s": wait_s}
        return JSONResponse(body, status_code=429, headers=headers)
    context = {"title": i18n.gettext("Too many requests"), "wait": wait_s}
    response = render(request, "too_many.html", context, 429)
    response.headers.update(headers)
    return response


def _refused_page(request: Request, exc: InvalidParameter) -> Response:
    """The 422 page: what was refused, and a form to send the request again fixed."""
    form = navigation.fix_form(raw_params(request), exc.param)
    context = {
        "title": i18n.gettext("Invalid request"),
        "error": exc,
        "kept": form.kept,
        "fields": form.fields,
        "action": request.url.path,
    }
    return render(request, "error.html", context, 422)


def is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _install_errors(app: FastAPI) -> None:
    @app.exception_handler(InvalidParameter)
    async def invalid(request: Request, exc: InvalidParameter) -> Response:
        if is_api(request):
            detail = [{"loc": ["query", exc.param], "msg": exc.problem, "type": "value_error"}]
            return JSONResponse({"detail": detail}, status_code=422)
        return _refused_page(request, exc)

    @app.exception_handler(RequestValidationError)
    async def invalid_path(request: Request, exc: RequestValidationError) -> Response:
        if is_api(request) or request.url.path.startswith(_UNLIMITED):
            return await request_validation_exception_handler(request, exc)
        where = exc.errors()[0]["loc"] if exc.errors() else ("path",)
        refused = InvalidParameter(str(where[-1]), problem("not_valid_here"))
        context = {"title": i18n.gettext("Invalid request"), "error": refused}
        return render(request, "error.html", context, 422)

    @app.exception_handler(StarletteHTTPException)
    async def not_found(request: Request, exc: StarletteHTTPException) -> Response:
        if is_api(request) or exc.status_code != 404:
            return await http_exception_handler(request, exc)
        context = {"title": i18n.gettext("Page not found"), "page": True}
        return render(request, "not_found.html", context, 404)

    @app.exception_handler(Unavailable)
    async def unavailable(request: Request, exc: Unavailable) -> Response:
        if is_api(request):
            return JSONResponse({"detail": "search unavailable"}, status_code=503)
        context = {"title": i18n.gettext("Search unavailable"), "unavailable": True}
        return render(request, "unavailable.html", context, 503)
