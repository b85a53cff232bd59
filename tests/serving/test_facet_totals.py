"""The unfiltered counts the sync keeps (serving.facet_totals) answer exactly what
counting live answers, are read instead of a full pass, and follow every sync that
changes something."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

from serving_sync import search
from serving_sync.search import Filters
from tests.serving.conftest import Seeder

GROUPS = (*search.PAGE_FACET_GROUPS, "enrichment", "month", "total")


def _answers(conn: psycopg.Connection, filters: Filters) -> dict[str, Any]:
    args = search.filter_args(filters)
    found: dict[str, Any] = {}
    for top_n in (None, 2):
        found[f"all/{top_n}"] = conn.execute(search.FACETS_ALL_SQL, (*args, top_n)).fetchall()
        for group in GROUPS:
            found[f"{group}/{top_n}"] = conn.execute(
                search.FACET_SQL, (group, *args, top_n)
            ).fetchall()
    return found


def test_kept_unfiltered_counts_are_the_live_counts(serving, seeded) -> None:
    with psycopg.connect(serving.url, row_factory=dict_row) as conn:
        live = _answers(conn, Filters())
        conn.execute("SELECT serving.refresh_facet_totals()")
        assert conn.execute("SELECT count(*) AS n FROM serving.facet_totals").fetchone()["n"] > 0
        kept = _answers(conn, Filters())
    assert kept == live
    assert live["total/None"] == [{"value": None, "count": len(seeded)}]


def test_unfiltered_counts_come_from_the_kept_table_and_filtered_ones_live(serving, seeded) -> None:
    with psycopg.connect(serving.url, row_factory=dict_row) as conn:
        conn.execute("SELECT serving.refresh_facet_totals()")
        before = _answers(conn, Filters())
        # An edit behind the sync's back: only a live count can see it.
        conn.execute("UPDATE serving.jobs SET work_mode = 'remote' WHERE work_mode <> 'remote'")
        assert _answers(conn, Filters()) == before
        filtered = conn.execute(
            search.FACET_SQL, ("work_mode", *search.filter_args(Filters(source=("lever",))), None)
        ).fetchall()
    assert [r["value"] for r in filtered] == [None, "remote"]


def test_a_sync_that_changes_postings_refreshes_the_kept_counts(seed: Seeder) -> None:
    seed.posting(title="Nurse")
    seed.sync()
    kept = "SELECT count FROM serving.facet_totals WHERE kind = 'all' AND facet = 'total'"
    assert seed.serving(kept) == [{"count": 1}]
    seed.posting(title="Teacher")
    seed.sync()
    assert seed.serving(kept) == [{"count": 2}]
    seed.serving("DELETE FROM serving.facet_totals")
    assert seed.sync().changed == 0  # nothing changed, but nothing was kept
    assert seed.serving(kept) == [{"count": 2}]


def test_the_web_role_cannot_read_the_kept_counts(serving, seeded, web_conn) -> None:
    with psycopg.connect(serving.url) as conn:
        conn.execute("SELECT serving.refresh_facet_totals()")
    try:
        web_conn.execute("SELECT * FROM serving.facet_totals").fetchall()
    except psycopg.errors.InsufficientPrivilege:
        return
    raise AssertionError("the web role read serving.facet_totals directly")
