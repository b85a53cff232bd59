"""Typeahead: serving.suggestions holds, for every title, company, skill, city and
region the published postings name, exactly how many name it, through every way rows
are written (insert, update, delete, truncate, the sync, the backfill after the
migration); a prefix finds them at any of a value's first words, commonest first."""

from __future__ import annotations

from collections import Counter
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from serving_sync import typeahead
from tests.serving.conftest import SEED_ROWS, Seeder, insert_jobs, job_row

COUNTED_SQL = "SELECT DISTINCT kind, value, postings FROM serving.suggestions"


def _expected(rows: list[dict[str, Any]]) -> Counter:
    """A plain Python count of what each posting names (each value once per posting)."""
    found: Counter = Counter()
    for row in rows:
        values = {("title", row["title"])}
        if row.get("company"):
            values.add(("company", row["company"]))
        skills = [*row.get("skills_required", []), *row.get("skills_preferred", [])]
        values |= {("skill", s) for s in skills}
        values |= {("city", c) for c in row["cities"]} | {("region", r) for r in row["regions"]}
        found.update(values)
    return found


def _counted(conn: psycopg.Connection) -> Counter:
    rows = conn.execute(COUNTED_SQL).fetchall()
    counted = Counter({(kind, value): n for kind, value, n in rows})
    # One count per value, whichever key it is read under.
    assert len(counted) == len(rows), "a value with two counts"
    return counted


# ---------------------------------------------------------------- the pure rules


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("Da", "da"),
        ("  Data-Eng", "data eng"),
        ("data   ", "data "),  # a finished word stays finished
        ("Hà Nội", "ha noi"),
        ("C++ dev", "c dev"),
        ("x" * 80, "x" * 60),
    ],
)
def test_a_typed_prefix_reads_as_the_keys_are_written(typed: str, key: str) -> None:
    assert typeahead.prefix_key(typed) == key


def test_the_commonest_come_first_at_most_four_of_a_kind_while_others_wait() -> None:
    titles = [("title", f"Title {i}", 100 - i) for i in range(7)]
    others = [("company", "Acme", 5), ("company", "Globex", 4)]
    others += [("city", "Hanoi", 3), ("region", "Bavaria", 2), ("skill", "python", 1)]
    found = typeahead.ranked([*titles, *others, ("title", "Title 0", 100)])
    # Five other values want seats: titles keep four, one value each, commonest first.
    assert [(s.kind, s.value) for s in found] == [
        ("title", "Title 0"), ("title", "Title 1"), ("title", "Title 2"), ("title", "Title 3"),
        ("company", "Acme"), ("company", "Globex"), ("city", "Hanoi"), ("region", "Bavaria"),
    ]  # fmt: skip
    # With fewer others, the titles fill the free seats, still in count order.
    found = typeahead.ranked([*titles, ("company", "Acme", 5)])
    assert [s.value for s in found] == [*(f"Title {i}" for i in range(7)), "Acme"]
    assert found[0].param == "q"
    assert typeahead.ranked([("skill", "python", 3)])[0].param == "skill"


# ---------------------------------------------------------------- on the serving database


def test_every_write_keeps_the_counts_exact(serving) -> None:
    rows = [job_row(i) for i in range(30)]
    rows[3]["skills_required"] = ["python", "sql"]
    rows[4]["skills_preferred"] = ["python"]
    with psycopg.connect(serving.url, autocommit=True) as conn:
        insert_jobs(conn, rows)
        assert _counted(conn) == _expected(rows)
        conn.execute("UPDATE serving.jobs SET title = 'Glassblower' WHERE id IN (1000, 1001)")
        conn.execute("UPDATE serving.jobs SET description = 'changed' WHERE id = 1002")
        conn.execute("UPDATE serving.jobs SET company = NULL WHERE id = 1003")
        conn.execute("DELETE FROM serving.jobs WHERE id BETWEEN 1010 AND 1019")
        now = conn.execute("SELECT * FROM serving.jobs").fetchall()
        names = [d.name for d in conn.execute("SELECT * FROM serving.jobs LIMIT 0").description]
        assert _counted(conn) == _expected([dict(zip(names, r, strict=True)) for r in now])
        assert ("title", "Glassblower") in _counted(conn)
        # A value no posting names any more is gone, under every key.
        gone = conn.execute(
            "SELECT count(*) FROM serving.suggestions WHERE postings <= 0"
        ).fetchone()[0]
        assert gone == 0
        conn.execute("TRUNCATE serving.jobs CASCADE")
        assert _counted(conn) == Counter()


def test_the_check_above_can_fail_without_the_triggers(serving) -> None:
    with psycopg.connect(serving.url) as conn:
        conn.execute("ALTER TABLE serving.jobs DISABLE TRIGGER jobs_suggestions_insert")
        insert_jobs(conn, [job_row(1)])
        assert _counted(conn) != _expected([job_row(1)])
        conn.rollback()


def test_a_sync_counts_what_it_publishes_and_what_it_removes(seed: Seeder) -> None:
    first = seed.posting(title="Glassblower", company="Murano Works")
    seed.posting(title="Glassblower", company="Murano Works")
    seed.sync()
    counted = seed.serving("SELECT DISTINCT kind, value, postings FROM serving.suggestions")
    assert {"kind": "title", "value": "Glassblower", "postings": 2} in counted
    seed.sql(
        "UPDATE core.postings SET status = 'not_found', closed_at = now() WHERE id = %s", (first,)
    )
    seed.sync()
    counted = seed.serving("SELECT DISTINCT kind, value, postings FROM serving.suggestions")
    assert {"kind": "title", "value": "Glassblower", "postings": 1} in counted


def test_a_full_sync_fills_suggestions_missing_after_the_migration(seed: Seeder) -> None:
    for _ in range(3):
        seed.posting(title="Lampworker")
    seed.sync()
    seed.serving("DELETE FROM serving.suggestions")  # as the migration left them
    seed.sync(full=True)
    counted = seed.serving("SELECT DISTINCT kind, value, postings FROM serving.suggestions")
    assert {"kind": "title", "value": "Lampworker", "postings": 3} in counted


def _suggest(web_url: str, typed: str) -> list[tuple[str, str, int]]:
    with psycopg.connect(web_url, row_factory=dict_row) as conn:
        return [(s.kind, s.value, s.postings) for s in typeahead.suggest(conn, typed)]


def test_a_prefix_finds_values_at_any_of_their_first_words(seeded, web_url) -> None:
    expected = _expected(SEED_ROWS)
    found = _suggest(web_url, "Eng")
    assert ("title", "Engineering Manager", expected["title", "Engineering Manager"]) in found
    found = _suggest(web_url, "engi")  # "Data Engineer": its second word
    assert ("title", "Data Engineer", expected["title", "Data Engineer"]) in found
    found = _suggest(web_url, "pyth")
    assert [v for _, v, _ in found] == ["Backend Developer (Python)"]
    found = _suggest(web_url, "ha no")
    assert ("city", "Hà Nội", expected["city", "Hà Nội"]) in found
    assert ("region", "Hà Nội", expected["region", "Hà Nội"]) in found


def test_suggestions_are_the_commonest_first_and_at_most_eight(seeded, web_url) -> None:
    found = _suggest(web_url, "se")  # titles and a place start with it
    counts = [n for _, _, n in found]
    assert counts == sorted(counts, reverse=True)
    assert 0 < len(found) <= typeahead.MAX_SUGGESTIONS


@pytest.mark.parametrize("typed", ["", "e", " ", "-", "zzzzzz"])
def test_too_short_or_unknown_prefixes_suggest_nothing(seeded, web_url, typed: str) -> None:
    assert _suggest(web_url, typed) == []
