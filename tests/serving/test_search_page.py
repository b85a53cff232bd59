"""One call per page (serving.web_page): the ungrouped list's page, its details and the
spelling check come back from one statement, and answer exactly what the separate
calls (web_search, web_page_details, web_spelling) answer; a query with a word no
posting has still gets its correction. On the real serving database as the web role."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from serving_sync import search
from serving_sync.search import SearchRequest


class CountingConnection(psycopg.Connection):
    """A real connection that counts the statements it sends (its round trips)."""

    statements = 0

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        self.statements += 1
        return super().execute(*args, **kwargs)


@pytest.fixture
def counting_conn(web_url: str):
    with CountingConnection.connect(web_url, autocommit=True, row_factory=dict_row) as conn:
        yield conn


def _request(**raw: str) -> SearchRequest:
    return search.parse_request({k: [v] for k, v in raw.items()})


def _separate(conn: psycopg.Connection, request: SearchRequest) -> list[dict[str, Any]]:
    """The page as web_search and web_page_details answer it, call by call."""
    sort = search.effective_sort(request.filters, request.sort)
    after = request.cursor
    position = (after.at, after.rank, after.id) if after else (None, None, None)
    rows = conn.execute(
        search.SEARCH_SQL,
        (*search.filter_args(request.filters), sort, *position, request.limit + 1,
         search.RELEVANCE_CANDIDATES),
    ).fetchall()  # fmt: skip
    ids = [r["id"] for r in rows[: request.limit]]
    details = conn.execute(search.PAGE_DETAILS_SQL, (ids, bool(request.filters.q))).fetchall()
    found = {d["id"]: d for d in details}
    empty = dict.fromkeys(search.DETAIL_COLUMNS)
    return [{**r, **{k: found.get(r["id"], empty)[k] for k in search.DETAIL_COLUMNS}} for r in rows]


@pytest.mark.parametrize(
    "raw",
    [
        {"q": "engineer"},
        {"q": "engin"},  # a prefix, written as its words
        {"q": "engineer", "sort": "relevance"},
        {"q": "engineer", "country": "DE", "remote": "hybrid"},  # the walk or the GIN scan
        {"country": "US"},  # no query: no description
        {"q": "data OR designer -senior", "limit": "2"},
        {"limit": "1"},
        {"q": "nothingmatchesthis"},
    ],
)
def test_the_one_call_answers_the_rows_and_details_of_the_separate_calls(
    seeded, web_conn, raw: dict[str, str]
) -> None:
    request = _request(**raw)
    one = search._list_rows(web_conn, request, None)
    assert [{k: r[k] for k in r if k not in search.SPELLING_COLUMNS} for r in one] == _separate(
        web_conn, request
    )
    assert all(r[k] is None for r in one for k in search.SPELLING_COLUMNS)


def test_the_one_call_pages_on_from_a_cursor_as_the_separate_calls(seeded, web_conn) -> None:
    first = search.search(web_conn, _request(q="engineer", limit="1"))
    assert first.next_cursor is not None
    request = _request(q="engineer", limit="1", cursor=first.next_cursor)
    one = search._list_rows(web_conn, request, None)
    assert [r["id"] for r in one] == [r["id"] for r in _separate(web_conn, request)]
    assert one[0]["id"] != first.items[0]["id"]


def test_the_extra_row_that_says_a_next_page_follows_gets_no_details(seeded, web_conn) -> None:
    rows = search._list_rows(web_conn, _request(q="engineer", limit="1"), None)
    assert len(rows) == 2, "the seed has two engineers or more"
    assert rows[0]["description"] is not None
    assert rows[1]["description"] is None


def test_a_page_of_known_words_is_one_statement(seeded, counting_conn) -> None:
    page = search.search(counting_conn, _request(q="engineer"))
    assert page.items
    assert page.corrected_query is None
    assert counting_conn.statements == 1


def test_a_page_of_a_typo_is_corrected_and_answers_the_corrected_query(
    seeded, counting_conn, web_conn
) -> None:
    typed = search.search(counting_conn, _request(q="engneer"))
    meant = search.search(web_conn, _request(q="engineer"))
    assert typed.corrected_query == "engineer"
    assert typed.items == meant.items
    assert typed.next_cursor == meant.next_cursor
    # The check and its page, the short word's variants, the corrected query's page.
    assert counting_conn.statements == 3


def test_an_unknown_word_without_a_correction_lists_the_query_as_typed(seeded, web_conn) -> None:
    page = search.search(web_conn, _request(q="xylophonist"))
    assert page.corrected_query is None
    assert page.items == ()


def test_the_spelling_rows_are_those_of_web_spelling(seeded, web_conn) -> None:
    request = _request(q="angineering data")
    check = search._spell_check(request.filters)
    assert check is not None
    rows = search._list_rows(web_conn, request, check)
    spelled = web_conn.execute(
        search.SPELLING_SQL, (list(check.folded), list(check.prefixes), None)
    ).fetchall()
    assert spelled, "a word no posting has"
    assert all(r["id"] is None for r in rows)
    assert sorted(
        ((r["unknown_word"], r["candidate"], r["share"]) for r in rows), key=repr
    ) == sorted(((r["word"], r["candidate"], r["share"]) for r in spelled), key=repr)


def test_the_web_role_cannot_have_the_page_check_more_words_than_the_spelling(
    seeded, web_conn
) -> None:
    request = _request(q="engineer")
    check = search._SpellCheck((), tuple(f"word{c}" for c in "abcdef"), ())
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        search._list_rows(web_conn, request, check)
