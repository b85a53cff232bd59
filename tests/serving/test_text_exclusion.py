"""An excluded word leaves out every posting that has it, in the counting queries too,
while the text index moves its pending entries.

PostgreSQL's text index (GIN) answers a query without a weight or a phrase with no
recheck of the row. While its pending entries move into its main structure (a VACUUM,
an autovacuum's ANALYZE, gin_clean_pending_list, an insert past the list's limit) a scan
can read some of a posting's words there and not yet others; for a query with an
exclusion a word missed is a match: "-engineer" counted the postings whose only form of
the word is its stem ('~en:engin', in "Engineering Manager"). serving.web_where checks
such a query on each row the index gives (a query without an exclusion needs no check),
and `jobharbor search` (serving.search_jobs) every match. The move is slowed down here
(a VACUUM with a cost delay after each word it moves), so the reads overlap it every
time: the index's own answer is wrong meanwhile, and the test says so if it never is."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from pipeline.db.connect import Database
from serving_sync import search
from serving_sync.search import Counts, Filters
from tests.serving.conftest import insert_jobs, job_row

EXCLUDED = "-engineer"  # the word and its stem: an engineering manager has only the stem
COPIES = 10  # postings in the pending list: the forty below and ten copies of each
REQUESTS = (Filters(q=EXCLUDED), Filters(q=EXCLUDED, country=("VN",)))  # the total; web_facet


def _rows() -> list[dict[str, Any]]:
    """Forty postings with longer texts (more words to move), a tenth of them data
    engineers and a tenth engineering managers."""
    words = " ".join(f"skill{k}" for k in range(80))
    return [job_row(i, description=f"Job {i}: {words}.") for i in range(40)]


def _copy_sql(conn: psycopg.Connection) -> str:
    """Copies of every posting under new ids, their texts as they are (one statement)."""
    names = [
        r["column_name"]
        for r in conn.execute(
            """SELECT column_name FROM information_schema.columns
               WHERE table_schema = 'serving' AND table_name = 'jobs' AND is_generated = 'NEVER'
               ORDER BY ordinal_position"""
        )
    ]
    values = {"id": "j.id + 100000 * k", "external_id": "j.external_id || '-' || k"}
    picked = ", ".join(values.get(n, f"j.{n}") for n in names)
    return (
        f"INSERT INTO serving.jobs ({', '.join(names)}) SELECT {picked}"
        " FROM serving.jobs j CROSS JOIN generate_series(1, %s) AS k"
    )


def _answers(counts: Counts) -> tuple[Any, ...]:
    country = counts.groups["country"]
    return counts.total, country and tuple(sorted(country.buckets))


def _counted(conn: psycopg.Connection) -> list[tuple[Any, ...]]:
    """The counting queries' answers (no bitmaps are built here)."""
    return [_answers(search.counts(conn, f, ("country",), budget_ms=5000)) for f in REQUESTS]


def _index_count(conn: psycopg.Connection, tsq: str) -> int:
    """The text index's own answer, unchecked."""
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        row = conn.execute(
            "SELECT count(*) AS n FROM serving.jobs j WHERE j.search_tsv @@ %s::tsquery", (tsq,)
        ).fetchone()
    return row["n"]


def _cli_matches(conn: psycopg.Connection) -> int:
    """What `jobharbor search` finds for a word every posting has, excluded: nothing."""
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")  # as on a table too large to read
        row = conn.execute("SELECT count(*) AS n FROM serving.search_jobs('-skill79', 100)")
        return row.fetchone()["n"]


def _slowed_vacuum(url: str, done: threading.Event) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET vacuum_cost_limit = 1")  # every delay point sleeps
        conn.execute("SET vacuum_cost_delay = '1ms'")
        conn.execute("VACUUM serving.jobs")
    done.set()


def test_an_excluded_word_stays_excluded_while_the_text_index_moves_its_pending_entries(
    serving: Database,
) -> None:
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, _rows())
    with psycopg.connect(serving.url, autocommit=True, row_factory=dict_row) as conn:
        # Only the VACUUM below moves the list: no insert past its limit, no autovacuum.
        conn.execute("ALTER INDEX serving.jobs_search_tsv_idx SET (gin_pending_list_limit = 65536)")
        conn.execute("ALTER TABLE serving.jobs SET (autovacuum_enabled = false)")
        conn.execute(_copy_sql(conn), (COPIES,))
        row = conn.execute("SELECT serving.web_tsquery(%s, false)::text AS q", (EXCLUDED,))
        tsq = row.fetchone()["q"]
        assert tsq == "!( 'engineer' | '~en:engin' )"
        # Read row by row: 11 x (4 data engineers, 4 senior software engineers, 4
        # engineering managers) of the 440 postings have the word or its stem; the rest match.
        want = conn.execute(
            "SELECT count(*) AS n FROM serving.jobs j WHERE ts_match_vq(j.search_tsv, %s::tsquery)",
            (tsq,),
        ).fetchone()["n"]
        assert want == 440 - 11 * 12
        before = _counted(conn)  # the pending list read whole: right
        assert before[0][0] == want
        done = threading.Event()
        mover = threading.Thread(target=_slowed_vacuum, args=(serving.url, done))
        mover.start()
        counted, index_wrong, found = [], 0, []
        while not done.is_set() or not counted:
            counted.append(_counted(conn))
            index_wrong += _index_count(conn, tsq) != want
            found.append(_cli_matches(conn))
        mover.join()
    assert index_wrong > 0, "the move never overlapped a read: nothing was tested"
    assert [c for c in counted if c != before] == []
    assert set(found) == {0}


def _plan(conn: psycopg.Connection, tsq: str) -> str:
    """The plan of web_where_text's statement for this query, as EXECUTE ... USING plans
    it (the query a constant), on the text index."""
    where = conn.execute("SELECT serving.web_where_text() AS w").fetchone()["w"]
    sql = "EXPLAIN (COSTS OFF) SELECT count(*) FROM serving.jobs j" + where.replace(
        "$1", f"$q${tsq}$q$::tsquery"
    )
    with conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        return "\n".join(r["QUERY PLAN"] for r in conn.execute(sql))


@pytest.mark.parametrize(
    ("tsq", "checked"),
    [
        ("!'engineer'", True),
        ("'data' & !'senior'", True),
        ("'data' | !( 'product' <-> 'design' )", True),
        ("'engineer' | '~en:engin'", False),
        ("'data' <-> 'engineer'", False),
        ("'¦co=yahoo!' & 'data'", False),  # a '!' inside a lexeme is no exclusion
    ],
)
def test_a_query_with_an_exclusion_is_checked_on_each_row_and_only_such_a_query(
    serving: Database, seeded, tsq: str, checked: bool
) -> None:
    with psycopg.connect(serving.url, autocommit=True, row_factory=dict_row) as conn:
        row = conn.execute("SELECT serving.text_negates(%s) AS x", (tsq,)).fetchone()
        assert row["x"] is checked
        plan = _plan(conn, tsq)
    assert "Bitmap Index Scan on jobs_search_tsv_idx" in plan
    assert ("Filter: ts_match_vq(search_tsv" in plan) is checked, plan
