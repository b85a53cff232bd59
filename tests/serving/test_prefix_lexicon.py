"""A prefix written as the words it covers (serving.prefix_words): the lexicon holds every
lexeme written, by any write path; the expanded query matches exactly the postings the
partial match does; it falls back to the partial match when it cannot expand; and a
full reconcile trims what is no longer published."""

from __future__ import annotations

import psycopg
import pytest

from serving_sync import lexicon, search
from tests.serving.conftest import Seeder, insert_jobs, job_row

MISSING_SQL = """
    SELECT count(*) FROM (SELECT DISTINCT unnest(tsvector_to_array(search_tsv)) AS lexeme
                          FROM serving.jobs) AS w
    WHERE NOT EXISTS (SELECT 1 FROM serving.lexicon l WHERE l.lexeme = w.lexeme)"""


def _missing(conn: psycopg.Connection) -> int:
    return conn.execute(MISSING_SQL).fetchone()[0]


def _has(conn: psycopg.Connection, lexeme: str) -> bool:
    return conn.execute(
        "SELECT EXISTS (SELECT 1 FROM serving.lexicon WHERE lexeme = %s)", (lexeme,)
    ).fetchone()[0]


def test_rows_inserted_and_updated_outside_the_sync_have_their_lexemes_kept(serving) -> None:
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, [job_row(i) for i in range(12)])
        assert _missing(conn) == 0
        assert _has(conn, "engineer")
        assert not _has(conn, "quixotry")
        conn.execute(
            "UPDATE serving.jobs SET description = description || ' Quixotry welcome.' WHERE id = 1003"
        )
        assert _has(conn, "quixotry")
        assert _missing(conn) == 0


def test_a_sync_keeps_the_lexemes_of_what_it_publishes(seed: Seeder) -> None:
    seed.posting(title="Glassblower", description_text="Annealing ovens and lampwork.")
    seed.sync()
    lexemes = {r["lexeme"] for r in seed.serving("SELECT lexeme FROM serving.lexicon")}
    assert {"glassblower", "annealing", "lampwork"} <= lexemes
    assert seed.serving(MISSING_SQL)[0]["count"] == 0


def test_the_lexicon_check_fails_when_the_trigger_is_gone(serving) -> None:
    """The check above can fail: without the trigger a new word goes missing."""
    with psycopg.connect(serving.url) as conn:
        conn.execute("ALTER TABLE serving.jobs DISABLE TRIGGER jobs_lexicon_insert")
        insert_jobs(conn, [job_row(1, description="Untracked zyzzyva.")])
        assert _missing(conn) > 0
        conn.rollback()


def _tsquery(conn: psycopg.Connection, q: str) -> str:
    row = conn.execute(
        "SELECT serving.web_tsquery(%s, %s)::text AS q", (q, search.prefix_applies(q))
    ).fetchone()
    return row["q"] if isinstance(row, dict) else row[0]


def test_a_prefix_is_written_as_the_words_it_covers(serving, seeded) -> None:
    with psycopg.connect(serving.url, autocommit=True) as owner:
        _assert_written_as_words(owner)


def _assert_written_as_words(owner: psycopg.Connection) -> None:
    # The seeded postings are English: of a word's stems (serving.word_tsquery), the
    # English one stays; the German and French ones no posting has are dropped
    # (serving.prefix_as_words).
    engin = "'engineer' | 'engineering' | '~en:engin'"
    assert _tsquery(owner, "engin") == engin
    # The other words stay; the expansion replaces the prefix operand only.
    assert _tsquery(owner, "data engin") == f"( 'data' | '~en:data' ) & ( {engin} )"
    assert _tsquery(owner, "-senior engin") == f"!( 'senior' | '~en:senior' ) & ( {engin} )"
    # A prefix no posting has stays a partial match (which finds nothing), without stems.
    assert _tsquery(owner, "qwertz") == "'qwertz':*"
    # Not a prefix at all: unchanged.
    assert _tsquery(owner, '"engin"') == "'engin'"


def test_a_prefix_covering_more_than_fifty_words_stays_a_partial_match(serving) -> None:
    words = " ".join(f"zorb{n:02d}" for n in range(51))
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, [job_row(0, description=words)])
        assert conn.execute("SELECT serving.web_tsquery('zorb', true)::text").fetchone()[0] == (
            "'zorb':*"  # no posting has a word stemmed 'zorb'
        )
        conn.execute("DELETE FROM serving.lexicon WHERE lexeme = 'zorb50'")
        expanded = conn.execute("SELECT serving.web_tsquery('zorb', true)::text").fetchone()[0]
        assert ":*" not in expanded
        assert expanded.count("|") == 49


def test_words_with_quotes_and_backslashes_are_quoted_as_lexemes(serving) -> None:
    # A prefix of 3 characters: the shortest that matches as one (search.prefix_applies).
    odd = ["itz's", "itz\\s", "itz''\\\\x", "itzy"]
    with psycopg.connect(serving.url) as conn:
        conn.execute("INSERT INTO serving.lexicon (lexeme) SELECT unnest(%s::text[])", (odd,))
        words = conn.execute("SELECT serving.prefix_words('itz')").fetchone()[0]
        parsed = conn.execute(
            "SELECT array_agg(w ORDER BY w) FROM unnest(%s::text[]) AS w "
            "WHERE array_to_tsvector(ARRAY[w]) @@ %s::tsquery",
            ([*odd, "itx", "i"], words),
        ).fetchone()[0]
        assert parsed == sorted(odd)
        # And through the query function: each odd word is one of the prefix's words.
        for lexeme in odd:
            conn.execute("SELECT set_config('test.lexeme', %s, true)", (lexeme,))
            found = conn.execute(
                "SELECT array_to_tsvector(ARRAY[current_setting('test.lexeme')]) @@ "
                "serving.web_tsquery(%s, true)",
                ("itz",),
            ).fetchone()[0]
            assert found


def _prefixes(rows: list[dict]) -> list[str]:
    words = {w.lower() for r in rows for w in f"{r['title']} {r['description']}".split()}
    # Every prefix of every word, the words themselves included ('engineer' covers
    # 'engineering' too).
    found = {w[:n] for w in words for n in range(3, len(w) + 1)}
    return sorted(found)


@pytest.mark.parametrize(
    "shape", ["{p}", "data {p}", "-senior {p}", '"build things" {p}', "x or {p}"]
)
def test_the_expanded_prefix_matches_exactly_what_the_partial_match_does(
    serving, seeded, shape: str
) -> None:
    """The oracle is the query as typed (serving.typed_tsquery): the prefix as a partial
    match (':*'), the words and their stems as they are."""
    with psycopg.connect(serving.url) as conn:
        expanded_any = 0
        for prefix in _prefixes(seeded):
            q = shape.format(p=prefix)
            if not search.prefix_applies(q):
                continue
            tsq = _tsquery(conn, q)
            partial = conn.execute("SELECT serving.typed_tsquery(%s, true)::text", (q,)).fetchone()[
                0
            ]
            assert ":*" in partial, partial
            expanded_any += ":*" not in tsq
            got, want = (
                {
                    r[0]
                    for r in conn.execute(
                        "SELECT id FROM serving.jobs WHERE search_tsv @@ %s::tsquery", (query,)
                    )
                }
                for query in (tsq, partial)
            )
            assert got == want, (q, tsq, partial)
        assert expanded_any > 20


def test_a_full_reconcile_that_removed_rows_trims_the_lexicon(seed: Seeder) -> None:
    seed.posting(title="Cooper", description_text="Barrels.")
    gone = seed.posting(title="Farrier", description_text="Horseshoes.")
    seed.sync()
    seed.sql(
        "UPDATE core.postings SET status = 'expired', closed_at = now(), close_reason = 'gone' "
        "WHERE id = %s",
        (gone,),
    )
    seed.sync()  # incremental: the lexeme stays (a superset is still exact)
    assert seed.serving("SELECT count(*) FROM serving.lexicon WHERE lexeme = 'farrier'")[0]["count"]
    report = seed.sync(full=True)
    assert report.mode == "full"
    lexemes = {r["lexeme"] for r in seed.serving("SELECT lexeme FROM serving.lexicon")}
    assert "farrier" not in lexemes
    assert {"cooper", "barrels"} <= lexemes
    assert seed.serving(MISSING_SQL)[0]["count"] == 0


def test_only_a_full_reconcile_of_a_table_published_before_trims() -> None:
    before = {"inserted": 0, "removed": 0, "updated": 0, "unchanged": 3}
    assert lexicon.rebuild_needed(True, before)
    assert not lexicon.rebuild_needed(False, before)
    assert not lexicon.rebuild_needed(True, {**before, "unchanged": 0, "inserted": 9})


def test_the_web_role_cannot_list_the_lexicon_through_the_query_function(seeded, web_conn) -> None:
    """The lexicon keeps words of postings gone; the web role only searches with them."""
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        web_conn.execute("SELECT serving.web_tsquery('engin', true)")
    assert search.search(web_conn, search.SearchRequest(search.Filters(q="engin"))).items


def test_a_url_with_a_quote_in_its_last_word_is_expanded_as_its_words(serving) -> None:
    """The text parser keeps a quote inside a URL path: the prefix operand then carries
    a doubled quote, which the expansion must undo to find the words."""
    texts = ["Visit example.com/o'reilly today.", "See example.com/o'reilly-jobs."]
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, [job_row(i, description=t) for i, t in enumerate(texts)])
        q = "example.com/o'reilly"
        typed = conn.execute("SELECT serving.typed_tsquery(%s, true)::text", (q,)).fetchone()[0]
        assert typed == "'example.com/o''reilly' <-> 'example.com' <-> '/o''reilly':*"
        expanded = _tsquery(conn, q)
        assert expanded == (
            "'example.com/o''reilly' <-> 'example.com' <-> ( '/o''reilly' | '/o''reilly-jobs.' )"
        )
        for query in (typed, expanded):
            found = conn.execute(
                "SELECT array_agg(id) FROM serving.jobs WHERE search_tsv @@ %s::tsquery", (query,)
            ).fetchone()[0]
            assert found == [1000]


def test_relevance_ranks_do_not_move_when_the_lexicon_gains_a_word(
    serving, seeded, web_conn
) -> None:
    """Ranks come from the query as typed: a word added under the prefix (a posting that
    came and went) changes no rank, so a relevance cursor stays valid across syncs."""
    request = search.SearchRequest(search.Filters(q="engin"), sort="relevance")
    before = [(i["id"], i["rank"]) for i in search.search(web_conn, request).items]
    assert len(before) > 1
    with psycopg.connect(serving.url) as owner:
        owner.execute("INSERT INTO serving.lexicon (lexeme) VALUES ('enginx'), ('enginy')")
    after = [(i["id"], i["rank"]) for i in search.search(web_conn, request).items]
    assert after == before
