"""Reading one segment: which words are places, and which offices they make.

1. Every run of words that is a known name (city, region, country, group of
   countries) or a known non-place word ("Remote", "Office") is a candidate
   span. A dynamic program picks the spans that explain the most words, then
   the fewest spans ("North Carolina" over "North" + "Carolina").
2. A part (text between commas) with a word left unexplained loses its city
   readings: "Springfield Gardens" is not Springfield. Its region or country
   readings stay.
3. Spans are grouped into offices left to right: a span joins the current
   office when some reading makes them all agree (one country; the city in the
   region named), otherwise it starts a new office ("Hà Nội, Hồ Chí Minh" is
   two offices). Agreement picks namesakes: "Toronto, CA" is Canada because no
   Toronto lies in California.
4. An office with several readings in different countries is ambiguous and
   keeps every country it could be in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .gazetteer import (
    KIND_CITY,
    KIND_COUNTRY,
    KIND_GROUP,
    KIND_MASK,
    KIND_REGION,
    MAX_WORDS,
    WEAK_BIT,
    Index,
)
from .model import Office
from .regions import TERRITORY_OF
from .split import Token
from .text import fold
from .vocab import NOISE, Noise

# A bare town name counts as a possible country only if the namesake is this
# large: a 5,000-person Toronto, Ohio does not put every Toronto job in the US.
NAMESAKE_MIN_POPULATION = 10_000
# Against a region of the same name, or when matched only by an alternate
# name, a foreign namesake must be a real city to count.
MAJOR_CITY_POPULATION = 100_000


@dataclass(slots=True)
class Span:
    text: str
    part_first: int
    part_last: int
    refs: tuple[int, ...] = ()
    noise: Noise | None = None

    @property
    def is_place(self) -> bool:
        return bool(self.refs)


@dataclass(slots=True)
class Reading:
    country: str
    admin1: str | None
    city: int | None  # index into Index.cities
    region: int | None  # index into Index.regions (an unlinked or matching region)
    weight: int
    city_weak: bool = False


@dataclass(slots=True)
class _Options:
    """What one span can mean inside one country."""

    anywhere: bool = False  # a country, group or unlinked region: fits any admin1
    regions: dict[str, int] = field(default_factory=dict)  # admin1 -> region
    cities: dict[str, int] = field(default_factory=dict)  # admin1 -> most populous city ref
    unlinked_region: int | None = None
    key: str = ""  # the span's folded text


@dataclass(slots=True)
class SegmentReading:
    offices: list[Office]
    countries: set[str]
    unresolved: list[str]
    modes: set[Noise]


# ----------------------------------------------------------------- step 1: spans


def find_spans(tokens: tuple[Token, ...], index: Index) -> list[Span]:
    """The dynamic program: best explanation of the tokens, unexplained words as refs=()."""
    n = len(tokens)
    names, codes, prefixes = index.names, index.codes, index.prefixes
    matches: list[list[tuple[int, tuple[int, ...], Noise | None]]] = [[] for _ in range(n)]
    for i in range(n):
        key = ""
        for j in range(i, min(n, i + MAX_WORDS)):
            token = tokens[j]
            if j > i and not token.joined:
                break
            key = token.key if j == i else f"{key} {token.key}"
            if j == i:
                if any(c.isdigit() for c in key):  # street numbers, postcodes, "P22"
                    matches[i].append((i + 1, (), Noise.FILLER))
                    break
                refs = names.get(key, ())
                text = token.text.replace(".", "")
                if text.isupper() and text in codes:
                    refs = codes[text] + refs
            else:
                refs = names.get(key, ())
            noise = NOISE.get(key)
            if noise is not None:
                matches[i].append((j + 1, (), noise))
            elif refs:
                matches[i].append((j + 1, refs, None))
            if key not in prefixes:
                break
    # best[i] = (words explained, -spans, strength) for tokens[i:]
    best: list[tuple[int, int, int]] = [(0, 0, 0)] * (n + 1)
    choice: list[tuple[int, tuple[int, ...], Noise | None] | None] = [None] * (n + 1)
    for i in range(n - 1, -1, -1):
        top, pick = best[i + 1], None
        for match in matches[i]:
            end, refs, noise = match
            rest = best[end]
            strength = 1 if noise is not None or all(r & WEAK_BIT for r in refs) else 2
            score = (rest[0] + end - i, rest[1] - 1, rest[2] + strength)
            if score > top:
                top, pick = score, match
        best[i], choice[i] = top, pick
    spans: list[Span] = []
    i = 0
    while i < n:
        pick = choice[i]
        if pick is None:
            token = tokens[i]
            last = spans[-1] if spans else None
            if (
                last is not None
                and not last.refs
                and last.noise is None
                and (last.part_last == token.part)
            ):
                last.text = f"{last.text} {token.text}"
            else:
                spans.append(Span(token.text, token.part, token.part))
            i += 1
            continue
        end, refs, noise = pick
        text = " ".join(t.text for t in tokens[i:end])
        spans.append(Span(text, tokens[i].part, tokens[end - 1].part, refs, noise))
        i = end
    return spans


def drop_cities_beside_unexplained(spans: list[Span]) -> list[Span]:
    """A part with an unexplained word keeps no city: we would be guessing.

    With a building or street word too ("Al Sila Tower"), the part names a
    site, and none of its words is trusted as a place.
    """
    doubtful = _parts_of(s for s in spans if not s.refs and s.noise is None)
    if not doubtful:
        return spans
    sites = doubtful & _parts_of(s for s in spans if s.noise is Noise.SITE)
    out: list[Span] = []
    for span in spans:
        parts = set(range(span.part_first, span.part_last + 1))
        if span.refs and parts & doubtful:
            trusted = () if parts & sites else span.refs
            kept = tuple(r for r in trusted if r & KIND_MASK != KIND_CITY)
            span = Span(span.text, span.part_first, span.part_last, kept, None)
        out.append(span)
    return out


def _parts_of(spans: Iterable[Span]) -> set[int]:
    return {part for span in spans for part in range(span.part_first, span.part_last + 1)}


# ----------------------------------------------------------- step 3: readings


def _options(span: Span, index: Index) -> dict[str, _Options]:
    by_country: dict[str, _Options] = {}
    key = fold(span.text)
    for r in span.refs:
        kind, ident = r & KIND_MASK, r >> 3
        if kind == KIND_CITY:
            city = index.cities[ident]
            opts = by_country.setdefault(city.country, _Options())
            opts.cities.setdefault(city.admin1, r)
        elif kind == KIND_REGION:
            region = index.regions[ident]
            opts = by_country.setdefault(region.country, _Options())
            if region.admin1 is None:
                opts.anywhere = True
                opts.unlinked_region = ident
            else:
                opts.regions.setdefault(region.admin1, ident)
        elif kind == KIND_COUNTRY:
            by_country.setdefault(index.countries[ident].code, _Options()).anywhere = True
        elif kind == KIND_GROUP:
            for code in index.groups[ident].countries or ():
                by_country.setdefault(code, _Options()).anywhere = True
    for opts in by_country.values():
        opts.key = key
    return by_country


def readings(places: list[Span], index: Index) -> list[Reading]:
    """Every way the spans can name one place together (empty: they can't)."""
    per_span = [_options(span, index) for span in places]
    shared = set(per_span[0])
    for options in per_span[1:]:
        shared &= options.keys()
    out: list[Reading] = []
    for code in sorted(shared):
        out.extend(_readings_in(code, [options[code] for options in per_span], index))
    return out


def _readings_in(code: str, opts: list[_Options], index: Index) -> list[Reading]:
    out: list[Reading] = []
    admin1s: set[str] = set()
    for o in opts:
        admin1s.update(o.regions)
        admin1s.update(o.cities)
    for admin1 in sorted(admin1s):
        reading = _reading_at(code, admin1, opts, index)
        if reading is not None:
            out.append(reading)
    if not out and all(o.anywhere for o in opts):
        # Country-level only ("Remote, USA", "Noord-Holland, Nederland").
        region = next((o.unlinked_region for o in opts if o.unlinked_region is not None), None)
        country = next((c for c in index.countries if c.code == code), None)
        weight = index.regions[region].weight if region is not None else 0
        if country is not None:
            weight = max(weight, country.population)
        out.append(Reading(code, None, None, region, weight))
    return out


def _reading_at(code: str, admin1: str, opts: list[_Options], index: Index) -> Reading | None:
    forced: int | None = None  # the one span that can only be the city
    city_ref: int | None = None
    region: int | None = None
    for o in opts:
        fits_area = o.anywhere or admin1 in o.regions
        city = o.cities.get(admin1)
        if (
            city is not None
            and admin1 in o.regions
            and _minor_alias(city, o.regions[admin1], index)
        ):
            city = None
        if not fits_area:
            if city is None or forced is not None:
                return None  # does not fit, or a second city in one office
            forced = city
        elif city is not None and (
            city_ref is None
            or index.cities[city >> 3].population > index.cities[city_ref >> 3].population
        ):
            city_ref = city
        if admin1 in o.regions:
            region = o.regions[admin1]
        elif region is None and o.unlinked_region is not None:
            region = o.unlinked_region
    chosen = forced if forced is not None else city_ref
    if chosen is None:
        weight = index.regions[region].weight if region is not None else 0
        return Reading(code, admin1, None, region, weight)
    if _two_towns(chosen, admin1, code, opts, index):
        return None
    city = index.cities[chosen >> 3]
    return Reading(code, admin1, chosen >> 3, region, city.population, bool(chosen & WEAK_BIT))


def _minor_alias(city_ref: int, region: int, index: Index) -> bool:
    """ "Maryland" is the state, not Maryland City (which merely has it as an alternate name).

    A city matched by an alternate name stands for the region of the same name
    only when it is a large part of it ("New York" is New York City).
    """
    if not city_ref & WEAK_BIT:
        return False
    return index.cities[city_ref >> 3].population < 0.2 * index.regions[region].weight


def _two_towns(chosen: int, admin1: str, code: str, opts: list[_Options], index: Index) -> bool:
    """Would the reading make a town of one span the region of another town?

    "Brooklyn, New York" is one office: New York is the state's own name. But
    "Bắc Ninh, Bắc Giang" lists two towns even though both now lie in one
    province: a town's name is read as a region only when it is the region's
    current name.
    """
    region_name = index.admin1_names.get((code, admin1))
    own_names = _region_keys(region_name) if region_name else set()
    for o in opts:
        other = o.cities.get(admin1)
        if other is not None and other >> 3 != chosen >> 3 and o.key not in own_names:
            return True
    return False


def _region_keys(name: str) -> set[str]:
    key = fold(name)
    words = [w for w in key.split() if w not in ("city", "province", "state", "region")]
    return {key, " ".join(words)}


# ------------------------------------------------------------- step 3: offices


@dataclass(slots=True)
class _OfficeDraft:
    places: list[Span] = field(default_factory=list)
    readings: list[Reading] = field(default_factory=list)
    attached: list[str] = field(default_factory=list)  # unexplained or "anywhere" text
    descending: bool = False  # "Country - Region - City - Site" order
    site_mode: bool = False  # past the city of a descending office: the rest is a site


def group_offices(spans: list[Span], index: Index) -> tuple[list[_OfficeDraft], set[Noise]]:
    modes: set[Noise] = set()
    drafts: list[_OfficeDraft] = []
    current: _OfficeDraft | None = None
    pending: list[str] = []
    for span in spans:
        if span.noise is not None:
            if span.noise is Noise.CONNECTOR:
                current = None
            else:
                modes.add(span.noise)
            continue
        if not span.refs or _only_unknown_groups(span, index):
            if current is not None:
                current.attached.append(span.text)
            else:
                pending.append(span.text)
            continue
        if current is not None and current.site_mode:
            continue
        if current is not None:
            joined = readings([*current.places, span], index)
            if joined:
                current.places.append(span)
                current.readings = joined
                continue
            if current.descending and _has_city(current) and _small_town_only(span, index):
                current.site_mode = True
                continue
        current = _OfficeDraft(places=[span], readings=readings([span], index), attached=pending)
        current.descending = _names_country(span)
        pending = []
        drafts.append(current)
    if pending:
        drafts.append(_OfficeDraft(attached=pending))
    return drafts, modes


def _only_unknown_groups(span: Span, index: Index) -> bool:
    return all(
        r & KIND_MASK == KIND_GROUP and index.groups[r >> 3].countries is None for r in span.refs
    )


def _has_city(draft: _OfficeDraft) -> bool:
    return any(r.city is not None for r in draft.readings)


def _names_country(span: Span) -> bool:
    """Workday's descending form starts with a country or group: "APAC - India - Pune"."""
    return any(r & KIND_MASK in (KIND_COUNTRY, KIND_GROUP) and not r & WEAK_BIT for r in span.refs)


def _small_town_only(span: Span, index: Index) -> bool:
    """After "India - Bengaluru", "Sunriver" is a site (a town in Oregon by name only).

    A big city is another office instead: "Canada - Toronto - Vancouver".
    """
    return all(
        r & KIND_MASK == KIND_CITY and index.cities[r >> 3].population < MAJOR_CITY_POPULATION
        for r in span.refs
    )


# -------------------------------------------------------- step 4: ambiguity


def counted_readings(draft: _OfficeDraft, index: Index) -> list[Reading]:
    """The readings whose countries the office could be in.

    With two or more spans the spans vouch for each other, so every reading
    counts. A lone span is weighed (a reading weighs its city's or region's
    population):
    - a country's English name or code always counts, and foreign towns that
      share it never do ("Lebanon" is not Lebanon, Pennsylvania);
    - next to a region of that name elsewhere ("Florida", "Washington"), a
      reading must be a big place (100,000) to count;
    - a match by an alternate name counts only when no place has the name as
      its own, and then only for a big city ("Vitória" is not "Victoria");
    - otherwise a namesake counts from 10,000 people up, because a bare
      "Paris" could be in Texas. A weak country name ("Nederland") raises no
      bar, so Nederland, Texas stays possible.
    The likeliest reading always counts.
    """
    if len(draft.places) > 1:
        return draft.readings
    refs = draft.places[0].refs
    strong_countries = {
        index.countries[r >> 3].code
        for r in refs
        if r & KIND_MASK == KIND_COUNTRY and not r & WEAK_BIT
    }
    named_areas = strong_countries | _regions_not_named_after_a_city(refs, index)
    has_own_name = any(not r & WEAK_BIT for r in refs)
    counted = []
    for reading in draft.readings:
        if reading.country in strong_countries:
            counted.append(reading)
            continue
        if strong_countries and reading.city is not None:
            continue
        if reading.city_weak and has_own_name:
            continue
        big_only = reading.city_weak or bool(named_areas - {reading.country})
        floor = MAJOR_CITY_POPULATION if big_only else NAMESAKE_MIN_POPULATION
        if reading.weight >= floor:
            counted.append(reading)
    best = max(draft.readings, key=lambda r: r.weight)
    if best not in counted:
        counted.append(best)
    return counted


def _ref_countries(r: int, index: Index) -> tuple[str, ...]:
    kind = r & KIND_MASK
    if kind == KIND_COUNTRY:
        return (index.countries[r >> 3].code,)
    if kind == KIND_REGION:
        return (index.regions[r >> 3].country,)
    if kind == KIND_CITY:
        return (index.cities[r >> 3].country,)
    return tuple(index.groups[r >> 3].countries or ())


def _regions_not_named_after_a_city(refs: tuple[int, ...], index: Index) -> set[str]:
    """Countries of regions that are more than the surroundings of a same-named city.

    "Florida" is a state first, so a Florida in Uruguay must be big to count;
    the department of Paris is only Paris's own area, so Paris, Texas counts.
    """
    city_areas = {
        (index.cities[r >> 3].country, index.cities[r >> 3].admin1)
        for r in refs
        if r & KIND_MASK == KIND_CITY
    }
    out = set()
    for r in refs:
        if r & KIND_MASK == KIND_REGION:
            region = index.regions[r >> 3]
            if (region.country, region.admin1) not in city_areas:
                out.add(region.country)
    return out


def to_office(reading: Reading, ambiguous: bool, index: Index) -> Office:
    city = index.cities[reading.city] if reading.city is not None else None
    region_name = None
    if reading.admin1 is not None:
        region_name = index.admin1_names.get((reading.country, reading.admin1))
    if region_name is None and reading.region is not None:
        region_name = index.regions[reading.region].name
    if city is not None:
        gid = city.geonameid
    elif reading.region is not None and index.regions[reading.region].geonameid:
        gid = index.regions[reading.region].geonameid
    elif reading.admin1 is None:
        gid = next((c.geonameid for c in index.countries if c.code == reading.country), None)
    else:
        gid = None
    return Office(
        city=city.name if city is not None else None,
        region=region_name,
        country=reading.country,
        geonameid=gid,
        ambiguous=ambiguous,
    )


# ------------------------------------------------------------------ a segment


def read_segment(tokens: tuple[Token, ...], index: Index) -> SegmentReading:
    spans = drop_cities_beside_unexplained(find_spans(tokens, index))
    drafts, modes = group_offices(spans, index)
    result = SegmentReading([], set(), [], modes)
    if Noise.NEGATION in modes:
        # "Remote (non-U.S.)": we do not reason about exclusions; anywhere it is.
        result.unresolved.append(" ".join(t.text for t in tokens))
        return result
    site_parts = _parts_of(s for s in spans if s.noise is Noise.SITE)
    for draft in drafts:
        if not draft.places:
            result.unresolved.extend(draft.attached)
        elif _is_group_only(draft):
            # "EMEA", "Remote - LATAM": a set of countries, not an office.
            for span in draft.places:
                for r in span.refs:
                    result.countries.update(_ref_countries(r, index))
        else:
            _add_office(draft, index, result, site_parts)
    return result


def _is_group_only(draft: _OfficeDraft) -> bool:
    return all(r & KIND_MASK == KIND_GROUP for span in draft.places for r in span.refs)


def _add_office(
    draft: _OfficeDraft, index: Index, result: SegmentReading, site_parts: set[int]
) -> None:
    counted = counted_readings(draft, index)
    best = max(counted, key=lambda r: r.weight)
    places = {(r.country, r.admin1, r.city) for r in counted}
    loose = len(draft.places) == 1 and _loose(draft.places[0], best, index, site_parts)
    ambiguous = len(places) > 1 or loose
    result.offices.append(to_office(best, ambiguous, index))
    result.countries.update(r.country for r in counted)
    if loose:
        result.unresolved.append(draft.places[0].text)
    if draft.attached and not _grounded(draft):
        result.unresolved.extend(draft.attached)


def _loose(span: Span, best: Reading, index: Index, site_parts: set[int]) -> bool:
    """Is a lone place as likely a building or a street as a town?

    A mall or tower named like a town ("Cornwall Centre", "Lansdowne Place"),
    or a small town matched only by an alternate name. The office is kept and
    marked ambiguous, but its text stays unresolved: the job could be anywhere.
    """
    if any(p in site_parts for p in range(span.part_first, span.part_last + 1)):
        return True
    return (
        best.city is not None
        and best.city_weak
        and index.cities[best.city].population < MAJOR_CITY_POPULATION
    )


def _grounded(draft: _OfficeDraft) -> bool:
    """Does the office name an area (region, country, group), not just a town?

    Unexplained words beside an area only qualify it ("Fundera Arizona" is in
    Arizona). Beside a bare town they may be the real place, so they stay
    unresolved.
    """
    return any(any(r & KIND_MASK != KIND_CITY for r in span.refs) for span in draft.places)


def with_territories(countries: set[str]) -> set[str]:
    """Puerto Rico is also the US for "could this job be in the US?"."""
    return countries | {TERRITORY_OF[c] for c in countries if c in TERRITORY_OF}
