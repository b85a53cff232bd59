"""Reading one segment: which words are places, and which offices they make.

1. Every run of words that is a known name (city, region, country, group of
   countries) or a known non-place word ("Remote", "Office") is a candidate
   span. A dynamic program picks the spans that explain the most words, then
   the fewest spans ("North Carolina" over "North" + "Carolina").
2. A part (text between commas) with a word left unexplained loses its city
   readings: "Springfield Gardens" is not Springfield. Its country and
   sizeable region readings stay; with a building word or a street number the
   part is a site and keeps nothing.
3. Spans are grouped into offices left to right: a span joins the current
   office when some reading makes them all agree (one country; the city in the
   region named), otherwise it starts a new office ("Hà Nội, Hồ Chí Minh" is
   two offices). Agreement picks namesakes: "Toronto, CA" is Canada because no
   Toronto lies in California.
4. An office with several readings in different countries is ambiguous and
   keeps every country it could be in (see `counted_lone` for how a lone
   name is weighed). What cannot be placed goes to `unresolved`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .index import (
    ALL_WEAK,
    HAS_CITY,
    HAS_COUNTRY,
    HAS_GROUP,
    HAS_REGION,
    HAS_STRONG_COUNTRY,
    KIND_CITY,
    KIND_COUNTRY,
    KIND_MASK,
    KIND_REGION,
    MAX_WORDS,
    NO_PROFILE,
    ONLY_UNKNOWN_GROUPS,
    WEAK_BIT,
    Entry,
    Index,
    Lone,
    Profile,
    profile_refs,
)
from .model import Office
from .regions import TERRITORY_OF
from .split import Token, is_vietnamese
from .text import fold
from .vocab import Noise

# A bare town name counts as a possible country only if the namesake is this
# large: a 5,000-person Toronto, Ohio does not put every Toronto job in the US.
NAMESAKE_MIN_POPULATION = 10_000
# Against a region of the same name, or when matched only by an alternate
# name, a foreign namesake must be a real city to count.
MAJOR_CITY_POPULATION = 100_000
_PLACE_KINDS = HAS_CITY | HAS_REGION | HAS_COUNTRY | HAS_GROUP
# Words that change how a segment reads: such segments take the full path.
_NOT_SIMPLE = frozenset({Noise.NEGATION, Noise.SITE, Noise.SUBUNIT, Noise.CONNECTOR})
_NONE: frozenset[int] = frozenset()
# Street numbers, postcodes, units: a part with a number and a word we cannot
# explain is a street address ("11 Đoàn Văn Bơ"), whatever towns it seems to name.
_DIGITS = Entry((), NO_PROFILE, Noise.SITE, False, 1)
_FILLER = Entry((), NO_PROFILE, Noise.FILLER, False, 1)


def _district_or_site(tokens: tuple[Token, ...], i: int) -> Entry:
    """A number of one or two digits closing the part right after a word is a city
    district ("Praha 5", "Wien 3", "Lyon 7"); any other number is an address."""
    token = tokens[i]
    closes_part = i + 1 == len(tokens) or tokens[i + 1].part != token.part
    after_word = i > 0 and not tokens[i - 1].digit and tokens[i - 1].part == token.part
    if closes_part and after_word and token.text.isdigit() and len(token.text) <= 2:
        return _FILLER
    return _DIGITS


def _foreign_syllable(text: str, entry: Entry) -> bool:
    """One Vietnamese syllable ("vấn" of "phỏng vấn", interview) read as a place
    outside Vietnam: the folded key ("van") names a town in Turkey, the word does not."""
    return is_vietnamese(text) and "VN" not in entry.profile.countries


@dataclass(slots=True)
class Span:
    text: str
    part_first: int
    part_last: int
    refs: tuple[int, ...] = ()
    noise: Noise | None = None
    profile: Profile = NO_PROFILE
    key: str = ""  # folded text


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

    regions: dict[str, int]  # admin1 -> region
    cities: dict[str, int]  # admin1 -> city ref (own name first, then most populous)
    key: str  # the span's folded text
    anywhere: bool = False  # a country, group or unlinked region: fits any admin1
    unlinked_region: int | None = None
    named_area: bool = False  # a region or the country itself is named (not only a group)


@dataclass(slots=True)
class Choice:
    """One office of a segment and what else it could have been (see cohere.py)."""

    office: Office
    countries: frozenset[str]  # with territories
    readings: list[Reading] | None  # the counted readings of a multi-span office
    span: Span | None  # or the one span of a lone office (readings worked out on demand)
    code: bool = False  # a lone code in capitals ("MD", "LA")


@dataclass(slots=True)
class SegmentReading:
    offices: list[Office]
    countries: set[str]
    unresolved: list[str]
    modes: set[Noise]
    choices: list[Choice] = field(default_factory=list)  # one per office, in order
    groups: set[str] = field(default_factory=set)  # countries of groups ("EMEA")


# ----------------------------------------------------------------- step 1: spans


def find_spans(tokens: tuple[Token, ...], index: Index) -> list[Span]:
    """The dynamic program: best explanation of the tokens, unexplained words as refs=()."""
    return _spans(tokens, _best_choices(_matches(tokens, index)))


def _matches(tokens: tuple[Token, ...], index: Index) -> list[list[tuple[int, Entry, str]]]:
    """Every lexicon entry that starts at each token: (end, entry, key)."""
    n = len(tokens)
    lexicon_get, codes_get = index.lexicon.get, index.codes.get
    matches: list[list[tuple[int, Entry, str]]] = []
    for i in range(n):
        _, key, _, _, code, digit = tokens[i]
        found: list[tuple[int, Entry, str]] = []
        matches.append(found)
        if digit:  # street numbers, postcodes, "P22"; "Praha 5" is a district
            found.append((i + 1, _district_or_site(tokens, i), key))
            continue
        entry = lexicon_get(key)
        code_entry = codes_get(code) if code else None
        # (an entry's strength is 0 when it only starts longer names)
        if code_entry is not None:  # "CA" in capitals: the code and whatever "ca" names
            found.append((i + 1, code_entry, key))
        elif entry is not None and entry.strength and not _foreign_syllable(tokens[i].text, entry):
            found.append((i + 1, entry, key))
        if not found and len(key) == 1 and i and tokens[i - 1].part == tokens[i].part:
            found.append((i + 1, _FILLER, key))  # "København K": a postal district letter
        j = i + 1
        while entry is not None and entry.continues and j < n and j - i < MAX_WORDS:
            following = tokens[j]
            if not following.joined:
                break
            key = f"{key} {following.key}"
            j += 1
            entry = lexicon_get(key)
            if entry is not None and entry.strength:
                found.append((j, entry, key))
    return matches


def _best_choices(
    matches: list[list[tuple[int, Entry, str]]],
) -> list[tuple[int, Entry, str] | None]:
    n = len(matches)
    # best[i] = (words explained, -spans, strength) for tokens[i:]
    best: list[tuple[int, int, int]] = [(0, 0, 0)] * (n + 1)
    choice: list[tuple[int, Entry, str] | None] = [None] * (n + 1)
    for i in range(n - 1, -1, -1):
        top, pick = best[i + 1], None
        for match in matches[i]:
            end, entry, _ = match
            rest = best[end]
            score = (rest[0] + end - i, rest[1] - 1, rest[2] + entry.strength)
            if score > top:
                top, pick = score, match
        best[i], choice[i] = top, pick
    return choice


def _spans(tokens: tuple[Token, ...], choice: list[tuple[int, Entry, str] | None]) -> list[Span]:
    n = len(tokens)
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
        end, entry, key = pick
        text = tokens[i].text if end == i + 1 else " ".join([t.text for t in tokens[i:end]])
        part_last = tokens[end - 1].part
        spans.append(
            Span(text, tokens[i].part, part_last, entry.refs, entry.noise, entry.profile, key)
        )
        i = end
    return spans


def drop_cities_beside_unexplained(spans: list[Span], index: Index) -> list[Span]:
    """A part with an unexplained word keeps no city: we would be guessing.

    With a building or street word too ("Al Sila Tower"), the part names a
    site, and none of its words is trusted as a place.
    """
    for span in spans:  # most segments explain every word: nothing to do
        if not span.refs and (span.noise is None or span.noise is Noise.SUBUNIT):
            break
    else:
        return spans
    doubtful = _parts_of(s for s in spans if not s.refs and s.noise is None)
    subunits = _parts_of(s for s in spans if s.noise is Noise.SUBUNIT)
    sites = doubtful & _parts_of(s for s in spans if s.noise is Noise.SITE) | subunits
    doubtful |= subunits
    out: list[Span] = []
    for span in spans:
        parts = set(range(span.part_first, span.part_last + 1))
        if span.refs and parts & doubtful:
            trusted = () if parts & sites else span.refs
            kept = tuple(r for r in trusted if _stands_beside_unknown_words(r, index))
            profile = profile_refs(kept, index) if kept else NO_PROFILE
            span = Span(span.text, span.part_first, span.part_last, kept, None, profile, span.key)
        out.append(span)
    return out


def _stands_beside_unknown_words(r: int, index: Index) -> bool:
    """A country, group or sizeable region keeps its meaning beside unexplained words.

    "Fundera Arizona" is in Arizona; "Foo Bar Baz" is not in Bar, Montenegro.
    """
    kind = r & KIND_MASK
    if kind == KIND_CITY:
        return False
    if kind == KIND_REGION:
        region = index.regions[r >> 3]
        return region.admin1 is None or region.weight >= MAJOR_CITY_POPULATION
    return True


def _parts_of(spans: Iterable[Span]) -> set[int]:
    return {part for span in spans for part in range(span.part_first, span.part_last + 1)}


# ------------------------------------------------------ step 3: agreement


def _options(span: Span, index: Index, only: set[str]) -> dict[str, _Options]:
    """What the span can mean in each of the countries `only`."""
    by_country: dict[str, _Options] = {}
    key = span.key
    grouped = span.profile.by_country
    refs: Iterable[int] = span.refs
    if grouped is not None:
        refs = [r for code in only for r in grouped.get(code, ())]
        refs.extend(span.profile.group_refs)
    cities, regions, get = index.cities, index.regions, by_country.get
    for r in refs:
        kind = r & KIND_MASK
        if kind == KIND_CITY:
            city = cities[r >> 3]
            code = city.country
            if code not in only:
                continue
            opts = get(code) or by_country.setdefault(code, _Options({}, {}, key))
            earlier = opts.cities.get(city.admin1)
            if earlier is None or (earlier & WEAK_BIT and not r & WEAK_BIT):
                opts.cities[city.admin1] = r  # a town's own name beats an alternate name
        elif kind == KIND_REGION:
            region = regions[r >> 3]
            code = region.country
            if code not in only:
                continue
            opts = get(code) or by_country.setdefault(code, _Options({}, {}, key))
            opts.named_area = True
            if region.admin1 is None:
                opts.anywhere = True
                opts.unlinked_region = r >> 3
            else:
                opts.regions.setdefault(region.admin1, r >> 3)
        elif kind == KIND_COUNTRY:
            code = index.countries[r >> 3].code
            if code in only:
                opts = get(code) or by_country.setdefault(code, _Options({}, {}, key))
                opts.anywhere = opts.named_area = True
        else:
            for code in only.intersection(index.groups[r >> 3].countries or ()):
                opts = get(code) or by_country.setdefault(code, _Options({}, {}, key))
                opts.anywhere = True
    return by_country


def readings(places: list[Span], index: Index) -> list[Reading]:
    """Every way the spans can name one place together (empty: they can't)."""
    if len(places) == 1:
        return lone_readings(places[0].refs, index)
    shared = set(places[0].profile.countries)
    areas = set(places[0].profile.area_countries)
    for span in places[1:]:
        shared &= span.profile.countries
        areas |= span.profile.area_countries
    shared &= areas  # two towns never make one office: some span must be an area
    if not shared:
        return []
    per_span = [_options(span, index, shared) for span in places]
    out: list[Reading] = []
    for code in sorted(shared):
        opts = [options[code] for options in per_span]
        if _country_names_respected(code, places, opts):
            out.extend(_readings_in(code, opts, index))
    return out


def _country_names_respected(code: str, places: list[Span], opts: list[_Options]) -> bool:
    """A country's English name ("Canada") reads as a town elsewhere only with backing.

    "Peru, Indiana" may be Peru in Indiana: another span names an area there.
    "Canada, LATAM" is not Cañada in Mexico: a group of countries backs nothing.
    """
    for i, span in enumerate(places):
        strong = span.profile.strong_countries
        own = opts[i]
        if strong and code not in strong and not (own.named_area or own.regions):
            backed = any(j != i and (o.named_area or o.regions) for j, o in enumerate(opts))
            if not backed:
                return False
    return True


def lone_readings(refs: tuple[int, ...], index: Index) -> list[Reading]:
    """`readings` of a single span: every place it names, without agreement to check.

    Towns below NAMESAKE_MIN_POPULATION never count for a lone span
    (`counted_lone`), so past the most populous town they are not read:
    refs list areas first, then towns by falling population.
    """
    out: list[Reading] = []
    cities, regions = index.cities, index.regions
    area_regions: dict[tuple[str, str], int] = {}
    unlinked: dict[str, int] = {}
    anywhere: list[str] = []
    seen: dict[tuple[str, str], Reading] = {}
    first_city = True
    for r in refs:
        kind, ident = r & KIND_MASK, r >> 3
        if kind == KIND_CITY:
            city = cities[ident]
            if not first_city and city.population < NAMESAKE_MIN_POPULATION:
                break
            first_city = False
            place = (city.country, city.admin1)
            weak = bool(r & WEAK_BIT)
            if place in seen:
                # A town's own name beats a bigger town's alternate name: "New
                # Delhi" is New Delhi, not Delhi, which also goes by it.
                earlier = seen[place]
                if earlier.city_weak and not weak:
                    earlier.city, earlier.weight, earlier.city_weak = ident, city.population, False
                continue
            region = area_regions.get(place)
            if region is not None and _minor_alias(r, region, index):
                continue
            if region is None:
                region = unlinked.get(city.country)
            reading = Reading(city.country, city.admin1, ident, region, city.population, weak)
            seen[place] = reading
            out.append(reading)
        elif kind == KIND_REGION:
            area = regions[ident]
            if area.admin1 is None:
                unlinked.setdefault(area.country, ident)
                anywhere.append(area.country)
            else:
                area_regions.setdefault((area.country, area.admin1), ident)
        elif kind == KIND_COUNTRY:
            anywhere.append(index.countries[ident].code)
        else:
            anywhere.extend(index.groups[ident].countries or ())
    _add_areas(out, area_regions, unlinked, anywhere, index)
    return out


def _add_areas(
    out: list[Reading],
    area_regions: dict[tuple[str, str], int],
    unlinked: dict[str, int],
    anywhere: list[str],
    index: Index,
) -> None:
    """Regions and countries no town of the span lies in are readings of their own."""
    regions = index.regions
    named = {(r.country, r.admin1) for r in out}
    for (code, admin1), region in area_regions.items():
        if (code, admin1) not in named:
            out.append(Reading(code, admin1, None, region, regions[region].weight))
    covered = {r.country for r in out}
    for code in dict.fromkeys(anywhere):
        if code not in covered:
            covered.add(code)
            spare = unlinked.get(code)
            country = index.country_by_code.get(code)
            weight = regions[spare].weight if spare is not None else 0
            if country is not None:
                weight = max(weight, country.population)
            out.append(Reading(code, None, None, spare, weight))


def _readings_in(code: str, opts: list[_Options], index: Index) -> list[Reading]:
    out: list[Reading] = []
    # A span that fits no whole country must be read in one of its own regions
    # or towns: only those admin1 codes can work ("Springfield, IL": IL alone).
    admin1s: set[str] | None = None
    for o in opts:
        if not o.anywhere:
            own = o.regions.keys() | o.cities.keys()
            admin1s = own if admin1s is None else admin1s & own
    if admin1s is None:
        admin1s = set()
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
        country = index.country_by_code.get(code)
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
    town = index.cities[chosen >> 3]
    return Reading(code, admin1, chosen >> 3, region, town.population, bool(chosen & WEAK_BIT))


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
    others = [o.key for o in opts if o.cities.get(admin1, chosen) >> 3 != chosen >> 3]
    if not others:
        return False
    region_name = index.admin1_names.get((code, admin1))
    own_names = _region_keys(region_name) if region_name else set()
    return any(key not in own_names for key in others)


def _region_keys(name: str) -> set[str]:
    key = fold(name)
    words = [w for w in key.split() if w not in ("city", "province", "state", "region")]
    return {key, " ".join(words)}


# ------------------------------------------------------ step 3: offices


@dataclass(slots=True)
class _OfficeDraft:
    places: list[Span]
    attached: list[str]  # unexplained or "anywhere" text
    readings: list[Reading] | None = None  # worked out once a second span joins
    descending: bool = False  # "Country - Region - City - Site" order
    site_mode: bool = False  # past the city of a descending office: the rest is a site


def group_offices(
    spans: list[Span], index: Index
) -> tuple[list[_OfficeDraft], set[Noise], list[str]]:
    """Offices left to right; also the work-mode words, and "anywhere" words standing alone."""
    modes: set[Noise] = set()
    drafts: list[_OfficeDraft] = []
    current: _OfficeDraft | None = None
    pending: list[str] = []
    anywhere: list[str] = []
    for span in spans:
        if span.noise is not None:
            if span.noise is Noise.CONNECTOR:
                current = None
            else:
                modes.add(span.noise)  # SITE included: read_segment looks for it
            continue
        if span.refs and span.profile.flags & ONLY_UNKNOWN_GROUPS and not _shares_part(span, spans):
            # "Nước Ngoài, Hà Nội" (abroad, Hanoi): an office somewhere unknown.
            # Only "Anywhere in France", in one part with a place, is narrowed.
            anywhere.append(span.text)
            continue
        if not span.refs or span.profile.flags & ONLY_UNKNOWN_GROUPS:
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
            if current.descending and _has_city(current, index) and _small_town_only(span, index):
                current.site_mode = True
                continue
        current = _OfficeDraft([span], pending, None, _names_country(span))
        pending = []
        drafts.append(current)
    if pending:
        drafts.append(_OfficeDraft([], pending))
    return drafts, modes, anywhere


def _shares_part(span: Span, spans: list[Span]) -> bool:
    """Is a place named in the same part as `span`?"""
    return any(
        other.refs
        and not other.profile.flags & ONLY_UNKNOWN_GROUPS
        and other.part_first <= span.part_last
        and span.part_first <= other.part_last
        for other in spans
    )


def _is_group_span(span: Span) -> bool:
    return span.profile.flags & _PLACE_KINDS == HAS_GROUP


def _has_city(draft: _OfficeDraft, index: Index) -> bool:
    if len(draft.places) == 1:
        return _lone(draft.places[0], index).has_city
    assert draft.readings is not None  # set when the second span joined
    return any(r.city is not None for r in draft.readings)


def _names_country(span: Span) -> bool:
    """Workday's descending form starts with a country or group: "APAC - India - Pune"."""
    return bool(span.profile.flags & (HAS_STRONG_COUNTRY | HAS_GROUP))


def _small_town_only(span: Span, index: Index) -> bool:
    """After "India - Bengaluru", "Sunriver" is a site (a town in Oregon by name only).

    A big city is another office instead: "Canada - Toronto - Vancouver".
    """
    return all(
        r & KIND_MASK == KIND_CITY and index.cities[r >> 3].population < MAJOR_CITY_POPULATION
        for r in span.refs
    )


# -------------------------------------------------------- step 4: ambiguity


def counted_lone(found: list[Reading], profile: Profile, key: str, index: Index) -> list[Reading]:
    """The readings of a lone span whose countries the office could be in.

    (With two or more spans the spans vouch for each other, so every reading
    counts.) A lone span is weighed (a reading weighs its city's or region's
    population):
    - a country's English name always counts, and foreign towns that share it
      never do ("Lebanon" is not Lebanon, Pennsylvania), nor foreign areas
      other than a state of that very name ("Georgia" may be the US state;
      "Luxembourg" is not the Belgian province);
    - next to a region of that name elsewhere ("Florida", "Washington"), a
      reading must be a big place (100,000) to count;
    - a match by an alternate name counts only when no place has the name as
      its own, and then only for a big city ("Vitória" is not "Victoria");
    - otherwise a namesake counts from 10,000 people up, because a bare
      "Paris" could be in Texas. A weak country name ("Nederland") raises no
      bar, so Nederland, Texas stays possible.
    When none of these counts, the likeliest reading does.
    """
    strong_countries, named_areas = profile.strong_countries, profile.named_areas
    has_own_name = not profile.flags & ALL_WEAK
    counted = []
    for reading in found:
        if reading.country in strong_countries:
            counted.append(reading)
            continue
        if (
            strong_countries
            and (reading.city is not None or not _named_after(reading, key, index))
            and not _us_namesake(reading)
        ):
            continue
        if reading.city_weak and has_own_name:
            continue
        big_only = reading.city_weak or bool(named_areas - {reading.country})
        if strong_countries and big_only and _us_namesake(reading):
            big_only = False  # "Palestine": the country, and Palestine, Texas
        floor = MAJOR_CITY_POPULATION if big_only else NAMESAKE_MIN_POPULATION
        if reading.weight >= floor:
            counted.append(reading)
    if not counted:  # the likeliest reading always counts
        counted.append(max(found, key=lambda r: r.weight))
    return counted


def _us_namesake(reading: Reading) -> bool:
    """A US town named like a country ("Palestine", Texas; "Lebanon", Tennessee) keeps
    the US possible: a US job must never be hidden, as with Nederland, Texas."""
    return (
        reading.country == "US"
        and reading.city is not None
        and not reading.city_weak
        and reading.weight >= NAMESAKE_MIN_POPULATION
    )


def _named_after(reading: Reading, key: str, index: Index) -> bool:
    """Is the reading's first-level region called `key` itself?"""
    name = index.admin1_names.get((reading.country, reading.admin1 or ""))
    return name is not None and key in _region_keys(name)


def to_office(reading: Reading, ambiguous: bool, index: Index) -> Office:
    """The office a reading names, with one name per place (docs/locations.md, "Names"):
    GeoNames' name of the town, the region's one display name, and the GeoNames id of
    the most precise place named (none for a region GeoNames' admin1 codes do not tie)."""
    place = (reading.country, reading.admin1) if reading.admin1 is not None else None
    city_at = reading.city
    if city_at is None and place is not None:
        city_at = index.region_cities.get(place)  # a city-region is its city (Hà Nội)
    city = index.cities[city_at] if city_at is not None else None
    region_name = None
    if place is not None:
        region_name = index.region_names.get(place) or index.admin1_names.get(place)
    if region_name is None and reading.region is not None:
        region_name = index.regions[reading.region].name
    gid: int | None = None
    if city is not None:
        gid = city.geonameid
    elif reading.region is not None and index.regions[reading.region].geonameid:
        gid = index.regions[reading.region].geonameid
    elif reading.admin1 is None and reading.region is None:
        # The country itself; a region not tied to an admin1 code is not the country.
        country = index.country_by_code.get(reading.country)
        gid = country.geonameid if country is not None else None
    return Office(
        city=city.name if city is not None else None,
        region=region_name,
        country=reading.country,
        geonameid=gid,
        ambiguous=ambiguous,
    )


# ------------------------------------------------------------------ a segment


def read_segment(tokens: tuple[Token, ...], index: Index) -> SegmentReading:
    spans = drop_cities_beside_unexplained(find_spans(tokens, index), index)
    lone = _only_place(spans)
    if lone is not None:
        return _read_lone(lone, spans, index)
    drafts, modes, anywhere = group_offices(spans, index)
    result = SegmentReading([], set(), anywhere, modes)
    if Noise.NEGATION in modes:
        # "Remote (non-U.S.)": we do not reason about exclusions; anywhere it is.
        result.unresolved.append(" ".join(t.text for t in tokens))
        return result
    site_parts = (
        _parts_of(s for s in spans if s.noise is Noise.SITE) if Noise.SITE in modes else _NONE
    )
    placed = []
    for draft in drafts:
        if not draft.places:
            result.unresolved.extend(draft.attached)
        elif _is_group_only(draft):
            # "EMEA", "Remote - LATAM": a set of countries, not an office.
            for span in draft.places:
                result.countries.update(span.profile.countries)
                result.groups.update(span.profile.countries)
        else:
            placed.append(_place(draft, index, site_parts))
    # In an address ("Ocean Park Building, ..., Hà Nội, Việt Nam") that names
    # a region or country, a building named like a town and the unexplained
    # words are details of the office the address names.
    address = any(p.grounded and not p.loose for p in placed)
    for p in placed:
        if p.loose and address:
            continue
        result.offices.append(p.office)
        result.countries.update(p.countries)
        result.choices.append(p.choice)
        if not address:
            result.unresolved.extend(p.unresolved)
    return result


def _only_place(spans: list[Span]) -> Span | None:
    """The one place of a segment that is one name and work-mode or filler words.

    "London", "Remote - US", "Paris | Onsite": the most common segments, read
    without building offices span by span (the result is the same).
    """
    place = None
    for span in spans:
        if span.refs:
            if (
                place is not None
                or span.profile.flags & ONLY_UNKNOWN_GROUPS
                or _is_group_span(span)
            ):
                return None
            place = span
        elif span.noise is None or span.noise in _NOT_SIMPLE:
            return None
    return place


def _read_lone(span: Span, spans: list[Span], index: Index) -> SegmentReading:
    lone = _lone(span, index)
    city, region, country, geonameid, ambiguous = lone.office
    modes = {s.noise for s in spans if s.noise is not None}
    unresolved = []
    if lone.alias_small:
        ambiguous = True
        unresolved.append(span.text)
    office = Office(city, region, country, geonameid, ambiguous)
    choice = Choice(office, lone.countries, None, span, _is_code(span))
    return SegmentReading([office], set(lone.countries), unresolved, modes, [choice])


def _is_code(span: Span) -> bool:
    return span.text.isupper() and len(span.text.replace(".", "")) <= 3 and " " not in span.text


def _is_group_only(draft: _OfficeDraft) -> bool:
    return all(_is_group_span(span) for span in draft.places)


@dataclass(slots=True)
class _Placed:
    office: Office
    countries: Iterable[str]
    unresolved: list[str]
    loose: bool  # as likely a building or street named like a town
    grounded: bool  # pins down where it is (see _grounded)
    choice: Choice


def _place(draft: _OfficeDraft, index: Index, site_parts: frozenset[int] | set[int]) -> _Placed:
    grounded = _grounded(draft, index)
    unresolved = [] if grounded else list(draft.attached)
    if len(draft.places) > 1:
        assert draft.readings is not None  # set when the second span joined
        counted = draft.readings
        best = max(counted, key=lambda r: r.weight)
        ambiguous = len({(r.country, r.admin1, r.city) for r in counted}) > 1
        countries = with_territories({r.country for r in counted})
        office = to_office(best, ambiguous, index)
        choice = Choice(office, frozenset(countries), counted, None)
        return _Placed(office, countries, unresolved, False, grounded, choice)
    span = draft.places[0]
    lone = _lone(span, index)
    # A mall or tower named like a town ("Cornwall Centre", "Lansdowne Place"),
    # or a small town matched by an alternate name only, is as likely a
    # building as a town: the office is kept, marked ambiguous, and its text
    # stays unresolved - the job could be anywhere.
    loose = lone.alias_small or bool(
        site_parts and not site_parts.isdisjoint(range(span.part_first, span.part_last + 1))
    )
    city, region, country, geonameid, ambiguous = lone.office
    if loose:
        unresolved.append(span.text)
    office = Office(city, region, country, geonameid, ambiguous or loose)
    choice = Choice(office, lone.countries, None, span, _is_code(span))
    return _Placed(office, lone.countries, unresolved, loose, grounded, choice)


def _lone(span: Span, index: Index) -> Lone:
    lone = span.profile.lone
    return lone if lone is not None else lone_summary(span.refs, span.profile, index, span.key)


def lone_summary(refs: tuple[int, ...], profile: Profile, index: Index, key: str) -> Lone:
    """The office the name `key` (with `refs`) makes alone, weighed by `counted_lone`."""
    found = lone_readings(refs, index)
    counted = counted_lone(found, profile, key, index)
    best = max(counted, key=lambda r: r.weight)
    ambiguous = len({(r.country, r.admin1, r.city) for r in counted}) > 1
    alias_small = (
        best.city is not None
        and best.city_weak
        and index.cities[best.city].population < MAJOR_CITY_POPULATION
    )
    office = to_office(best, ambiguous, index)
    anchors = not ambiguous and (
        best.city is None or index.cities[best.city].population >= MAJOR_CITY_POPULATION
    )
    return Lone(
        (office.city, office.region, office.country, office.geonameid, office.ambiguous),
        frozenset(with_territories({r.country for r in counted})),
        alias_small,
        any(r.city is not None for r in found),
        anchors,
    )


def _grounded(draft: _OfficeDraft, index: Index) -> bool:
    """Does the office pin down where it is, so that words beside it only add detail?

    Unexplained words beside it only qualify it ("Fundera Arizona" is in
    Arizona; a street beside "Hà Nội"). Beside a name that fits several places
    ("Paris, Texs") they may be the real place, so they stay unresolved.
    Spans that agree with each other pin the office down; a lone name does
    when it reads as one area, or one big city, in one country.
    """
    return len(draft.places) > 1 or _lone(draft.places[0], index).anchors


def with_territories(countries: set[str]) -> set[str]:
    """An office in Puerto Rico is also in the US for "could this job be in the US?".

    Only offices: a group such as LATAM or APAC lists territories as places of
    their own, and does not make a job American.
    """
    return countries | {TERRITORY_OF[c] for c in countries if c in TERRITORY_OF}
