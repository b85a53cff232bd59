"""What a search engine and a link preview read from a job page: schema.org JobPosting
as JSON-LD (Google for Jobs' required and recommended properties, from what was
published: nothing is invented), and the page's description for meta and OpenGraph."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from typing import Any

import pycountry
from markupsafe import Markup

# serving's employment types -> schema.org's (Google's list).
EMPLOYMENT_TYPES = {
    "full_time": "FULL_TIME",
    "part_time": "PART_TIME",
    "contract": "CONTRACTOR",
    "temporary": "TEMPORARY",
    "internship": "INTERN",
    "volunteer": "VOLUNTEER",
    "per_diem": "PER_DIEM",
    "other": "OTHER",
}
# serving's salary periods -> QuantitativeValue.unitText.
SALARY_UNITS = {"hour": "HOUR", "day": "DAY", "week": "WEEK", "month": "MONTH", "year": "YEAR"}
DESCRIPTION_META_CHARS = 160


def job_posting(job: dict[str, Any], page_url: str) -> dict[str, Any] | None:
    """A JobPosting for an open posting as published, or None when its employer is not
    known (Google requires hiringOrganization: an invalid item helps no one). datePosted
    is the stated date, else the day it was first seen (the page says which);
    validThrough is left out, as the sources state no closing date that is kept."""
    if not job.get("company"):
        return None
    posted = job.get("posted_at") or job.get("first_seen_at")
    found: dict[str, Any] = {
        "@context": "https://schema.org/",
        "@type": "JobPosting",
        "title": job["title"],
        "description": _description_html(job.get("description") or job["title"]),
        "identifier": {
            "@type": "PropertyValue",
            "name": job["source"],
            "value": job["external_id"],
        },
        "url": page_url,
        "directApply": False,
    }
    if isinstance(posted, datetime):
        found["datePosted"] = posted.date().isoformat()
    found["hiringOrganization"] = {"@type": "Organization", "name": job["company"]}
    found.update(_where(job))
    kinds = [EMPLOYMENT_TYPES[t] for t in job.get("employment_type") or () if t in EMPLOYMENT_TYPES]
    if kinds:
        found["employmentType"] = kinds if len(kinds) > 1 else kinds[0]
    salary = _base_salary(job)
    if salary:
        found["baseSalary"] = salary
    return found


def _description_html(text: str) -> str:
    """Google reads the description as HTML: the plain text, escaped, its paragraphs kept."""
    paragraphs = [p.strip() for p in text.split("\n\n") if p.strip()]
    return "".join(f"<p>{Markup.escape(p)}</p>".replace("\n", "<br>") for p in paragraphs)


def _where(job: dict[str, Any]) -> dict[str, Any]:
    """jobLocation for places of work; a remote posting is TELECOMMUTE, open to the
    countries it names (applicantLocationRequirements)."""
    countries = list(job.get("countries") or ())
    if job.get("work_mode") == "remote":
        found: dict[str, Any] = {"jobLocationType": "TELECOMMUTE"}
        if countries:
            found["applicantLocationRequirements"] = [
                {"@type": "Country", "name": _country_name(c)} for c in countries
            ]
        return found
    places = []
    cities = list(job.get("cities") or ())
    regions = list(job.get("regions") or ())
    for index, city in enumerate(cities or [None]):
        address: dict[str, Any] = {"@type": "PostalAddress"}
        if city:
            address["addressLocality"] = city
        if index < len(regions):
            address["addressRegion"] = regions[index]
        if len(countries) == 1 or index < len(countries):
            address["addressCountry"] = countries[min(index, len(countries) - 1)]
        if len(address) > 1:
            places.append({"@type": "Place", "address": address})
    if not places:
        return {}
    return {"jobLocation": places if len(places) > 1 else places[0]}


def _country_name(code: str) -> str:
    country = pycountry.countries.get(alpha_2=code)
    return country.name if country else code


def _base_salary(job: dict[str, Any]) -> dict[str, Any] | None:
    low, high = job.get("salary_min"), job.get("salary_max")
    unit = SALARY_UNITS.get(job.get("salary_period") or "")
    currency = job.get("salary_currency")
    if (low is None and high is None) or unit is None or not currency:
        return None  # a figure without its currency or period cannot be compared
    value: dict[str, Any] = {"@type": "QuantitativeValue", "unitText": unit}
    if low is not None and high is not None and low != high:
        value.update(minValue=_number(low), maxValue=_number(high))
    else:
        value["value"] = _number(low if low is not None else high)
    return {"@type": "MonetaryAmount", "currency": currency, "value": value}


def _number(amount: Decimal) -> int | float:
    return int(amount) if amount == int(amount) else float(amount)


def json_ld(data: dict[str, Any]) -> Markup:
    """JSON for a <script type="application/ld+json"> block: <, > and & as \\u escapes,
    so no text of a posting can close the element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)  # safe inside the script element: nothing above can close it


def meta_description(job: dict[str, Any]) -> str:
    """About 160 characters for search results and link previews: who, where, then the
    description's start, cut at a word."""
    lead = " · ".join(p for p in (job.get("company"), job.get("location_text")) if p)
    body = " ".join((job.get("description") or "").split())
    text = f"{lead}. {body}" if lead and body else lead or body or job["title"]
    if len(text) <= DESCRIPTION_META_CHARS:
        return text
    return text[: DESCRIPTION_META_CHARS - 1].rsplit(" ", 1)[0] + "…"
