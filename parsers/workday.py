"""Workday CXS: the search API (`POST /wday/cxs/{tenant}/{site}/jobs` with
`{"appliedFacets":{},"limit":20,"offset":N,"searchText":""}`) and the posting
detail (`GET /wday/cxs/{tenant}/{site}{externalPath}`).

API quirks: `limit` above 20 is refused; `total` comes with the first page only
(later pages say 0) and stops at 2,000 for big tenants, so a 2,000 is reported as
unknown and the adapter splits the search by facet; `locationsText` is often just
"N Locations" (the detail names them); `postedOn` is relative text ("Posted 30+
Days Ago" stays unknown); the detail's `startDate` is the posting date.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from typing import Any

from parsers import mappings
from parsers.entities import looks_like_legal_entity
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import (
    Context,
    Draft,
    JsonParser,
    descriptions,
    field_text,
    first_given,
    looks_like_html,
    place_text,
    posting_from,
    remote_rule_answer,
)
from parsers.registry import register
from parsers.text import clean_space, parse_posted
from parsers.types import ParseOutcome, Posting, RawDocument, RawOffice

PARSER_VERSION = "3"
TOTAL_CAP = 2000  # Workday stops counting here: a total of 2,000 means "2,000 or more"
PAGE_LIMIT = 20
_COUNTED = re.compile(r"^\s*(\d+)\s+Locations?\s*$", re.I)
_REQ_ID = re.compile(r"_([A-Za-z0-9-]*\d[A-Za-z0-9-]*)/?$")
# A data center's shared host, or a base whose last segment names it (the sandbox serves
# https://wd3.myworkdaysite.com under {base}/wd3.myworkdaysite.com).
_SHARED_HOST = re.compile(r"^https?://(?:[^/?#]+/)*wd\d+\.myworkdaysite\.com$", re.I)
# Workday names a reposted requisition's page after the requisition plus "-1", "-2"...
_REPOST_SUFFIX = re.compile(r"-\d+$")


@lru_cache(maxsize=256)  # once per listing page, not once per row
def site_base(url: str) -> tuple[str, str] | None:
    """(public site base, CXS site base) from a CXS URL, e.g. for
    https://nvidia.wd5.myworkdayjobs.com/wday/cxs/nvidia/Ext/jobs ->
    (https://nvidia.wd5.myworkdayjobs.com/Ext, https://nvidia.wd5.myworkdayjobs.com/wday/cxs/nvidia/Ext).

    Sites on the shared `wdN.myworkdaysite.com` hosts name the tenant in the public
    path: https://wd3.myworkdaysite.com/recruiting/{tenant}/{site}."""
    match = re.match(r"^(?P<prefix>.*?)/wday/cxs/(?P<tenant>[^/]+)/(?P<site>[^/?#]+)", url)
    if match is None:
        return None
    prefix, tenant, site = match.group("prefix", "tenant", "site")
    public = f"{prefix}/{site}"
    if _SHARED_HOST.match(prefix):
        public = f"{prefix}/recruiting/{tenant}/{site}"
    return public, f"{prefix}/wday/cxs/{tenant}/{site}"


def requisition_id(path: str | None) -> str | None:
    """The id at the end of an externalPath / externalUrl ("..._JR2021061")."""
    if not path:
        return None
    match = _REQ_ID.search(path.partition("?")[0])
    return match.group(1) if match else None


def listing_id(path: str | None, row: Mapping[str, Any]) -> str | None:
    """A row's id: the requisition id its page path ends with, without a repost suffix
    ("_R12345-1" -> "R12345") when the row's own requisition id (a `bulletFields` entry)
    shows the suffix is not part of it. Ids that contain a dash themselves ("R-1",
    "JR-0001234") stay whole: only the row can tell the two apart. The row's bullets
    are read only where they decide (most ids have no dash at all)."""
    from_path = requisition_id(path)
    if from_path is None:
        bullets = row_bullets(row)
        return (bullets[0] if bullets else None) or path
    if "-" not in from_path:
        return from_path
    stem = _REPOST_SUFFIX.sub("", from_path)
    if stem == from_path:
        return from_path
    bullets = row_bullets(row)
    return stem if stem in bullets and from_path not in bullets else from_path


def row_bullets(row: Mapping[str, Any]) -> list[str]:
    """A listing row's `bulletFields`, trimmed: where Workday shows its requisition id."""
    bullets = row.get("bulletFields") or ()
    return [b.strip() for b in bullets if isinstance(b, str) and b.strip()]


def superseded_id(row: Mapping[str, Any]) -> str | None:
    """The id parser 2 gave this listing row, when parser 3 gives it another: the page
    path's id whose repost suffix the row's own requisition id showed is not part of it
    ("_R12345-1" with bulletFields ["R12345"] -> "R12345-1"). None for any other row."""
    path = row.get("externalPath")
    from_path = requisition_id(path) if isinstance(path, str) else None
    if from_path is None or listing_id(path, row) == from_path:
        return None
    return from_path


@lru_cache(maxsize=4096)  # a board names the same few places on every row (frozen values)
def _office(text: str) -> RawOffice:
    return RawOffice(text)


def _listing_posting(
    row: dict[str, Any], payload: Mapping[str, Any], ctx: Context, page: Draft
) -> Posting:
    """A listing row's posting in one step, as the WORKDAY mapping's draft, the adapter
    and `finish` made it: the mapping's fields read by their keys (pinned by
    tests/parsers/test_workday_rows.py), the row's id, links and place, and the rest
    derived by `posting_from` as for every platform."""
    # In the order the draft, the adapter and `finish` read them: a row they refused
    # with an error is refused with the same one.
    remote = remote_rule_answer(row.get(_REMOTE.path), _REMOTE.values)
    path = row.get("externalPath")
    external_id = field_text(listing_id(path, row))
    bases = site_base(ctx.doc.url)
    if bases and isinstance(path, str):
        url, detail_url = clean_space(bases[0] + path), clean_space(bases[1] + path)
    else:
        url, detail_url = field_text(row.get("externalUrl")), None
    offices, more_offices = _row_places(row.get("locationsText"))
    company, legal_entity = _brand_or_entity(page.get("company"))
    description_html, description_text = descriptions(row.get("jobDescription"), None)
    return posting_from(
        external_id,
        url,
        field_text(row.get("title")),
        field_text(company),
        None,  # department
        place_text(row.get("locationsText")),
        offices,
        description_html,
        description_text,
        field_text(row.get("timeType")),
        first_given(row, _POSTED_KEYS),
        remote,
        None,  # salary
        None,  # apply URL: the posting's
        None,  # job type: from the title
        more_offices,
        detail_url,
        legal_entity,
        payload,
        ctx.doc.fetched_at,
    )


def _row_places(value: Any) -> tuple[tuple[RawOffice, ...], int]:
    """(offices, count of offices left unnamed) from a row's `locationsText`."""
    text = clean_space(value)
    # Trimmed, a count starts with its digits: a place name needs no match.
    counted = _COUNTED.match(text) if text and text[0].isdigit() else None
    if counted:
        return (), int(counted.group(1))  # the detail names them
    return ((_office(text),) if text else ()), 0


def _detail(draft: Draft, info: dict[str, Any], ctx: Context) -> None:
    draft["external_id"] = (
        clean_space(info.get("jobReqId"))
        or requisition_id(info.get("externalUrl"))
        or clean_space(info.get("jobPostingId"))
        or clean_space(info.get("id"))
    )
    names = [info.get("location"), *(info.get("additionalLocations") or ())]
    req_location = info.get("jobRequisitionLocation") or {}
    primary_country = ((req_location.get("country") or {}).get("alpha2Code")) or None
    offices: list[RawOffice] = []
    for index, name in enumerate(names):
        text = clean_space(name if isinstance(name, str) else (name or {}).get("descriptor"))
        if text and all(o.text != text for o in offices):
            country = (
                primary_country if index == 0 and req_location.get("descriptor") == text else None
            )
            offices.append(RawOffice(text, country=country))
    draft["offices"] = offices
    draft["location_text"] = "; ".join(o.text for o in offices) or None
    if info.get("startDate"):
        draft["posted_at"] = parse_posted(info["startDate"])
    if not draft.get("url"):
        bases = site_base(ctx.doc.url)
        draft["url"] = bases[0] + ctx.doc.url.split(bases[1], 1)[-1] if bases else ctx.doc.url


def _brand_or_entity(label: Any) -> tuple[Any, str | None]:
    """(company, legal entity) from `hiringOrganization.name`, Workday's company
    record, a legal entity. A label with an entity code or a legal form ("631 Example
    Corp_United States", "IL00 Subsidiary Technologies, Ltd.") is kept as the legal
    entity only; the company is then the board's public brand, which the pipeline
    takes from configuration."""
    if isinstance(label, str) and looks_like_legal_entity(label):
        return None, label
    return label, None


def _adapt(draft: Draft, item: dict[str, Any], ctx: Context) -> None:
    """A posting detail's draft (listing rows are built by `_listing_posting`)."""
    _detail(draft, item, ctx)
    company, legal_entity = _brand_or_entity(draft.get("company"))
    if legal_entity is not None:
        draft["legal_entity"] = legal_entity
        draft["company"] = company


def flatten_facets(facets: Any) -> list[dict[str, Any]]:
    """Workday nests facet groups (locationMainGroup -> locationHierarchy1): one
    entry per facet parameter with its values' ids and counts."""
    out: list[dict[str, Any]] = []

    def visit(facet: Any) -> None:
        if not isinstance(facet, dict):
            return
        values = facet.get("values") or []
        leaves = [v for v in values if isinstance(v, dict) and "id" in v]
        if leaves and facet.get("facetParameter"):
            out.append(
                {
                    "parameter": facet["facetParameter"],
                    "values": [
                        {"id": v["id"], "count": v.get("count"), "descriptor": v.get("descriptor")}
                        for v in leaves
                    ],
                }
            )
        for value in values:
            if isinstance(value, dict) and "facetParameter" in value:
                visit(value)

    for facet in facets or ():
        visit(facet)
    return out


def paging(data: Any, doc: RawDocument, count: int) -> tuple[str | None, dict[str, Any]]:
    """Workday pages by POST body, so there is no next URL: the adapter plans it from
    this page's count, the first page's total and the facets."""
    # Rows found without their envelope: no total or facets to plan the next page by.
    envelope: dict[str, Any] = data if isinstance(data, dict) else {}
    reported = envelope.get("total")
    return None, {
        "count": count,
        "reported_total": reported if isinstance(reported, int) else None,
        "facets": flatten_facets(envelope.get("facets")),
    }


def _workday_total(outcome: ParseOutcome) -> ParseOutcome:
    total = outcome.total
    # 2,000 is Workday's ceiling, and pages after the first say 0: neither is a count.
    if total is not None and (total >= TOTAL_CAP or (total == 0 and outcome.postings)):
        return replace(outcome, total=None)
    return outcome


# The mapping's fields a listing row reads beyond single keys: the posting date's keys
# and the work-mode rule.
_POSTED_KEYS: tuple[str, ...] = tuple(mappings.WORKDAY.fields["posted_at"])
(_REMOTE,) = mappings.WORKDAY.remote

_parser = JsonParser(
    mappings.WORKDAY, adapt=_adapt, paging=paging, page=None, listing_row=_listing_posting
)


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="workday", id_pattern=_REQ_ID.pattern)


@register("workday", PARSER_VERSION)
def parse_workday(doc: RawDocument) -> ParseOutcome:
    if looks_like_html(doc.body):
        return parse_page(doc)
    return _workday_total(_parser(doc))
