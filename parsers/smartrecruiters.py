"""SmartRecruiters: the public postings API (`/v1/companies/{company}/postings`,
offset/limit paging with `totalFound`) and the posting detail (`.../postings/{id}`)
whose `jobAd.sections` carry the description.

API quirks: list rows have no description, only a `ref` to the detail; latitude
and longitude are strings; `location.remote` / `location.hybrid` are booleans.
"""

from __future__ import annotations

import html as htmllib
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.types import ParseOutcome, RawDocument

PARSER_VERSION = "2"
PUBLIC_BASE = "https://jobs.smartrecruiters.com"
_SECTIONS = ("companyDescription", "jobDescription", "qualifications", "additionalInformation")


def job_ad_html(posting: dict[str, Any]) -> str | None:
    sections = ((posting.get("jobAd") or {}).get("sections")) or {}
    parts = []
    for key in (*_SECTIONS, *(k for k in sections if k not in _SECTIONS)):
        section = sections.get(key)
        if isinstance(section, dict) and isinstance(section.get("text"), str):
            title = section.get("title")
            heading = f"<h3>{htmllib.escape(str(title))}</h3>" if title else ""
            parts.append(heading + section["text"])
    return "\n".join(parts) or None


def _adapt(draft: Draft, posting: dict[str, Any], ctx: Context) -> None:
    draft["description_html"] = job_ad_html(posting)
    if not draft.get("url") and draft.get("external_id"):
        company = ((posting.get("company") or {}).get("identifier")) or _company_in(ctx.doc.url)
        if company:
            draft["url"] = f"{PUBLIC_BASE}/{company}/{draft['external_id']}"
    if ctx.single and not draft.get("detail_url"):
        draft["detail_url"] = ctx.doc.url


def _company_in(url: str) -> str | None:
    parts = urlsplit(url).path.split("/")
    return parts[parts.index("companies") + 1] if "companies" in parts[:-1] else None


def next_page(data: Any, doc: RawDocument, count: int) -> tuple[str | None, dict[str, Any]]:
    """The next offset's URL while `offset + count < totalFound`."""
    # Rows found without their envelope: no offset, limit or count to page by.
    envelope: Any = data if isinstance(data, dict) else {}
    offset, limit, total = (envelope.get(k) for k in ("offset", "limit", "totalFound"))
    if not all(isinstance(v, int) for v in (offset, limit, total)) or count == 0:
        return None, {}
    following = offset + count
    if following >= total:
        return None, {"offset": offset, "limit": limit, "total": total}
    parts = urlsplit(doc.url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    query.update(offset=str(following), limit=str(limit))
    url = urlunsplit(parts._replace(query=urlencode(query)))
    return url, {"offset": offset, "limit": limit, "total": total}


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(
        doc, platform="smartrecruiters", id_pattern=r"smartrecruiters\.com/[^/]+/(\d+)"
    )


parse_smartrecruiters = register("smartrecruiters", PARSER_VERSION)(
    JsonParser(mappings.SMARTRECRUITERS, adapt=_adapt, page=parse_page, paging=next_page)
)
