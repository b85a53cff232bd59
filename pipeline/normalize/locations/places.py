"""Each place once, named once: deduplicating a posting's offices, and their one label.

A place is its GeoNames id; an office without one (a region GeoNames' admin1 codes do
not tie) is its names. Two offices are one place when they share the id, or when they
read the same once spelling is set aside ("Ha Noi" and "Hanoi", "Ile-de-France" and
"Île-de-France"): a label is what a reader sees, so two ids under one label are one
place to them too. Pure: the stored JSON of an office works as well as an `Office`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from .model import Office
from .text import spelling_key

OfficeLike = Office | Mapping[str, Any]


def _office(office: OfficeLike) -> Office:
    return office if isinstance(office, Office) else Office.from_dict(office)


def label_parts(office: OfficeLike, country_name: str | None = None) -> tuple[str, ...]:
    """City, region, country, each shown once: a part spelled like the one before it
    adds nothing ("Hanoi, Hanoi" is Hanoi; Singapore is one word, not three)."""
    o = _office(office)
    parts: list[str] = []
    for part in (o.city, o.region, country_name or o.country):
        if part and (not parts or spelling_key(part) != spelling_key(parts[-1])):
            parts.append(part)
    return tuple(parts)


def office_label(office: OfficeLike, country_name: str | None = None) -> str:
    """ "City, Region, Country" ("Paris, Île-de-France, France"; "Hanoi, Viet Nam"). The
    country is `country_name` when given, else its ISO code."""
    return ", ".join(label_parts(office, country_name))


def _name_key(office: Office) -> tuple[str, ...]:
    # By country code, not name: the label's country part is the same either way.
    return tuple(spelling_key(p) for p in label_parts(office))


def dedupe_offices(offices: Iterable[OfficeLike]) -> tuple[Office, ...]:
    """The offices in their order, each place once (the first office of a place stays
    where it is; it is ambiguous only if every office of that place was)."""
    kept: list[Office] = []
    at_id: dict[int, int] = {}
    at_name: dict[tuple[str, ...], int] = {}
    for office in map(_office, offices):
        name = _name_key(office)
        place = at_id.get(office.geonameid) if office.geonameid is not None else None
        if place is None:
            place = at_name.get(name)
        if place is None:
            place = len(kept)
            kept.append(office)
        elif kept[place].ambiguous and not office.ambiguous:
            kept[place] = replace(kept[place], ambiguous=False)
        if office.geonameid is not None:
            at_id.setdefault(office.geonameid, place)
        at_name.setdefault(name, place)
    return tuple(kept)


def place_duplicates(offices: Iterable[OfficeLike]) -> int:
    """How many of one posting's offices repeat a place listed before them: the same
    GeoNames id again, or a label already shown under another id (or none). Zero for
    offices that went through `dedupe_offices`; the quality report's `place_duplicates`
    is this summed over published postings (their `offices`, as stored)."""
    listed = tuple(offices)
    return len(listed) - len(dedupe_offices(listed))
