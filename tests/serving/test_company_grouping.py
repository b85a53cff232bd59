"""The list grouped by company (group=company): at most 3 postings of each company, its
first 3 in the list's order over the whole list, the third carrying how many more the
company has under the same filters; paging through it lists every other posting once
and none twice, on the real serving database as the web role."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from serving_sync import search


def _walk(web_conn, limit: int, **raw: str) -> list[dict[str, Any]]:
    """Every item of a list, page after page by its next_cursor."""
    params = {k: [v] for k, v in raw.items()}
    items: list[dict[str, Any]] = []
    cursor = None
    for _ in range(100):
        asked = {**params, "limit": [str(limit)], **({"cursor": [cursor]} if cursor else {})}
        page = search.search(web_conn, search.parse_request(asked))
        items += page.items
        cursor = page.next_cursor
        if cursor is None:
            return items
    raise AssertionError("the list never ended")


def _capped(items: list[dict[str, Any]]) -> list[int]:
    """The ungrouped list's ids with only each company's first 3 kept, in its order."""
    seen: Counter[str] = Counter()
    kept = []
    for item in items:
        company = item["company"]
        if company is not None:
            seen[company] += 1
            if seen[company] > search.COMPANY_CAP:
                continue
        kept.append(item["id"])
    return kept


LISTS = {
    "newest": {},
    "filtered": {"country": "VN"},
    "words": {"q": "engineer"},
    "relevance": {"q": "engineer OR analyst OR designer", "sort": "relevance"},
    "undated": {"posted_within_days": "30", "include_undated": "true"},
}


@pytest.mark.parametrize("case", LISTS)
@pytest.mark.parametrize("limit", [2, 5, 50])
def test_paging_lists_each_companys_first_three_once_in_the_lists_order(
    seeded, web_conn, case, limit
) -> None:
    raw = LISTS[case]
    every = _walk(web_conn, 50, **raw)
    assert len({item["id"] for item in every}) == len(every)  # the seed has no duplicates
    grouped = _walk(web_conn, limit, **raw, group="company")
    ids = [item["id"] for item in grouped]
    assert ids == _capped(every)  # same order, none twice, none skipped
    per_company = Counter(item["company"] for item in grouped if item["company"])
    assert per_company
    assert max(per_company.values()) <= 3


def test_a_short_walk_still_pages_exactly(seeded, web_conn, monkeypatch) -> None:
    # One web_search page (51 rows) a grouped page: the seed's 60 rows take two walks,
    # and a page stopped by its walk goes on from there.
    monkeypatch.setattr(search, "COMPANY_WALK_PAGES", 1)
    every = _walk(web_conn, 50, **{})
    assert [i["id"] for i in _walk(web_conn, 50, group="company")] == _capped(every)


@pytest.mark.parametrize("case", LISTS)
def test_the_third_listed_posting_says_exactly_how_many_more_its_company_has(
    seeded, web_conn, case
) -> None:
    raw = LISTS[case]
    grouped = _walk(web_conn, 7, **raw, group="company")
    everyone = Counter(item["company"] for item in _walk(web_conn, 50, **raw))
    listed: Counter[str] = Counter()
    for item in grouped:
        company = item["company"]
        listed[company] += 1
        more = item["more_at_company"]
        if company is not None and listed[company] == 3 and everyone[company] > 3:
            assert more == {
                "company": company,
                "slug": company.lower(),
                "count": everyone[company] - 3,
            }
        else:
            assert more is None, item
    assert any(item["more_at_company"] for item in grouped)


def test_postings_without_a_company_are_not_grouped(seeded, web_conn) -> None:
    unnamed = [row["id"] for row in seeded if row["company"] is None]
    grouped = _walk(web_conn, 20, group="company")
    assert sorted(i["id"] for i in grouped if i["company"] is None) == sorted(unnamed)


def test_a_grouped_cursor_belongs_to_the_grouped_list(seeded, web_conn) -> None:
    first = search.search(web_conn, search.parse_request({"group": ["company"], "limit": ["2"]}))
    assert first.next_cursor is not None
    with pytest.raises(search.InvalidParameter) as refused:
        search.parse_request({"cursor": [first.next_cursor]})
    assert refused.value.param == "cursor"


def test_an_unknown_grouping_is_refused_naming_group() -> None:
    with pytest.raises(search.InvalidParameter) as refused:
        search.parse_request({"group": ["title"]})
    assert refused.value.param == "group"
    assert search.parse_request({"group": ["none"]}).group == "none"


def test_relevance_groups_within_the_ranked_candidates_only(seeded, web_conn, monkeypatch) -> None:
    # Relevance ranks the newest N matches: a company's first 3 are its first among them.
    monkeypatch.setattr(search, "RELEVANCE_CANDIDATES", 12)
    raw = {"q": "engineer OR analyst OR designer OR intern", "sort": "relevance"}
    every = _walk(web_conn, 50, **raw)
    assert len(every) == 12
    for limit in (1, 2, 5):
        grouped = _walk(web_conn, limit, **raw, group="company")
        assert [i["id"] for i in grouped] == _capped(every)


def test_the_web_role_counts_what_the_pages_before_a_cursor_listed(seeded, web_conn) -> None:
    every = _walk(web_conn, 50)
    # The cursor after ten postings: the postings up to and including it are before it.
    page = search.search(web_conn, search.parse_request({"limit": ["10"]}))
    position = search.decode_cursor(page.next_cursor)
    assert position.id == every[9]["id"]
    before = Counter(i["company"] for i in every[:10] if i["company"])
    names = ["Acme", "Globex", "Initech", "Nobody"]
    after = ("newest", position.at, None, position.id, names, 1000)
    args = (*search.filter_args(search.Filters()), *after)
    rows = web_conn.execute(search.COMPANY_LISTED_SQL, args).fetchall()
    assert {row["company"]: row["listed"] for row in rows} == {
        name: min(before[name], 3) for name in names
    }
