"""Recruitee: the careers API (`https://{company}.recruitee.com/api/offers/`, and
`/api/offers/{slug}` for one offer).

API quirks: `salary.min` / `salary.max` are strings; timestamps read
"2026-09-18 12:55:59 UTC"; `careers_url` may be on the company's own domain;
`hybrid` / `remote` / `on_site` are separate booleans.
"""

from __future__ import annotations

from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import Context, Draft, JsonParser
from parsers.registry import register
from parsers.text import clean_space, parse_number
from parsers.types import ParseOutcome, RawDocument, Salary

PARSER_VERSION = "2"
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
