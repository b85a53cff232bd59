"""The place-name index's shape: its references, entries and profiles, and the
`Index` both the builder (gazetteer) and the reader (resolve) work on.

A reference is an int: ``id << 3 | strong_bit << 2 | kind``, so that one dict lookup
returns every reading of a span, cheaply.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

from .vocab import Noise

KIND_CITY, KIND_REGION, KIND_COUNTRY, KIND_GROUP = 0, 1, 2, 3
KIND_MASK = 3
WEAK_BIT = 4  # the span matched an alternate (non-primary) name: a looser match
MAX_WORDS = 7
# What a list of refs holds, precomputed per name (see `profile_refs`).
HAS_CITY, HAS_REGION, HAS_COUNTRY, HAS_GROUP = 1, 2, 4, 8
HAS_STRONG_COUNTRY = 16
ALL_WEAK = 32
ONLY_UNKNOWN_GROUPS = 64  # "Anywhere": no country can be ruled out
MANY_REFS = 8


class City(NamedTuple):
    name: str
    country: str
    admin1: str
    population: int
    geonameid: int


class Region(NamedTuple):
    name: str
    country: str
    admin1: str | None  # None: a region we could not tie to GeoNames' admin1 codes
    weight: int  # people living in its cities: ranks readings of a bare name
    geonameid: int | None


class Country(NamedTuple):
    code: str
    name: str
    population: int
    geonameid: int | None


class Group(NamedTuple):
    name: str
    countries: frozenset[str] | None  # None: "anywhere" - no country can be ruled out


class Entry(NamedTuple):
    """What a folded word run means: one dict lookup per candidate span."""

    refs: tuple[int, ...]  # places with this name (empty: none)
    profile: Profile  # what those refs hold, computed once
    noise: Noise | None  # a word that is not a place ("remote", "office")
    continues: bool  # a longer name starts with this run: keep reading words
    strength: int  # span search: 2 own name, 1 alternate name or noise, 0 only a prefix


@dataclass(frozen=True)
class Index:
    key: str
    lexicon: dict[str, Entry]  # folded word run -> entry
    codes: dict[str, Entry]  # exact token in capitals ("CA", "NYC") -> entry
    cities: tuple[City, ...]
    regions: tuple[Region, ...]
    countries: tuple[Country, ...]
    groups: tuple[Group, ...]
    admin1_names: dict[tuple[str, str], str]  # GeoNames' admin1 names, as matched
    country_by_code: dict[str, Country]
    # What an office shows: one name per first-level region (GeoNames' name, its
    # diacritics restored; a region named like a town in it spelled as the town), and
    # the town a city-region is (Hà Nội, Prague): see _Builder.build_region_names.
    region_names: dict[tuple[str, str], str]
    region_cities: dict[tuple[str, str], int]  # (country, admin1) -> index into cities

    def refs(self, key: str) -> tuple[int, ...]:
        entry = self.lexicon.get(key)
        return entry.refs if entry is not None else ()


def ref(kind: int, ident: int, *, weak: bool = False) -> int:
    return ident << 3 | (WEAK_BIT if weak else 0) | kind


class Lone(NamedTuple):
    """The office a name makes when nothing else in its office vouches for it.

    Computed once per name when the index is built (resolve.lone_summary);
    "Paris" alone always reads the same.
    """

    # the likeliest reading as Office fields (city, region, country, geonameid,
    # ambiguous); ambiguous when the name fits several places
    office: tuple[str | None, str | None, str | None, int | None, bool]
    countries: frozenset[str]  # every country it could be in
    alias_small: bool  # a small town matched by an alternate name only: may be a building
    has_city: bool  # some reading is a town
    anchors: bool  # one area, or one big city, in one country: words beside it add detail


class Profile(NamedTuple):
    """What a list of refs holds, computed once per name when the index is built."""

    countries: frozenset[str]  # every country the refs can be in
    flags: int  # HAS_CITY | HAS_REGION | ...
    strong_countries: frozenset[str]  # countries named by their English name or code
    # strong countries, plus countries of regions that are more than the
    # surroundings of a same-named city ("Florida" is a state first; the
    # department of Paris is only Paris's own area)
    named_areas: frozenset[str]
    lone: Lone | None = None  # None: not computed (refs assembled at run time)
    # For names with many places ("San Jose"): the refs of each country, and the
    # group refs, so agreement checks read only the countries in question.
    by_country: dict[str, tuple[int, ...]] | None = None
    group_refs: tuple[int, ...] = ()
    # countries of its regions, countries and groups: an office of two spans
    # needs one of them read as an area, so only these countries can host it
    area_countries: frozenset[str] = frozenset()


NO_PROFILE = Profile(frozenset(), 0, frozenset(), frozenset())


def profile_refs(
    refs: tuple[int, ...], index: Index, code_only: frozenset[int] = frozenset()
) -> Profile:
    """What `refs` hold. `code_only`: refs matched only by a code in capitals.

    A country named by its English name outvotes towns that share it; named
    only by its two-letter code ("HN", "LA", "IN") it does not, because the same
    capitals are a city's or a state's abbreviation too.
    """
    codes: set[str] = set()
    strong: set[str] = set()
    city_areas: set[tuple[str, str]] = set()
    region_areas: set[tuple[str, str | None]] = set()
    areas: set[str] = set()
    flags = ALL_WEAK | ONLY_UNKNOWN_GROUPS if refs else 0
    for r in refs:
        kind, ident = r & KIND_MASK, r >> 3
        flags |= 1 << kind
        if not r & WEAK_BIT:
            flags &= ~ALL_WEAK
        if kind != KIND_GROUP or index.groups[ident].countries is not None:
            flags &= ~ONLY_UNKNOWN_GROUPS
        if kind == KIND_CITY:
            city = index.cities[ident]
            codes.add(city.country)
            if not r & WEAK_BIT:
                city_areas.add((city.country, city.admin1))
        elif kind == KIND_REGION:
            region = index.regions[ident]
            codes.add(region.country)
            areas.add(region.country)
            region_areas.add((region.country, region.admin1))
        elif kind == KIND_COUNTRY:
            codes.add(index.countries[ident].code)
            areas.add(index.countries[ident].code)
            if not r & WEAK_BIT and r not in code_only:
                flags |= HAS_STRONG_COUNTRY
                strong.add(index.countries[ident].code)
        else:
            codes.update(index.groups[ident].countries or ())
            areas.update(index.groups[ident].countries or ())
    named = strong | {code for code, admin1 in region_areas if (code, admin1) not in city_areas}
    by_country, group_refs = _by_country(refs, index)
    return Profile(
        frozenset(codes),
        flags,
        frozenset(strong),
        frozenset(named),
        None,
        by_country,
        group_refs,
        frozenset(areas),
    )


def _by_country(
    refs: tuple[int, ...], index: Index
) -> tuple[dict[str, tuple[int, ...]] | None, tuple[int, ...]]:
    """Many refs (a common name): grouped by country, groups apart, for fast lookups."""
    by_country: dict[str, tuple[int, ...]] | None = None
    group_refs: tuple[int, ...] = ()
    if len(refs) > MANY_REFS:
        grouped: dict[str, list[int]] = defaultdict(list)
        for r in refs:
            if r & KIND_MASK == KIND_GROUP:
                group_refs += (r,)
            else:
                grouped[_ref_country(r, index)].append(r)
        by_country = {code: tuple(rs) for code, rs in grouped.items()}
    return by_country, group_refs


def _ref_country(r: int, index: Index) -> str:
    kind, ident = r & KIND_MASK, r >> 3
    if kind == KIND_CITY:
        return index.cities[ident].country
    if kind == KIND_REGION:
        return index.regions[ident].country
    return index.countries[ident].code
