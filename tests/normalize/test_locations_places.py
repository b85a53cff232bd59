"""Each place once, named once: the rules (dedupe, naming, label) and the index they
hold for, every region and big city under each of its spellings."""

from __future__ import annotations

from collections import defaultdict

import pytest

from pipeline.normalize.locations import (
    Office,
    dedupe_offices,
    gazetteer,
    locate,
    merge_never_remove,
    office_label,
    place_duplicates,
)
from pipeline.normalize.locations.text import fold, spelling_key

HANOI = Office("Hanoi", "Hanoi", "VN", 1581130, False)
HCMC = Office("Ho Chi Minh City", "Ho Chi Minh City", "VN", 1566083, False)


# the rules, on plain offices ----------------------------------------------------------


def test_the_same_geonames_id_twice_is_one_office() -> None:
    old_name = Office("Hanoi", "Ha Noi", "VN", 1581130, False)
    assert dedupe_offices([HANOI, HCMC, old_name]) == (HANOI, HCMC)


def test_one_name_spelled_two_ways_without_an_id_is_one_office() -> None:
    plain = Office(None, "Ile-de-France", "FR", None, False)
    marked = Office(None, "Île-de-France", "FR", None, False)
    run_together = Office(None, "Ha Noi", "VN", None, False)
    assert dedupe_offices([marked, plain, run_together, HANOI]) == (marked, run_together)


def test_two_ids_under_one_label_are_one_office_to_the_reader() -> None:
    other = Office("Hanoi", "Hanoi", "VN", 9999999, False)
    assert dedupe_offices([HANOI, other]) == (HANOI,)


def test_different_places_stay_in_their_order() -> None:
    paris_tx = Office("Paris", "Texas", "US", 4717560, True)
    paris = Office("Paris", "Île-de-France", "FR", 2988507, True)
    assert dedupe_offices([paris_tx, paris, HCMC]) == (paris_tx, paris, HCMC)


def test_a_place_is_ambiguous_only_if_every_mention_was() -> None:
    vague = Office("Hanoi", "Hanoi", "VN", 1581130, True)
    assert dedupe_offices([vague, HANOI]) == (HANOI,)
    assert dedupe_offices([vague, vague]) == (vague,)


def test_the_label_is_city_region_country_each_part_once() -> None:
    assert office_label(Office("Paris", "Île-de-France", "FR", 1, False), "France") == (
        "Paris, Île-de-France, France"
    )
    assert office_label(HANOI, "Viet Nam") == "Hanoi, Viet Nam"
    assert office_label(Office("Singapore", "Singapore", "SG", 1, False), "Singapore") == (
        "Singapore"
    )
    assert office_label(Office(None, "Bavaria", "DE", None, False)) == "Bavaria, DE"
    assert office_label(Office(None, None, "VN", 1562822, False)) == "VN"


def test_duplicates_are_counted_on_stored_offices() -> None:
    """The posting of the report: "Hanoi, Ho Chi Minh City, Ha Noi, Ho Chi Minh City"."""
    stored = [
        {"city": "Hanoi", "region": "Ha Noi", "country": "VN", "geonameid": 1581130},
        {"city": "Ho Chi Minh City", "region": "Ho Chi Minh City", "country": "VN",
         "geonameid": 1566083},
        {"city": None, "region": "Ha Noi", "country": "VN", "geonameid": None},
        {"city": "Ho Chi Minh City", "region": "Ho Chi Minh City", "country": "VN",
         "geonameid": 1566083},
    ]  # fmt: skip
    assert (
        place_duplicates(stored) == 1 + 0 + 1
    )  # HCMC's id again; "Ha Noi, VN" is not Hanoi's label
    assert place_duplicates([*stored, {"city": "Hanoi", "region": "Ha Noi", "country": "VN"}]) == 3
    assert place_duplicates(dedupe_offices(stored)) == 0
    assert place_duplicates([]) == 0


def test_an_earlier_run_under_an_older_name_adds_no_office() -> None:
    old = {
        "input": "Ha Noi, Ho Chi Minh",
        "offices": [
            {"city": None, "region": "Ha Noi", "country": "VN", "geonameid": None},
            {"city": "Ho Chi Minh City", "region": "Ho Chi Minh City", "country": "VN",
             "geonameid": 1566083},
        ],
        "countries": ["VN"],
    }  # fmt: skip
    new = locate("Ha Noi, Ho Chi Minh")
    merged = merge_never_remove(old, new)
    assert [office_label(o) for o in merged.offices] == ["Hanoi, VN", "Ho Chi Minh City, VN"]


# the normalizer ------------------------------------------------------------------------


def test_the_reported_posting_lists_each_place_once() -> None:
    result = locate("Hanoi, Ho Chi Minh City, Ha Noi, Ho Chi Minh City")
    assert [office_label(o, "Viet Nam") for o in result.offices] == [
        "Hanoi, Viet Nam",
        "Ho Chi Minh City, Viet Nam",
    ]


@pytest.mark.parametrize(
    ("spellings", "label"),
    [
        (["Hanoi", "Ha Noi", "Hà Nội", "HA NOI", "Thành phố Hà Nội"], "Hanoi, VN"),
        (["Paris, Ile-de-France", "Paris, Île-de-France", "paris, ile de france"],
         "Paris, Île-de-France, FR"),
        (["Ile-de-France", "Île-de-France"], "Île-de-France, FR"),
        (["Praha", "Prague", "Prague, Czechia"], "Prague, CZ"),
        (["Zurich", "Zürich"], "Zürich, CH"),
        (["Can Tho", "Cần Thơ"], "Cần Thơ, VN"),
        (["Hai Phong", "Haiphong"], "Haiphong, VN"),
        (["Montreal, Quebec", "Montréal, QC"], "Montréal, Québec, CA"),
        (["Munich, Bavaria", "München, Bayern"], "Munich, Bavaria, DE"),
        (["Bengaluru", "Bangalore"], "Bengaluru, Karnataka, IN"),
    ],
)  # fmt: skip
def test_every_spelling_of_a_place_gives_its_one_name(spellings: list[str], label: str) -> None:
    for text in spellings:
        assert [office_label(o) for o in locate(text).offices] == [label], text
    assert len(locate(" | ".join(spellings)).offices) == 1


def test_no_country_shows_one_region_name_two_ways() -> None:
    """Over the whole index: every region an office can show (tied to an admin1 code or
    not), grouped by spelling, has one spelling per country."""
    index = gazetteer.get_index()
    spellings: dict[tuple[str, str], set[str]] = defaultdict(set)
    for (country, _), name in index.region_names.items():
        spellings[(country, spelling_key(name))].add(name)
    for region in index.regions:
        if region.admin1 is None:
            spellings[(region.country, spelling_key(region.name))].add(region.name)
    assert {k: v for k, v in spellings.items() if len(v) > 1} == {}


def test_a_city_region_shows_its_citys_name() -> None:
    index = gazetteer.get_index()
    assert index.region_cities, "no city-region found"
    for place, city in index.region_cities.items():
        assert index.region_names[place] == index.cities[city].name, place


def test_every_region_read_under_each_spelling_shows_one_name() -> None:
    """Each tied region as shown, as GeoNames names it, and in plain lower-case ASCII,
    after its country: whichever regions the three readings find, they name them alike."""
    index = gazetteer.get_index()
    two_names = []
    for (country, admin1), shown in index.region_names.items():
        country_name = index.country_by_code[country].name
        forms = {shown, index.admin1_names[(country, admin1)], fold(shown)}
        regions = {
            tuple(o.region for o in locate(f"{f}, {country_name}").offices if o.region)
            for f in forms
        } - {()}  # a form read as its country only is a lookup miss, not a second name
        if len(regions) > 1:
            two_names.append((country, forms, regions))
    assert two_names == []


def test_every_big_city_read_with_or_without_its_marks_is_one_place() -> None:
    index = gazetteer.get_index()
    two_places = []
    for city in index.cities:
        if city.population < 500_000 or city.name.isascii():
            continue
        country_name = index.country_by_code[city.country].name
        found = {
            (o.geonameid, o.city, o.region)
            for text in (city.name, fold(city.name))
            for o in locate(f"{text}, {country_name}").offices
        }
        if len(found) > 1:
            two_places.append((city.name, found))
    assert two_places == []
