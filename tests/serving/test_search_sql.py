"""Search, filters and facets on the real serving database, called as the web role,
checked against a plain Python reading of the same rows."""

from __future__ import annotations

import time
from collections import Counter
from datetime import timedelta
from decimal import Decimal
from typing import Any

import psycopg
import pytest

from pipeline.normalize.salary import annualized, reference_rates
from serving_sync import search
from serving_sync.search import UNKNOWN, Filters, SearchRequest
from tests.serving.conftest import NOW, insert_jobs, job_row


def _values(row: dict[str, Any], group: str) -> list[str]:
    """A row's values in a group as the filters see them; [] means unknown."""
    column = {"country": "countries", "region": "regions", "city": "cities"}.get(group)
    if column:
        return list(row[column])
    if group == "employment_type":  # a set; none stated is unknown
        return list(row[group])
    value = row[group]
    return [] if value in (None, UNKNOWN) else [value]


def _matches(row: dict[str, Any], filters: Filters, skip: str | None = None) -> bool:
    for group in search.GROUPS:
        wanted = filters.values(group)
        if not wanted or group == skip:
            continue
        have = _values(row, group)
        if not (set(have) & set(wanted) or (UNKNOWN in wanted and not have)):
            return False
    sort_at = row["posted_at"] or row["first_seen_at"]
    if filters.posted_within_days and sort_at < NOW - timedelta(days=filters.posted_within_days):
        return False
    has_salary = row["salary_min"] is not None or row["salary_max"] is not None
    if filters.has_salary is not None and has_salary != filters.has_salary:
        return False
    if filters.salary_min is not None:
        return _salary_reaches(row, filters.salary_min, filters.salary_currency)
    return True


def _salary_reaches(row: dict[str, Any], amount: Decimal, currency: str | None) -> bool:
    """salary_min read plainly: the yearly top in the asked currency, else in euros."""
    yearly = annualized(
        row["salary_min"], row["salary_max"], row["salary_period"], row["salary_currency"]
    )
    if yearly is None:
        return False
    if row["salary_currency"] == currency:
        top = yearly.high if yearly.high is not None else yearly.low
        return top is not None and top >= amount
    asked_in_eur = reference_rates().to_eur(amount, currency)
    return None not in (asked_in_eur, yearly.top_eur) and yearly.top_eur >= asked_in_eur


def _newest(rows: list[dict[str, Any]]) -> list[int]:
    ordered = sorted(rows, key=lambda r: (r["posted_at"] or r["first_seen_at"], r["id"]))
    return [r["id"] for r in reversed(ordered)]


def all_pages(conn: psycopg.Connection, filters: Filters, sort: str = "newest", limit: int = 7):
    ids: list[int] = []
    cursor = None
    for _ in range(100):
        page = search.search(conn, SearchRequest(filters, sort, cursor, limit))
        ids.extend(item["id"] for item in page.items)
        if page.next_cursor is None:
            return ids
        cursor = search.decode_cursor(page.next_cursor)
    raise AssertionError("paging did not end")


FILTER_CASES = {
    "country": Filters(country=("VN",)),
    "country_or": Filters(country=("DE", "CA")),
    "country_unknown": Filters(country=(UNKNOWN,)),
    "country_or_unknown": Filters(country=("US", UNKNOWN)),
    "region": Filters(region=("Ontario",)),
    "region_unknown": Filters(region=(UNKNOWN,)),
    "city": Filters(city=("Hà Nội", "Toronto")),
    "city_unknown": Filters(city=(UNKNOWN,)),
    "work_mode": Filters(work_mode=("remote",)),
    "work_mode_unknown_or_hybrid": Filters(work_mode=(UNKNOWN, "hybrid")),
    "work_mode_onsite": Filters(work_mode=("onsite",)),
    "job_type": Filters(job_type=("intern",)),
    "job_type_unknown": Filters(job_type=(UNKNOWN,)),
    "employment_type": Filters(employment_type=("part_time",)),
    "employment_type_contract": Filters(employment_type=("contract",)),
    "employment_type_or": Filters(employment_type=("part_time", "contract")),
    "employment_type_unknown": Filters(employment_type=(UNKNOWN,)),
    "source": Filters(source=("lever", "vietnamworks")),
    "company": Filters(company=("Acme",)),
    "company_unknown": Filters(company=(UNKNOWN,)),
    "posted_within_days": Filters(posted_within_days=10),
    "has_salary": Filters(has_salary=True),
    "has_no_salary": Filters(has_salary=False),
    "salary_min_currency": Filters(salary_min=Decimal(30000), salary_currency="EUR"),
    # Across currencies through the reference rates: EUR and USD postings, yearly.
    "salary_min_other_currency": Filters(salary_min=Decimal(4_000_000), salary_currency="JPY"),
    "three_groups": Filters(
        country=("VN", "US"), work_mode=("remote", UNKNOWN), source=("greenhouse",)
    ),
    "everything": Filters(
        country=("VN", "US", UNKNOWN),
        work_mode=("remote", "unknown", "hybrid", "onsite"),
        job_type=(UNKNOWN, "intern"),
        company=("Acme", UNKNOWN),
        posted_within_days=40,
    ),
}


@pytest.mark.parametrize("case", FILTER_CASES)
def test_each_filter_returns_exactly_the_matching_postings_newest_first(
    seeded, web_conn, case
) -> None:
    filters = FILTER_CASES[case]
    expected = _newest([r for r in seeded if _matches(r, filters)])
    assert expected, "the case must select something"
    assert len(expected) < len(seeded) or case == "everything"
    assert all_pages(web_conn, filters) == expected


def _facet_oracle(rows, filters: Filters, group: str) -> tuple[Counter, int]:
    context = [r for r in rows if _matches(r, filters, skip=group)]
    counts: Counter = Counter()
    for row in context:
        counts.update(_values(row, group) or [UNKNOWN])
    return counts, len(context)


@pytest.mark.parametrize(
    "filters",
    [
        Filters(),
        Filters(country=("VN",), work_mode=("remote", UNKNOWN)),
        Filters(company=(UNKNOWN,)),
        Filters(employment_type=("full_time",)),
    ],
    ids=["none", "country_and_work_mode", "company_unknown", "employment_type"],
)
def test_facets_are_disjunctive_and_buckets_plus_unknown_add_up(seeded, web_conn, filters) -> None:
    found = search.counts(web_conn, filters, search.FACET_GROUPS, budget_ms=5000)
    assert found.total == sum(_matches(r, filters) for r in seeded)
    for group in search.FACET_GROUPS:
        counts = found.groups[group]
        expected, denominator = _facet_oracle(seeded, filters, group)
        assert counts is not None
        assert counts.denominator == denominator, group
        assert dict(counts.buckets) == {UNKNOWN: 0, **expected}, group
        assert counts.unknown == expected[UNKNOWN]
        if group in search.ARRAY_GROUPS:
            # A posting in two countries counts in both: known postings + unknown = total.
            known_rows = sum(bool(_values(r, group)) for r in seeded if _matches(r, filters, group))
            assert known_rows + counts.unknown == counts.denominator
        else:
            assert sum(c for _, c in counts.buckets) + counts.other == counts.denominator
        assert counts.coverage == pytest.approx(
            (denominator - counts.unknown) / denominator, abs=1e-4
        )


def test_a_filtered_group_still_counts_its_other_values(seeded, web_conn) -> None:
    found = search.counts(
        web_conn, Filters(country=("VN",)), ("country", "work_mode"), budget_ms=5000
    )
    countries = dict(found.groups["country"].buckets)
    assert countries["US"] > 0
    assert countries["DE"] > 0
    assert found.groups["work_mode"].denominator == found.total  # other groups: VN only


def test_top_n_keeps_unknown_and_counts_the_rest_as_other(seeded, web_conn) -> None:
    found = search.counts(web_conn, Filters(), ("company",), budget_ms=5000, top_n=1)
    counts = found.groups["company"]
    assert [v for v, _ in counts.buckets] == ["Acme", UNKNOWN]
    assert counts.other > 0
    assert sum(c for _, c in counts.buckets) + counts.other == counts.denominator == len(seeded)


def _titles(conn, q: str, **kw) -> set[str]:
    page = search.search(conn, SearchRequest(Filters(q=q, **kw), limit=50))
    return {item["title"] for item in page.items}


def test_the_last_plain_word_also_matches_as_a_prefix_from_three_letters_wherever_it_stands(
    seeded, web_conn
) -> None:
    assert _titles(web_conn, "engin") == {
        "Data Engineer",
        "Senior Software Engineer",
        "Engineering Manager",
    }
    assert _titles(web_conn, "data engin") == {"Data Engineer"}
    assert _titles(web_conn, "en") == set()  # two letters: whole words only
    assert _titles(web_conn, '"engin"') == set()  # quoted: exact
    assert _titles(web_conn, "-senior engin") == {"Data Engineer", "Engineering Manager"}
    # The last plain word, wherever exclusions and phrases stand: the order does not matter.
    assert _titles(web_conn, "engin -senior") == {"Data Engineer", "Engineering Manager"}
    assert _titles(web_conn, 'engin "data engineer"') == {"Data Engineer"}
    assert _titles(web_conn, "engi ") == set()  # a trailing space: the word is finished
    # ("engin " is a finished word too, but also the English stem of "engineer": it finds it)


def test_search_ignores_diacritics_both_ways(seeded, web_conn) -> None:
    vietnamese = {"Kế toán trưởng", "Nhân viên kế toán tổng hợp"}
    assert _titles(web_conn, "ke toan") == vietnamese
    assert _titles(web_conn, "KẾ TOÁN") == vietnamese
    assert _titles(web_conn, "ha noi", country=("VN",)) >= {"Kế toán trưởng"}


def test_websearch_syntax_phrases_or_and_exclusion(seeded, web_conn) -> None:
    assert _titles(web_conn, '"data engineer"') == {"Data Engineer"}
    assert _titles(web_conn, "designer or intern") == {"Product Designer", "Marketing Intern"}
    assert "Senior Software Engineer" not in _titles(web_conn, "engineer -senior")


def test_items_say_whether_their_date_is_posted_or_first_seen(seeded, web_conn) -> None:
    page = search.search(web_conn, SearchRequest(limit=50))
    by_id = {r["id"]: r for r in seeded}
    for item in page.items:
        row = by_id[item["id"]]
        assert item["date_kind"] == ("posted" if row["posted_at"] else "first_seen")
        assert item["date"] == (row["posted_at"] or row["first_seen_at"])


def test_relevance_ranks_title_matches_first_and_pages_cleanly(seeded, serving, web_conn) -> None:
    with psycopg.connect(serving.url) as owner:  # "data" only in the description
        insert_jobs(owner, [job_row(300, title="Office Manager", description="data data")])
    filters = Filters(q="data")
    page = search.search(web_conn, SearchRequest(filters, "relevance", limit=3))
    assert {item["title"] for item in page.items} == {"Data Engineer", "Graduate Data Analyst"}
    ranks = [item["rank"] for item in page.items]
    assert ranks == sorted(ranks, reverse=True)
    filters = Filters(q="engineer")  # also "engineering": the last word is a prefix
    ids = all_pages(web_conn, filters, "relevance", limit=4)
    expected = {r["id"] for r in seeded if "Engineer" in r["title"]}
    assert len(ids) == len(set(ids))
    assert set(ids) == expected


def test_pages_neither_repeat_nor_skip_while_rows_change(seeded, serving, web_conn) -> None:
    """A sync between pages adds newer rows, removes some and edits others; rows that
    stayed put are each seen exactly once."""
    seen: list[int] = []
    cursor = None
    removed = {1001, 1030, 1059}
    edited = {1002, 1031}
    for page_no in range(100):
        page = search.search(web_conn, SearchRequest(Filters(), "newest", cursor, 5))
        seen.extend(item["id"] for item in page.items)
        if page_no == 1:
            with psycopg.connect(serving.url) as owner:
                insert_jobs(
                    owner, [job_row(200 + i, first_seen_at=NOW, posted_at=NOW) for i in range(5)]
                )
                owner.execute("DELETE FROM serving.jobs WHERE id = ANY(%s)", (list(removed),))
                owner.execute(
                    "UPDATE serving.jobs SET title = title || ' (edited)' WHERE id = ANY(%s)",
                    (list(edited),),
                )
        if page.next_cursor is None:
            break
        cursor = search.decode_cursor(page.next_cursor)
    assert len(seen) == len(set(seen))
    stayed = {r["id"] for r in seeded} - removed
    assert stayed <= set(seen)


def test_a_part_past_its_budget_is_unavailable_never_a_wrong_number(
    seeded, serving, web_conn
) -> None:
    # A sync holding the table (or just a slow query) must not produce partial counts.
    with psycopg.connect(serving.url) as owner:
        owner.execute("LOCK TABLE serving.jobs IN ACCESS EXCLUSIVE MODE")
        found = search.counts(web_conn, Filters(), ("country", "work_mode"), budget_ms=50)
    assert found.total is None
    assert found.groups == {"country": None, "work_mode": None}
    # The same connection answers again once the table is free.
    again = search.counts(web_conn, Filters(), ("work_mode",), budget_ms=5000)
    assert again.total == len(seeded)


def test_the_parts_of_one_request_share_its_budget(seeded, serving, web_conn) -> None:
    # Four passes (the shared one and one per filtered group) against a locked table:
    # with a budget per part this would take 4 x 300 ms; shared, about 300 ms.
    filters = Filters(country=("VN",), work_mode=("remote",), source=("lever",))
    with psycopg.connect(serving.url) as owner:
        owner.execute("LOCK TABLE serving.jobs IN ACCESS EXCLUSIVE MODE")
        started = time.monotonic()
        found = search.counts(
            web_conn, filters, ("country", "work_mode", "source", "job_type"), budget_ms=300
        )
        elapsed = time.monotonic() - started
    assert set(found.groups.values()) == {None}
    assert elapsed < 0.9


def test_injection_in_every_value_is_only_data(seeded, serving, web_conn) -> None:
    evil = "x'); DELETE FROM serving.jobs; --"
    filters = Filters(
        q=evil,
        **{g: (evil,) for g in search.GROUPS if g not in ("country", "work_mode", "job_type")},
    )
    assert search.search(web_conn, SearchRequest(filters)).items == ()
    search.counts(web_conn, filters, search.FACET_GROUPS, budget_ms=5000)
    with psycopg.connect(serving.url) as owner:
        assert owner.execute("SELECT count(*) FROM serving.jobs").fetchone()[0] == len(seeded)


@pytest.mark.parametrize(
    "text",
    ["Data ENGINEER", "Kế toán HÀ NỘI", "Straße in Zürich", "plain ascii, 123!", "ǅemal Łódź"],
)
def test_sql_folding_matches_python_folding_for_ascii_and_not(serving, text) -> None:
    from serving_sync.text import fold

    with psycopg.connect(serving.url) as owner:
        assert owner.execute("SELECT serving.fold(%s)", (text,)).fetchone()[0] == fold(text)
