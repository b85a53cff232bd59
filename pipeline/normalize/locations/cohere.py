"""Coherence across one string: its offices are read as a whole.

Each office is first read on its own (resolve.py); a lone name keeps every
country it could be in. A string that lists several offices says more: "Berlin,
Munich, Hamburg" is three German cities (Berlin is not also in El Salvador),
"Hollywood, LA" is Los Angeles (LA is not Laos), "MD, MO, MA, MN" lists US states
(not Moldova, Macau, Morocco and Mongolia). Two rules, both only narrowing an
ambiguous office to a reading it already had, never adding a country:

1. When the offices that name one country only (the anchors) all name the same
   country C, an ambiguous code beside them ("LA") is read in C; an ambiguous
   name is read in C when at least two anchors vouch for C, so one office never
   drags a far-away namesake's country out of another ("Toronto; Paris" keeps
   Paris, France).
2. With no anchor at all, a list of two or more codes in capitals that share
   exactly one country is read in it ("MD, MO, MA, MN"). Names are not: "Paris,
   Berlin" share the US by small namesakes, and are France and Germany.
"""

from __future__ import annotations

from .index import Index
from .resolve import (
    Choice,
    Reading,
    counted_lone,
    lone_readings,
    to_office,
    with_territories,
)

ANCHORS_FOR_A_NAME = 2


def _readings(choice: Choice, index: Index) -> list[Reading]:
    if choice.readings is not None:
        return choice.readings
    span = choice.span
    if span is None:
        return []
    found = lone_readings(span.refs, index)
    return counted_lone(found, span.profile, span.key, index) if found else []


def _base_countries(choice: Choice) -> frozenset[str]:
    """The countries of the office's own readings (territories' parents left out)."""
    office = choice.office
    if not office.ambiguous and office.country is not None:
        return frozenset((office.country,))
    return choice.countries


def _narrowed(choice: Choice, code: str, index: Index) -> Choice | None:
    readings = [r for r in _readings(choice, index) if r.country == code]
    if not readings:
        return None
    best = max(readings, key=lambda r: r.weight)
    ambiguous = len({(r.country, r.admin1, r.city) for r in readings}) > 1
    office = to_office(best, ambiguous, index)
    return Choice(office, frozenset(with_territories({code})), readings, None, choice.code)


def cohere(choices: list[Choice], index: Index) -> list[Choice] | None:
    """The choices narrowed by the string as a whole, or None when nothing changes."""
    if len(choices) < 2:
        return None
    spans = [_readings(c, index) if len(c.countries) > 1 else None for c in choices]
    anchors = [
        {r.country for r in readings} if readings is not None else set(_base_countries(c))
        for c, readings in zip(choices, spans, strict=True)
    ]
    single = [next(iter(a)) for a in anchors if len(a) == 1]
    target: str | None = None
    allow_names = False
    if single and len(set(single)) == 1:
        target = single[0]
        allow_names = len(single) >= ANCHORS_FOR_A_NAME
    elif not single and all(c.code for c in choices):
        shared = set.intersection(*anchors)
        if len(shared) == 1:
            target, allow_names = shared.pop(), False
    if target is None:
        return None
    out: list[Choice] = []
    changed = False
    for choice, countries in zip(choices, anchors, strict=True):
        if len(countries) > 1 and target in countries and (choice.code or allow_names):
            narrowed = _narrowed(choice, target, index)
            if narrowed is not None:
                out.append(narrowed)
                changed = True
                continue
        out.append(choice)
    return out if changed else None
