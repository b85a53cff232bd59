"""The JSON API: the same queries as the pages, documented by FastAPI's OpenAPI."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse

from serving_sync import search, typeahead
from serving_sync.problems import problem
from serving_sync.search import InvalidParameter
from web import contract, navigation, present
from web.respond import cached_counts, json_response, raw_params

router = APIRouter(prefix="/api", tags=["api"], responses=contract.API_RESPONSES)
STATS_GROUPS = (*search.FACET_GROUPS, "month", *search.ENRICH_STATS_GROUPS)
_FILTERS = frozenset(search.filter_names())
_LIST_PARAMS = _FILTERS | {"sort", "group", "cursor", "limit"}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_REPEAT = "Repeat the parameter for OR; `unknown` selects postings without a value."
Values = Annotated[list[str] | None, Query(description=_REPEAT)]
GROUP_DOC = (
    "none (default): every matching posting (a duplicate listing's group once a page). "
    "company: at most 3 postings of each company, its first 3 in the list's order over the "
    "whole list (not per page; postings without a company are not grouped). Each item has "
    "more_at_company, set on the company's third listed posting when it has more matches "
    "(unset on every other item): {company, slug, count, url}, count being every further "
    "match of the company under the same filters and q (unset if it could not be counted "
    "in time), url its company page with them. Pages stay exact (every posting listed once "
    "or counted in its company's count); a page may list fewer than limit deep in a list "
    "that one company fills, and next_cursor then goes on from where it stopped."
)


def filter_parameters(
    q: Annotated[
        str | None,
        Query(
            description='Web-search syntax: words, "a phrase", OR, -exclude. At most 200 characters; the last word also matches as a prefix. A word of 5 letters or more that no posting has is corrected to the nearest one (see corrected_query) unless verbatim.'
        ),
    ] = None,
    verbatim: Annotated[
        bool | None,
        Query(description="true: search for q as typed, never corrected for typos."),
    ] = None,
    country: Annotated[
        list[str] | None, Query(description="ISO 3166 alpha-2 code. " + _REPEAT)
    ] = None,
    region: Values = None,
    city: Values = None,
    remote: Annotated[
        list[str] | None,
        Query(
            description="An alias of work_mode, kept for old clients: yes (remote), hybrid, "
            "no (onsite), unknown, or a work mode. " + _REPEAT
        ),
    ] = None,
    job_type: Values = None,
    employment_type: Annotated[
        list[str] | None,
        Query(
            description="full_time, part_time, contract, temporary, internship, volunteer, "
            "per_diem, other or unknown (any spelling is read as these). " + _REPEAT
        ),
    ] = None,
    source: Values = None,
    company: Values = None,
    posted_within_days: Annotated[
        int | None,
        Query(
            ge=1,
            le=search.MAX_DAYS,
            description="Posted (or, undated, first seen on a board read before) within "
            "this many days. Postings of unknown age are left out unless include_undated.",
        ),
    ] = None,
    include_undated: Annotated[
        bool | None,
        Query(
            description="With posted_within_days: also the undated postings of unknown age "
            '("listed since", found on their board\'s first read).'
        ),
    ] = None,
    has_salary: bool | None = None,
    salary_min: Annotated[float | None, Query(ge=0, description="Needs salary_currency.")] = None,
    salary_currency: Annotated[str | None, Query(description="ISO 4217 code, e.g. EUR.")] = None,
    skill: Annotated[
        list[str] | None,
        Query(description="A skill catalogue key (python, cpp, ...); repeat for up to 10."),
    ] = None,
    skill_match: Annotated[
        Literal["any", "all"] | None, Query(description="any (default) or all of the skills.")
    ] = None,
    skill_scope: Annotated[
        Literal["required", "all"] | None,
        Query(description="required (default): required skills only; all: required or preferred."),
    ] = None,
    experience_min: Annotated[
        list[str] | None,
        Query(
            description="Years as N, N-M or N+: postings whose experience range overlaps it. "
            + _REPEAT
        ),
    ] = None,
    seniority: Annotated[
        list[str] | None, Query(description="intern, junior, mid, senior, ... " + _REPEAT)
    ] = None,
    work_mode: Annotated[
        list[str] | None,
        Query(
            description="onsite, hybrid, remote or unknown: the posting's field, else its "
            "location, else its description. " + _REPEAT
        ),
    ] = None,
) -> None:
    """Declares the filters for the OpenAPI document and checks their types; the values
    themselves are read and validated by serving_sync.search from the raw query."""


def _check_names(raw: dict[str, list[str]], allowed: frozenset[str]) -> None:
    for name in raw:
        if name not in allowed:
            raise InvalidParameter(name, problem("unknown_parameter"))


@router.get("/jobs", dependencies=[Depends(filter_parameters)])
def list_jobs(
    request: Request,
    sort: Literal["newest", "relevance"] = "newest",
    group: Annotated[Literal["none", "company"], Query(description=GROUP_DOC)] = "none",
    cursor: Annotated[str | None, Query(description="next_cursor of the previous page")] = None,
    limit: Annotated[int, Query(ge=1, le=search.MAX_LIMIT)] = search.DEFAULT_LIMIT,
) -> JSONResponse:
    """One page of postings, newest first (or by relevance among the newest matches)."""
    raw = raw_params(request)
    _check_names(raw, _LIST_PARAMS)
    query = search.parse_request(raw)
    with request.app.state.pool.connection() as conn:
        page = search.search(conn, query)
    items = [_list_item(item, query, page.corrected_query) for item in page.items]
    body = {"items": items, "next_cursor": page.next_cursor}
    # The way back: has_previous with previous_cursor null is the first page (no cursor).
    body |= {"has_previous": page.has_previous, "previous_cursor": page.previous_cursor}
    # The query the items answer when q was corrected for typos (else null).
    body["corrected_query"] = page.corrected_query
    return json_response(body)


def _list_item(
    item: dict[str, Any], query: search.SearchRequest, corrected_q: str | None
) -> dict[str, Any]:
    body = {**item, "page": f"/jobs/{item['id']}"}
    more = item.get("more_at_company")
    if more is not None:
        body["more_at_company"] = {**more, "url": navigation.more_link(more, query, corrected_q)}
    return body


@router.get("/suggest")
def suggest(
    request: Request,
    q: Annotated[
        str,
        Query(
            max_length=typeahead.MAX_CHARS,
            description="What has been typed: suggestions start from 2 folded characters.",
            pattern=contract.CONTROL_PATTERN,
        ),
    ] = "",
) -> JSONResponse:
    """Up to 8 titles, companies, skills and places starting with `q` (at a word of
    them), each with its kind, how many published postings name it, and the filter
    parameter and link that select it. Fewer than 2 characters: none."""
    _check_names(raw_params(request), frozenset({"q"}))
    if _CONTROL.search(q):
        raise InvalidParameter("q", problem("control_characters"))
    with request.app.state.pool.connection() as conn:
        found = typeahead.suggest(conn, q)
    return json_response({"q": q, "suggestions": [present.suggestion_body(s) for s in found]})


@router.get("/stats", dependencies=[Depends(filter_parameters)])
def stats(request: Request) -> JSONResponse:
    """Distributions under the same filters (each group without its own filter), with
    denominators and coverage. A group past its time budget is null and listed in
    `unavailable`."""
    raw = raw_params(request)
    _check_names(raw, _FILTERS)
    filters = search.parse_filters(raw)
    settings = request.app.state.settings
    with request.app.state.pool.connection() as conn:
        found = cached_counts(request, conn, filters, STATS_GROUPS, settings.web_stats_top)
    return json_response(stats_body(found))


def stats_body(found: search.Counts) -> dict[str, Any]:
    groups = found.groups
    return {
        "total": found.total,
        "computed_at": found.computed_at,
        "facets": buckets_body(groups),
        "coverage": {g: None if c is None else c.coverage for g, c in groups.items()},
        "denominators": {g: None if c is None else c.denominator for g, c in groups.items()},
        "other": {g: None if c is None else c.other for g, c in groups.items()},
        "unavailable": [g for g, c in groups.items() if c is None],
        "enrichment": enrichment_summary(groups.get("enrichment")),
    }


def buckets_body(
    groups: Mapping[str, search.GroupCounts | None], *, nonzero: bool = False
) -> dict[str, list[dict[str, Any]] | None]:
    """Each group's buckets as {"value", "count"} (None: past its time budget); nonzero
    leaves out values no posting has (a panel's, not the facets' full list)."""
    return {
        g: None
        if c is None
        else [{"value": v, "count": n} for v, n in c.buckets if n or not nonzero]
        for g, c in groups.items()
    }


def enrichment_summary(found: search.GroupCounts | None) -> dict[str, Any] | None:
    """How many postings were extracted at all: a posting without a result is "not
    extracted", never "no requirements" (skill, experience and seniority read with it)."""
    if found is None:
        return None
    return {
        "denominator": found.denominator,
        "extracted": found.denominator - found.unknown,
        "not_extracted": found.unknown,
        "coverage": found.coverage,
    }


@router.get("/jobs/{job_id}", responses=contract.JOB_RESPONSES)
def get_job(request: Request, job_id: Annotated[int, Path(ge=0)]) -> JSONResponse:
    """One posting; 410 with its closing date if it closed recently; 404 otherwise."""
    if job_id >= 2**63:
        return JSONResponse({"detail": "no such job"}, status_code=404)
    with request.app.state.pool.connection() as conn:
        found = search.job(conn, job_id)
        closed = None if found else search.closed_job(conn, job_id)
    if found:
        return json_response(present.job_body(found))
    if closed:
        return json_response({"detail": "closed", **closed}, status=410)
    return JSONResponse({"detail": "no such job"}, status_code=404)
