"""Oracle Recruiting Cloud: the Candidate Experience REST API of an HCM pod
(`https://{pod}.fa.{region}.oraclecloud.com`, or the employer's own domain).

Listing: `GET /hcmRestApi/resources/latest/recruitingCEJobRequisitions?onlyData=true
&expand=requisitionList.secondaryLocations&finder=findReqs;siteNumber={site},limit=N,
offset=M,sortBy=POSTING_DATES_DESC`. Rows nest one level deeper than most APIs
(`items[0].requisitionList`) and `items[0].TotalJobsCount` is the board's count, not
the page's. Rows have `Id`, `Title`, `PostedDate`, `PrimaryLocation`,
`PrimaryLocationCountry`, `secondaryLocations[]` (`Name`, `CountryCode`),
`WorkplaceType` / `WorkplaceTypeCode`, and only a teaser (`ShortDescriptionStr`).

Detail: `recruitingCEJobRequisitionDetails?expand=all&onlyData=true&finder=ById;
Id="{id}",siteNumber={site}` (plural: the singular spelling answers an empty 404);
the advert is split over `ExternalDescriptionStr`, `ExternalResponsibilitiesStr` and
`ExternalQualificationsStr`, which tenants fill differently (sometimes all three with
the same text, so repeats are dropped). A requisition no longer posted on the site
answers `items: []`: the platform's own "no such posting". The public page
`/hcmUI/CandidateExperience/en/sites/{site}/job/{id}` is a JavaScript shell.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit, urlunsplit

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser, looks_like_html
from parsers.jsonutil import load_json
from parsers.registry import register
from parsers.types import Issue, PageSignal, ParseOutcome, RawDocument

PARSER_VERSION = "1"
_ORIGIN = re.compile(r"^(?P<origin>https?://.+?)/hcmRestApi/resources/[^/]+/(?P<resource>\w+)")
_SITE = re.compile(r"siteNumber=([^,;&]+)")
_SECTIONS = ("ExternalDescriptionStr", "ExternalResponsibilitiesStr", "ExternalQualificationsStr")
_WORKPLACE = (("REMOTE", "yes"), ("HYBRID", "hybrid"))


@lru_cache(maxsize=256)  # once per listing page, not once per row
def site_of(url: str) -> tuple[str, str, str] | None:
    """(origin, resource, siteNumber) of an API URL, or None."""
    match = _ORIGIN.match(url)
    site = _SITE.search(unquote(url))
    if match is None or site is None:
        return None
    return match.group("origin"), match.group("resource"), site.group(1)


def public_url(origin: str, site: str, req_id: str) -> str:
    return f"{origin}/hcmUI/CandidateExperience/en/sites/{site}/job/{req_id}"


def detail_url(origin: str, site: str, req_id: str) -> str:
    finder = f"ById;Id=%22{req_id}%22,siteNumber={site}"
    return (
        f"{origin}/hcmRestApi/resources/latest/recruitingCEJobRequisitionDetails"
        f"?expand=all&onlyData=true&finder={finder}"
    )


def description_html(requisition: dict[str, Any]) -> str | None:
    parts: list[str] = []
    for key in _SECTIONS:
        value = requisition.get(key)
        if isinstance(value, str) and value.strip() and value.strip() not in parts:
            parts.append(value.strip())
    return "\n".join(parts) or None


def work_mode(requisition: dict[str, Any]) -> str | None:
    said = f"{requisition.get('WorkplaceTypeCode') or ''} {requisition.get('WorkplaceType') or ''}"
    said = said.upper().replace("-", "_")
    return next((mode for word, mode in _WORKPLACE if word in said), None)


def _adapt(draft: Draft, requisition: dict[str, Any], ctx: Context) -> None:
    found = site_of(ctx.doc.url)
    req_id = draft.get("external_id")
    if found and req_id is not None:
        origin, _, site = found
        draft["url"] = public_url(origin, site, str(req_id))
        if not ctx.single:
            draft["detail_url"] = detail_url(origin, site, str(req_id))
    draft["remote"] = work_mode(requisition) or draft.get("remote")
    if ctx.single:
        draft["description_html"] = description_html(requisition)


def next_page(data: Any, doc: RawDocument, count: int) -> tuple[str | None, dict[str, Any]]:
    """The same search at the next offset while offset + rows < TotalJobsCount."""
    search = data["items"][0] if isinstance(data, dict) and data.get("items") else {}
    total = search.get("TotalJobsCount") if isinstance(search, dict) else None
    parts = urlsplit(doc.url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    finder = query.get("finder", "")
    offset = re.search(r"(?:^|[;,])offset=(\d+)", finder)
    start = int(offset.group(1)) if offset else 0
    if not isinstance(total, int) or count == 0 or start + count >= total:
        return None, {"count": count}
    following = start + count
    if offset:
        finder = finder[: offset.start(1)] + str(following) + finder[offset.end(1) :]
    else:
        finder += f",offset={following}"
    query["finder"] = finder
    url = urlunsplit(parts._replace(query=urlencode(query, safe=';,="')))
    return url, {"count": count}


def parse_page(doc: RawDocument) -> ParseOutcome:
    """The public page is a JavaScript shell: only its signal (a bot wall, a closed
    banner) can be read from it, never the posting."""
    return parse_hosted_page(doc, platform="oracle", id_pattern=r"/job/([^/?#]+)")


_json = JsonParser(mappings.ORACLE, adapt=_adapt, paging=next_page, page=parse_page)


@register("oracle", PARSER_VERSION)
def parse_oracle(doc: RawDocument) -> ParseOutcome:
    """A ById detail answering `items: []` is the platform saying the posting is gone."""
    if doc.body.strip() and not looks_like_html(doc.body) and "RequisitionDetails" in doc.url:
        data, rejection = load_json(doc)
        if rejection is None and isinstance(data, dict) and data.get("items") == []:
            return ParseOutcome.rejected(
                Issue("not_found", "the site has no posted requisition with this id"),
                signal=PageSignal.NOT_FOUND,
            )
    return _json(doc)
