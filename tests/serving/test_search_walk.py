"""A word plus filters, newest first (serving.web_search): the short walk of the list index,
the GIN scan it falls back to, and the prefix split, on 2,400 real rows, called as the
web role and checked against a reading of the same rows that uses neither (the text
matched by a plain `@@` as the owner, the filters in Python)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

import psycopg
import pytest
from psycopg.rows import dict_row

from pipeline.db.connect import Database
from serving_sync import search
from serving_sync.search import UNKNOWN, Filters
from tests.serving.conftest import NOW, job_row, seed_for_reading
from tests.serving.test_search_sql import _matches, _newest, all_pages

ROWS = 2400
# In two of the newest postings and the oldest 60: a walk of the newest ones finds fewer
# than a page.
OLD_WORD = "zephyrine"
WIDE_PREFIX = "zorb"


def _row(i: int) -> dict:
    row = job_row(i)
    # Older as i grows (dated or first seen), so the newest entries are the small i.
    row["first_seen_at"] = NOW - timedelta(days=i, hours=3)
    if row["posted_at"] is not None:
        row["posted_at"] = NOW - timedelta(days=i, hours=2)
    if i in (5, 9) or i >= ROWS - 60:
        row["description"] += f" Bonus: {OLD_WORD} tooling."
    if i % 5 == 0:  # 60 words under one prefix: too many to write it as its words
        row["description"] += f" Also {WIDE_PREFIX}{(i // 5) % 60:02d}."
    return row


@dataclass(frozen=True)
class Walked:
    """The module's rows, seeded once: every test here only reads them."""

    rows: list[dict]
    serving: Database
    web_url: str


@pytest.fixture(scope="module")
def walked(module_serving: Database) -> Walked:
    rows = [_row(i) for i in range(ROWS)]
    return Walked(rows, module_serving, seed_for_reading(module_serving, rows))


@pytest.fixture
def many(walked: Walked) -> list[dict]:
    return walked.rows


@pytest.fixture
def serving(walked: Walked) -> Database:
    return walked.serving


@pytest.fixture
def web_conn(walked: Walked) -> Iterator[psycopg.Connection]:
    # A connection of its own per test: tests change its settings (list_walk_rows).
    with psycopg.connect(walked.web_url, autocommit=True, row_factory=dict_row) as conn:
        yield conn


def _expected(serving, rows: list[dict], filters: Filters) -> list[int]:
    with psycopg.connect(serving.url) as conn:
        matching = {
            r[0]
            for r in conn.execute(
                # The query as typed (its prefix a partial match): no lexicon involved.
                "SELECT id FROM serving.jobs WHERE search_tsv @@ serving.typed_tsquery(%s, %s)",
                (filters.q, search.prefix_applies(filters.q)),
            )
        }
    return _newest([r for r in rows if r["id"] in matching and _matches(r, filters)])


def _index_scans(serving) -> dict[str, int]:
    with psycopg.connect(serving.url, autocommit=True) as conn:
        return {
            r[0]: r[1]
            for r in conn.execute(
                "SELECT indexrelname, idx_scan FROM pg_stat_user_indexes WHERE schemaname = 'serving'"
            )
        }


def _scans_by_one_search(serving, conn: psycopg.Connection, filters: Filters) -> dict[str, int]:
    """Index scans by one search, from the server's own counters (flushed on request)."""
    before = _index_scans(serving)
    search.search(conn, search.SearchRequest(filters, limit=20))
    conn.execute("SELECT pg_stat_force_next_flush()")
    for _ in range(50):
        after = _index_scans(serving)
        if after != before:
            break
        time.sleep(0.1)
    return {name: after[name] - before.get(name, 0) for name in after}


def _walk_size(serving, filters: Filters, page_rows: int, cap: int = 150000) -> int:
    """serving.list_walk_size for this request, as web_search computes it."""
    with psycopg.connect(serving.url) as conn:
        return conn.execute(
            "SELECT serving.list_walk_size(%s, %s, serving.web_match("
            f"serving.web_tsquery(%s, %s), {search.FILTERS_SQL}))",
            (cap, page_rows, *search.filter_args(filters)),
        ).fetchone()[0]


CASES = {
    "broad_word_broad_filter": Filters(q="engineer", work_mode=(UNKNOWN, "remote")),
    "two_words_prefix_country": Filters(q="data engin", country=("US",)),
    "prefix_with_salary_and_days": Filters(q="engin", has_salary=True, posted_within_days=900),
    "diacritics_and_job_type": Filters(q="ke toan", job_type=(UNKNOWN,)),
    "old_rare_word_source": Filters(q=OLD_WORD, source=("lever", "greenhouse")),
    "exclusion_and_company": Filters(q="-senior engin", company=("Acme", UNKNOWN)),
    "or_and_employment": Filters(q="designer or intern", employment_type=("full_time",)),
    "salary_floor": Filters(q="engineer", salary_min=Decimal(10000), salary_currency="EUR"),
    "wide_prefix_country": Filters(q=WIDE_PREFIX, country=("DE",)),
}


@pytest.mark.parametrize("case", CASES)
def test_a_word_with_filters_pages_exactly_the_matching_postings_with_or_without_the_walk(
    many, serving, web_conn, case
) -> None:
    filters = CASES[case]
    expected = _expected(serving, many, filters)
    assert len(expected) > 7, "the case must fill more than one page"
    walked = all_pages(web_conn, filters, limit=7)
    web_conn.execute("SET jobharbor.list_walk_rows = 0")
    unwalked = all_pages(web_conn, filters, limit=7)
    assert walked == expected
    assert unwalked == expected


def test_a_broad_combination_is_answered_from_the_walk_without_the_text_index(
    many, serving, web_conn
) -> None:
    broad = CASES["broad_word_broad_filter"]
    assert 1000 <= _walk_size(serving, broad, 21) < ROWS
    scans = _scans_by_one_search(serving, web_conn, broad)
    assert scans["jobs_list_idx"] >= 1
    assert scans["jobs_search_tsv_idx"] == 0


def test_a_walk_that_misses_the_old_matches_falls_back_to_the_whole_answer(
    many, serving, web_conn
) -> None:
    old = CASES["old_rare_word_source"]
    # The walk runs, over fewer entries than lie before the old matches, and finds a
    # short page (the two newest) ...
    assert 10 < _walk_size(serving, old, 8) < ROWS - 60
    # ... which is not the answer: every matching posting is.
    assert all_pages(web_conn, old, limit=7) == _expected(serving, many, old)


def test_a_combination_too_rare_for_the_walk_skips_it(many, serving, web_conn) -> None:
    filters = CASES["two_words_prefix_country"]
    assert _walk_size(serving, filters, 8, cap=100) == 0  # would need >= 1,000 entries
    web_conn.execute("SET jobharbor.list_walk_rows = 100")
    assert all_pages(web_conn, filters, limit=7) == _expected(serving, many, filters)


def test_a_window_walk_answers_a_short_page_exactly_without_the_text_index(
    many, serving, web_conn
) -> None:
    recent = Filters(q=OLD_WORD, posted_within_days=30)  # two matches in the window
    expected = _expected(serving, many, recent)
    assert len(expected) == 2
    assert all_pages(web_conn, recent, limit=7) == expected
    scans = _scans_by_one_search(serving, web_conn, recent)
    assert scans["jobs_list_idx"] >= 1
    assert scans["jobs_search_tsv_idx"] == 0


@pytest.mark.parametrize("setting", ["lots", "-5", "", "1e9"])
def test_a_walk_setting_that_is_not_a_count_means_the_default(serving, setting) -> None:
    with psycopg.connect(serving.url) as conn:
        conn.execute("SELECT set_config('jobharbor.list_walk_rows', %s, false)", (setting,))
        assert conn.execute("SELECT serving.list_walk_rows()").fetchone()[0] == 150000
        conn.execute("SET jobharbor.list_walk_rows = 0")
        assert conn.execute("SELECT serving.list_walk_rows()").fetchone()[0] == 0


def test_a_prefix_too_wide_to_write_as_words_takes_the_split(many, serving) -> None:
    """The wide_prefix_country case above pages exactly through the prefix split: its
    prefix stays a partial match and the rest (one country) is rare enough to split."""
    with psycopg.connect(serving.url) as conn:
        tsq = conn.execute("SELECT serving.web_tsquery(%s, true)::text", (WIDE_PREFIX,))
        # The prefix stays a partial match (no posting has a word stemmed so: no stems).
        assert tsq.fetchone()[0] == f"'{WIDE_PREFIX}':*"
        rest = conn.execute(
            "SELECT (serving.estimated_rows(serving.web_match("
            f"NULL, {search.FILTERS_SQL}))).matching",
            search.filter_args(Filters(country=("DE",)))[2:],
        ).fetchone()[0]
    assert rest <= 2000
