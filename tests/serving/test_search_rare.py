"""A rare word alone (serving.web_search's rare path): its page comes from a statement with
a kept plan when serving.text_is_rare says so from serving.lexeme_shares (the text
column's statistics, copied by the sync), and it lists exactly what the planned query
lists; anything it cannot estimate goes the planned way. On 2,400 real rows, read as
the web role and checked against a plain `@@` as the owner."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import psycopg
import pytest
from psycopg.rows import dict_row

from pipeline.db.connect import Database
from serving_sync import lexicon, search
from serving_sync.search import Filters
from tests.serving.conftest import NOW, Seeder, insert_jobs, job_row, seed_for_reading
from tests.serving.test_search_sql import _newest, all_pages

ROWS = 2400
RARE = "quillwort"  # in 11 postings, old and new: pages of 3 cross several dates
RARE_AT = (3, 4, 17, 230, 231, 900, 1200, 1201, 1800, 2300, 2399)
COMMON = "together"  # in every description (job_row)
WIDE_PREFIX = "zorb"  # 60 words under it: it stays a partial match (prefix_words)


def _row(i: int) -> dict:
    row = job_row(i)
    row["first_seen_at"] = NOW - timedelta(days=i // 2, hours=3)  # pairs share a day
    if row["posted_at"] is not None:
        row["posted_at"] = NOW - timedelta(days=i // 2, hours=2)
    if i in RARE_AT:
        row["description"] += f" Bonus: {RARE} tooling."
    if i % 5 == 0:
        row["description"] += f" Also {WIDE_PREFIX}{(i // 5) % 60:02d}."
    return row


@dataclass(frozen=True)
class Rare:
    """The module's rows, seeded and analyzed once, their shares kept as a sync keeps
    them; tests only read them (a test that changes the shares does so in a
    transaction it rolls back)."""

    rows: list[dict]
    serving: Database
    web_url: str


@pytest.fixture(scope="module")
def rare(module_serving: Database) -> Rare:
    rows = [_row(i) for i in range(ROWS)]
    web_url = seed_for_reading(module_serving, rows)
    with module_serving.connect() as conn:
        assert lexicon.keep_shares(conn) > 0
    return Rare(rows, module_serving, web_url)


@pytest.fixture
def web_conn(rare: Rare) -> Iterator[psycopg.Connection]:
    with psycopg.connect(rare.web_url, autocommit=True, row_factory=dict_row) as conn:
        yield conn


def _expected(rare: Rare, q: str) -> list[int]:
    with psycopg.connect(rare.serving.url) as conn:
        matching = {
            r[0]
            for r in conn.execute(
                "SELECT id FROM serving.jobs WHERE search_tsv @@ serving.typed_tsquery(%s, %s)",
                (q, search.prefix_applies(q)),
            )
        }
    return _newest([r for r in rare.rows if r["id"] in matching])


def _is_rare(conn: psycopg.Connection, q: str, page_rows: int = 21) -> bool:
    """serving.text_is_rare for the query as web_search matches it."""
    return conn.execute(
        "SELECT serving.text_is_rare(serving.web_tsquery(%s, %s), %s) AS rare",
        (q, search.prefix_applies(q), page_rows),
    ).fetchone()["rare"]


def test_a_rare_word_is_estimated_rare_and_pages_exactly_its_matches_newest_first(
    rare: Rare, web_conn: psycopg.Connection
) -> None:
    with psycopg.connect(rare.serving.url, row_factory=dict_row) as conn:
        assert _is_rare(conn, RARE)
    expected = _expected(rare, RARE)
    assert len(expected) == len(RARE_AT)
    for limit in (1, 3, 20):
        assert all_pages(web_conn, Filters(q=RARE), limit=limit) == expected


def test_the_rare_path_lists_what_the_planned_query_lists(rare: Rare) -> None:
    """The same pages with the shares kept (the rare path) and without them (the
    planned query), item for item."""
    queries = (RARE, f"{RARE} ", f'"{RARE} tooling"', f"{RARE}s or bonus ")
    with psycopg.connect(rare.serving.url, row_factory=dict_row) as conn:
        kept = {q: _pages(conn, q) for q in queries}
        assert all(_is_rare(conn, q) for q in queries)
        conn.execute("DELETE FROM serving.lexeme_shares")  # rolled back below
        assert not any(_is_rare(conn, q) for q in queries)
        planned = {q: _pages(conn, q) for q in queries}
        conn.rollback()
    assert kept == planned
    assert all(kept[q] for q in queries)


def _pages(conn: psycopg.Connection, q: str) -> list[list[dict]]:
    pages, cursor = [], None
    while True:
        page = search.search(conn, search.SearchRequest(Filters(q=q), cursor=cursor, limit=4))
        pages.append(list(page.items))
        if page.next_cursor is None:
            return pages
        cursor = search.decode_cursor(page.next_cursor)


@pytest.mark.parametrize(
    "q",
    [
        COMMON,  # in every posting: its share is listed, far past the bound
        f"{COMMON} or {RARE}",  # an OR counts every operand
        f"-{COMMON} {RARE}",  # a negation: no share to go by
        WIDE_PREFIX,  # a prefix left a partial match: no share to go by
    ],
)
def test_what_is_common_or_cannot_be_estimated_is_not_rare(rare: Rare, q: str) -> None:
    with psycopg.connect(rare.serving.url, row_factory=dict_row) as conn:
        assert not _is_rare(conn, q)


@pytest.mark.parametrize("q", [COMMON, f"-{COMMON} {RARE}", WIDE_PREFIX])
def test_the_planned_way_still_lists_exactly_the_matches(
    rare: Rare, web_conn: psycopg.Connection, q: str
) -> None:
    assert all_pages(web_conn, Filters(q=q), limit=50) == _expected(rare, q)


def test_a_word_is_rare_only_against_enough_postings(rare: Rare) -> None:
    """The bound is sqrt(page_rows * postings): a word in 11 of 2,400 postings is rare;
    the same share of a billion postings (millions) is past sqrt(21e9), 145,000."""
    with psycopg.connect(rare.serving.url, row_factory=dict_row) as conn:
        assert _is_rare(conn, RARE)
        conn.execute("UPDATE pg_class SET reltuples = 1e9 WHERE oid = 'serving.jobs'::regclass")
        assert not _is_rare(conn, RARE)
        conn.rollback()


def test_the_shares_are_the_statistics_and_the_smallest_bounds_the_rest(rare: Rare) -> None:
    with psycopg.connect(rare.serving.url, row_factory=dict_row) as conn:
        shares = {
            r["lexeme"]: r["share"]
            for r in conn.execute("SELECT lexeme, share FROM serving.lexeme_shares")
        }
    assert shares[COMMON] == pytest.approx(1.0, abs=0.01)
    assert shares[""] == min(s for lexeme, s in shares.items() if lexeme)
    assert RARE not in shares or shares[RARE] <= 0.01


def test_a_table_never_analyzed_keeps_no_shares_and_searches_as_planned(serving) -> None:
    rows = [_row(i) for i in RARE_AT]
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, rows)
    with serving.connect() as conn:
        assert lexicon.keep_shares(conn) == 0
        assert conn.execute("SELECT count(*) AS n FROM serving.lexeme_shares").fetchone()["n"] == 0
        assert not _is_rare(conn, RARE)
        page = search.search(conn, search.SearchRequest(Filters(q=RARE), limit=50))
    assert [item["id"] for item in page.items] == _newest(rows)


def test_a_sync_keeps_the_shares_of_the_last_analyze(seed: Seeder) -> None:
    for title in ("Nurse", "Teacher", "Nurse assistant"):
        seed.posting(title=title)
    seed.sync()
    assert seed.serving("SELECT count(*) AS n FROM serving.lexeme_shares") == [{"n": 0}]
    seed.serving("ANALYZE serving.jobs")
    seed.sync()  # nothing changed: the shares are copied all the same
    nurse = seed.serving("SELECT share FROM serving.lexeme_shares WHERE lexeme = 'nurse'")
    assert nurse == [{"share": pytest.approx(2 / 3, abs=0.01)}]


def _pending_pages(seed: Seeder) -> int:
    """The text index's pending pages, moved into the index by asking (so: once)."""
    return seed.serving("SELECT gin_clean_pending_list('serving.jobs_search_tsv_idx') AS pages")[0][
        "pages"
    ]


def test_a_sync_leaves_no_pending_entries_for_searches_to_read(seed: Seeder) -> None:
    for title in ("Nurse", "Teacher", "Welder"):
        seed.posting(title=title)
    seed.sync()
    assert _pending_pages(seed) == 0
    # A write outside the sync does leave them: what the sync moved.
    seed.serving("UPDATE serving.jobs SET title = title || ' lead' WHERE title = 'Nurse'")
    assert _pending_pages(seed) >= 1
