"""The right question per platform: where a posting's direct check asks, and which
platform-specific answers are the platform's own "this posting is closed".

Pure: a posting row (as the check phase reads it) in, a URL out; a response in, a
flag out. Every URL derives from the board's listing URL, which derives from the
source's configured `api_base`; never from a public host written here. The facts
behind each choice (and which answers are conclusive) are in docs/lifecycle.md.

Fields used: `external_id`, `url` (the posting's public page), `detail_url`,
`board_key` and `board_url` (the board's first listing page).
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from pipeline.db.rows import DueCheck


def _without_query(url: str) -> str:
    return urlunsplit(urlsplit(url)._replace(query="", fragment="")).rstrip("/")


def _quoted(value: object) -> str:
    return quote(str(value), safe="")


def greenhouse_check_url(row: DueCheck) -> str:
    """boards-api `/v1/boards/{token}/jobs/{id}`: the posting's own API record."""
    return f"{_without_query(row.board_url)}/{_quoted(row.external_id)}"


def lever_check_url(row: DueCheck) -> str:
    """`/v0/postings/{site}/{id}` on the API host the board is read from (global or EU)."""
    return f"{_without_query(row.board_url)}/{_quoted(row.external_id)}"


def smartrecruiters_check_url(row: DueCheck) -> str:
    """`/v1/companies/{company}/postings/{id}`: the posting detail of the public API."""
    return f"{_without_query(row.board_url)}/{_quoted(row.external_id)}"


# The widget API (v1) and the careers-page API (v3) share the v2 per-job record.
_WORKABLE_WIDGET = re.compile(r"^(?P<base>.*?)/api/(?:v1/widget|v3)/accounts/(?P<account>[^/?#]+)")


def workable_check_url(row: DueCheck) -> str | None:
    """`/api/v2/accounts/{account}/jobs/{shortcode}` on the host of the widget API: the
    record apply.workable.com's own job page loads (its page is a client-side app
    that answers 200 for any shortcode, so the page itself proves nothing)."""
    match = _WORKABLE_WIDGET.match(str(row.board_url))
    if match is None:
        return None
    return f"{match['base']}/api/v2/accounts/{match['account']}/jobs/{_quoted(row.external_id)}"


_BAMBOO_LIST = re.compile(r"^(?P<base>.*?/careers)/list/?(?:\?.*)?$")


def bamboohr_check_url(row: DueCheck) -> str | None:
    """`/careers/{id}/detail`: the JSON the careers page loads (the page `/careers/{id}`
    is a client-side app, answered the same way for any id)."""
    match = _BAMBOO_LIST.match(str(row.board_url))
    if match is None:
        return None
    return f"{match['base']}/{_quoted(row.external_id)}/detail"


_RECRUITEE_SLUG = re.compile(r"/o/(?P<slug>[^/?#]+)")


def recruitee_check_url(row: DueCheck) -> str:
    """`/api/offers/{slug}` (the offer's slug is in its careers URL `/o/{slug}`; the
    numeric id when the URL has none)."""
    match = _RECRUITEE_SLUG.search(row.url or "")
    key = match["slug"] if match else str(row.external_id)
    return f"{_without_query(row.board_url)}/{_quoted(key)}"


# ---- platform-specific closed answers (each None unless the platform itself says so)


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def smartrecruiters_closed_flag(status: int | None, body: bytes) -> str | None:
    """The posting detail says `"active": false`: the platform's own closed state."""
    if status != 200:
        return None
    data = _json(body)
    if isinstance(data, dict) and data.get("active") is False:
        return "active_false"
    return None


_ASHBY_NOT_FOUND = re.compile(rb"the job you have requested was not found", re.I)
_JSONLD = re.compile(rb"application/ld\+json", re.I)


def ashby_closed_flag(status: int | None, body: bytes) -> str | None:
    """Ashby's hosted page answers a removed job with 200 and "The job you have
    requested was not found" (a soft-404). Only a page without any JobPosting
    JSON-LD counts: a live page always embeds one."""
    if status != 200 or _JSONLD.search(body):
        return None
    return "job_not_found" if _ASHBY_NOT_FOUND.search(body) else None
