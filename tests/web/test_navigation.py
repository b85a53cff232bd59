"""The search page's addresses, chips, position and title, as pure functions of the
request (web.navigation), and the cursor's position field."""

from __future__ import annotations

import base64
import json
from dataclasses import replace

import pytest

from serving_sync import search
from serving_sync.search import Cursor, InvalidParameter, decode_cursor, encode_cursor
from web import navigation


def request(**raw: str | list[str]) -> search.SearchRequest:
    return search.parse_request({k: v if isinstance(v, list) else [v] for k, v in raw.items()})


def test_the_canonical_address_drops_empty_and_default_parameters() -> None:
    query = request(q="engineer", sort="newest", salary_min="", skill_match="any")
    assert navigation.canonical_url(query, None) == "/?q=engineer"
    assert navigation.canonical_url(request(), None) == "/"
    raw = {"q": ["engineer"], "sort": ["newest"]}
    assert not navigation.is_canonical(raw, search.parse_request(raw))
    assert navigation.is_canonical({"q": ["engineer"]}, query)


def test_the_canonical_address_keeps_what_changes_the_list() -> None:
    query = request(q="data", sort="relevance", limit="5", country=["VN", "DE"])
    assert navigation.canonical_pairs(query, "abc") == [
        ("q", "data"),
        ("country", "VN"),
        ("country", "DE"),
        ("sort", "relevance"),
        ("limit", "5"),
        ("cursor", "abc"),
    ]


def test_a_minimum_salary_and_its_currency_are_one_chip_removed_together() -> None:
    query = request(salary_min="50000", salary_currency="EUR", country="VN")
    chips = navigation.chips(query)
    assert [c.label for c in chips] == ["Country: Viet Nam (VN)", "Salary at least 50,000 EUR"]
    assert chips[1].remove_url == "/?country=VN"
    assert navigation.filter_count(query) == 2


def test_removing_the_last_skill_drops_its_refinements() -> None:
    query = request(skill="python", skill_match="all", q="dev")
    (chip,) = navigation.chips(query)
    assert chip.remove_url == "/?q=dev"
    assert navigation.clear_url(query) == "/?q=dev"


def test_the_position_comes_from_the_cursor_and_is_unknown_for_an_old_one() -> None:
    first = search.SearchRequest(limit=20)
    assert navigation.position(first, 20, 408) == "1–20 of 408"
    later = search.SearchRequest(cursor=Cursor("newest", 7, None, None, 20), limit=20)
    assert navigation.position(later, 18, 408) == "21–38 of 408"
    old = search.SearchRequest(cursor=Cursor("newest", 7, None, None, None))
    assert navigation.position(old, 20, 408) is None


def test_the_cursor_carries_its_position_and_refuses_a_bad_one() -> None:
    cursor = Cursor("relevance", 7, None, 0.5, 40)
    assert decode_cursor(encode_cursor(cursor)) == cursor
    for bad in (-1, 0, "20", 2**40, 1.5):
        text = encode_cursor(Cursor("relevance", 7, None, 0.5, None))
        body = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        body["n"] = bad
        forged = base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")
        with pytest.raises(InvalidParameter):
            decode_cursor(forged)


def forge(body: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")


def test_the_cursor_carries_the_pages_before_it_and_refuses_a_bad_history() -> None:
    starts = tuple(Cursor("newest", 100 - n, None, None, 20 * n) for n in range(1, 4))
    cursor = Cursor("newest", 90, None, None, 80, back=starts)
    assert decode_cursor(encode_cursor(cursor)) == cursor
    assert search.previous_page(cursor, 20) == (
        True,
        encode_cursor(replace(starts[-1], back=starts[:-1])),
    )
    assert search.previous_page(starts[0], 20) == (True, None)  # the first page: no cursor
    beyond = Cursor("newest", 90, None, None, 80)  # its history cut off: first page only
    assert search.previous_page(beyond, 20) == (False, None)
    assert search.previous_page(None, 20) == (False, None)
    many = replace(cursor, back=starts * 4)  # only the last BACK_PAGES are written
    assert decode_cursor(encode_cursor(many)).back == (starts * 4)[-search.BACK_PAGES :]
    body = json.loads(base64.urlsafe_b64decode(encode_cursor(cursor) + "=="))
    bad_histories = (
        [body["b"][0]] * (search.BACK_PAGES + 1),  # longer than any page writes
        [{**body["b"][0], "s": "relevance"}],  # another sort's page
        [{"s": "newest"}],  # no id
        {"s": "newest", "i": 1, "u": 1},  # not a list
    )
    for history in bad_histories:
        with pytest.raises(InvalidParameter):
            decode_cursor(forge({**body, "b": history}))


def test_the_title_names_the_words_and_the_count() -> None:
    assert navigation.page_title(request(q="engineer"), 266) == "engineer — 266 jobs"
    assert navigation.page_title(request(country="VN"), 1) == "1 job matching your filters"
    assert navigation.page_title(request(), 408) == "Search jobs"
