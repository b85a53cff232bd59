"""Recruitee: the careers API (`https://{company}.recruitee.com/api/offers/`, and
`/api/offers/{slug}` for one offer).

API quirks: `salary.min` / `salary.max` are strings; timestamps read
"2026-09-18 12:55:59 UTC"; `careers_url` may be on the company's own domain;
`hybrid` / `remote` / `on_site` are separate booleans. An offer may name its place
only in `city` / `state_name` / `country`, without `location` or `locations[]`;
`city` then sometimes repeats the country ("Germany", "Germany").
"""

from __future__ import annotations

from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.text import clean_space, parse_number
from parsers.types import ParseOutcome, RawDocument, RawOffice, Salary

PARSER_VERSION = "3"
_FLAGS = ("hybrid", "remote", "on_site")
_PERIODS = {"year": "year", "month": "month", "week": "week", "day": "day", "hour": "hour"}


def _amount(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return parse_number(value) if isinstance(value, str) else None


def salary(offer: dict[str, Any]) -> Salary | None:
    data = offer.get("salary")
    if not isinstance(data, dict):
        return None
    low, high = _amount(data.get("min")), _amount(data.get("max"))
    if low is None and high is None:
        return None
    currency = clean_space(str(data.get("currency") or "")) or None
    period = _PERIODS.get(str(data.get("period") or "").lower())
    raw = f"{data.get('min') or ''}-{data.get('max') or ''} {currency or ''} per {period or '?'}"
    return Salary(raw=raw, min=low, max=high, currency=currency, period=period)


def _adapt(draft: Draft, offer: dict[str, Any], ctx: Context) -> None:
    parts = [offer.get(k) for k in ("description", "requirements")]
    draft["description_html"] = (
        "\n".join(p for p in parts if isinstance(p, str) and p.strip()) or None
    )
    draft["salary"] = salary(offer)
    draft["remote"] = work_mode(offer) or draft.get("remote")
    if not draft.get("location_text") and not draft.get("offices"):
        office = place_fields(offer)
        if office is not None:
            draft["location_text"], draft["offices"] = office.text, [office]


def place_fields(offer: dict[str, Any]) -> RawOffice | None:
    """The offer's own `city`, `state_name` and `country`, for an offer that names its
    place nowhere else; a part repeating the one before it is written once."""
    parts = [offer.get(k) for k in ("city", "state_name", "country")]
    city, region, country = (clean_space(p) if isinstance(p, str) else None for p in parts)
    written: list[str] = []
    for part in (city, region, country):
        if part and (not written or written[-1].casefold() != part.casefold()):
            written.append(part)
    return RawOffice(", ".join(written), city, region, country) if written else None


def work_mode(offer: dict[str, Any]) -> str | None:
    """Recruitee's three flags: `hybrid`; `remote` with `on_site` (either way) is
    hybrid too; `remote` alone is remote; `on_site` alone says nothing about remote
    work: like no flag at all, the location text may still say "Hybrid" (None)."""
    hybrid, remote, on_site = (offer.get(k) in (True, "true") for k in _FLAGS)
    if hybrid or (remote and on_site):
        return "hybrid"
    if remote:
        return "yes"
    return None


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="recruitee", id_pattern=r"/o/([^/?#]+)")


parse_recruitee = register("recruitee", PARSER_VERSION)(
    JsonParser(mappings.RECRUITEE, adapt=_adapt, page=parse_page)
)
