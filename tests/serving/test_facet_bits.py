"""Facet counts from bitmaps (serving.web_facet_bits): for every kind of request they answer
(text, every filter group, the enrichment's, posted within, has salary), they give
exactly what the counting queries give; they answer only while they were built from
what serving.jobs holds; what they cannot read (a phrase, years that are not a band,
salary at least X, too many postings to read, a top N they cannot prove) is left to the
queries; a sync builds them; and the web role reaches them only through web_facet_bits."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row, tuple_row

from pipeline.db.connect import Database
from serving_sync import facet_bits, search
from serving_sync.search import Counts, Filters
from tests.serving.conftest import SEED_ROWS, Seeder, insert_jobs, job_row
from tests.serving.test_search_enrichment import enriched

GROUPS = (*search.GROUPS, "month", *search.ENRICH_STATS_GROUPS)
QUERIES = (
    None,
    "engineer",
    "engin",  # a prefix: written as its words
    "data engineer",
    "-senior engineer",
    "engineer or designer",
    "ke toan",
    "things",
    "intern -marketing",
    "job -(data or product)",
    "data or product engineer",  # & binds tighter than |, as in tsquery
    "-engineer",  # a negation alone: every posting with a text but the engineers
    "zzzqx",  # matches nothing
    "!!",  # nothing searchable: no text condition
)
CHOICES: dict[str, tuple[Any, ...]] = {
    "country": (("VN",), ("US",), ("CA", "DE"), ("unknown",), ("US", "unknown"), ("FR",)),
    "region": (("California",), ("Ontario", "Hà Nội"), ("unknown",)),
    "city": (("New York",), ("Hà Nội", "unknown"), ("Toronto",)),
    "job_type": (("intern",), ("unknown",), ("new_grad", "intern")),
    "employment_type": (("full_time",), ("unknown", "part_time"), ("contract",)),
    "source": (("greenhouse",), ("lever", "vietnamworks")),
    "company": (("Acme",), ("unknown",), ("Globex", "Initech"), ("Nobody Inc",)),
    "posted_within_days": (1, 7, 30, 45, 400),
    "include_undated": (True, False),
    "has_salary": (True, False),
    "skill": (("python",), ("python", "sql"), ("java", "unknown"), ("cobol",)),
    "skill_match": ("any", "all"),
    "skill_scope": ("required", "all"),
    "experience_min": (("2-4",), ("0-1", "10+"), ("unknown",), ("5-9", "unknown"), ("3",)),
    "seniority": (("senior",), ("junior", "unknown")),
    "work_mode": (("remote",), ("hybrid", "unknown"), ("unknown",), ("onsite",)),
}
SKILLS = ("python", "sql", "java", "docker", "go")
LEVELS = ("senior", "junior", None)
MODES = ("remote", "onsite", "hybrid", None)
YEARS = ((3, 5), (0, 1), (5, None), (None, None), (12, None))


def _enriched_rows() -> list[dict[str, Any]]:
    """Forty postings the enrichment ran on (skills, years, seniority, work mode; some
    with nothing stated; eight undated of unknown age), next to the seed's sixty it has
    not."""
    rows = []
    for i in range(40):
        lo, hi = YEARS[i % len(YEARS)]
        required = [SKILLS[k] for k in range(len(SKILLS)) if (i >> k) % 2][:3]
        preferred = [SKILLS[(i + 2) % len(SKILLS)]]
        row = enriched(400 + i, required, preferred, lo, hi, LEVELS[i % 3], MODES[i % 4])
        if i % 5 == 0:  # undated and of unknown age: in no window unless include_undated
            row.update(posted_at=None, posted_precision="unknown", age_known=False)
        rows.append(row)
    return rows


def _bands_only(filters: Filters) -> bool:
    """Whether the bitmaps can read its experience filter: bands (or unknown) only."""
    return all(v in (*search.EXPERIENCE_BANDS, search.UNKNOWN) for v in filters.experience_min)


def _requests(count: int, seed: int = 13) -> list[Filters]:
    rng = random.Random(seed)
    requests = [Filters(q=q or "") for q in QUERIES]
    names = list(CHOICES)
    for _ in range(count):
        chosen = rng.sample(names, rng.choice([1, 1, 2, 3, 4]))
        requests.append(
            Filters(q=rng.choice(QUERIES) or "", **{n: rng.choice(CHOICES[n]) for n in chosen})
        )
    return requests


def _counts(conn: psycopg.Connection, filters: Filters, top_n: int | None = None) -> Counts:
    return search.counts(conn, filters, GROUPS, budget_ms=5000, top_n=top_n)


def _bits_rows(conn: psycopg.Connection, filters: Filters, top_n: int | None = None) -> list:
    return conn.execute(
        search.FACET_BITS_SQL, (*search.filter_args(filters), list(GROUPS), top_n)
    ).fetchall()


def _answers(counts: Counts) -> tuple[Any, ...]:
    """The counts, each group's buckets in one order (the queries break ties arbitrarily)."""
    return counts.total, tuple(_ordered(counts.groups[g]) for g in GROUPS)


def _ordered(group: Any) -> Any:
    if group is None:
        return None
    return replace(group, buckets=tuple(sorted(group.buckets, key=lambda b: (-b[1], b[0]))))


@pytest.fixture
def owner(serving: Database, seeded) -> psycopg.Connection:
    with psycopg.connect(serving.url, autocommit=True, row_factory=dict_row) as conn:
        yield conn


def _insert(serving: Database, rows: list[dict[str, Any]]) -> None:
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, rows)


def _build(serving: Database, **options: Any) -> facet_bits.BuildReport:
    return facet_bits.refresh(serving, force=True, **options)


@pytest.mark.parametrize("top_n", [None, 2], ids=["every-value", "top-2"])
@pytest.mark.parametrize(
    "options",
    [
        pytest.param({}, id="every-word-a-bitmap"),
        pytest.param({"word_min_share": 1.0}, id="most-words-from-their-rows"),
        pytest.param({"values_kept": 2}, id="values-past-the-kept-ones"),
    ],
)
def test_bitmap_counts_are_the_counting_queries_counts(serving, owner, options, top_n) -> None:
    _insert(serving, _enriched_rows())
    # One posting without a text at all: no query matches it, not even a negation.
    owner.execute("UPDATE serving.jobs SET search_tsv = NULL WHERE id = 1007")
    requests = _requests(250)
    expected = [_answers(_counts(owner, f, top_n)) for f in requests]
    assert not facet_bits.is_current(owner)  # so far the queries counted
    assert _build(serving, **options).slots == 100
    answered = 0
    for filters, want in zip(requests, expected, strict=True):
        rows = _bits_rows(owner, filters)
        answered += bool(rows)
        got = _answers(_counts(owner, filters, top_n))
        for group, mine, theirs in zip(GROUPS, got[1], want[1], strict=True):
            assert mine == theirs, (group, filters)
        assert got[0] == want[0], filters
    # Only the requests with years that are not the bands were left to the queries.
    assert answered == sum(map(_bands_only, requests)) > 200


def test_the_comparison_fails_when_a_bitmap_is_wrong(serving, owner) -> None:
    """The check above can fail: one flipped bit in one value's bitmap shows."""
    filters = Filters()
    want = _answers(_counts(owner, filters))
    _build(serving)
    owner.execute(
        "UPDATE serving.facet_bits SET bits = set_bit(bits, 0, 1 - get_bit(bits, 0))"
        " WHERE facet = 'work_mode' AND value = 'remote'"
    )
    assert _answers(_counts(owner, filters)) != want


def _exact(conn: psycopg.Connection, filters: Filters, top_n: int | None = None) -> tuple:
    """The counting queries' answer: the same request with no build to read."""
    with conn.transaction(force_rollback=True):
        conn.execute("DELETE FROM serving.facet_bits_build")
        assert _bits_rows(conn, filters) == []
        return _answers(_counts(conn, filters, top_n))


def _write_as_a_sync_does(conn: psycopg.Connection) -> None:
    """Updates that move postings between values of every group (a company, places,
    work mode, words, skills, years, dates), deletions, and insertions with values the
    build never saw (a country, a company, a word)."""
    conn.execute(
        """UPDATE serving.jobs SET company = 'Initech', countries = '{FR}', regions = '{}',
                  cities = '{Lyon}', work_mode = 'remote', job_type = NULL
           WHERE id IN (1001, 1002, 1013, 1405)"""
    )
    conn.execute(
        """UPDATE serving.jobs SET title = 'Data Engineer', description = 'Engineer of zebras.',
                  employment_type = '{}', posted_at = now() - interval '2 days'
           WHERE id IN (1004, 1005, 1411)"""
    )
    conn.execute(
        """UPDATE serving.jobs SET skills_required = '{python,cobol}', skills_preferred = '{}',
                  enriched_at = now(), experience_min = 3, experience_max = NULL,
                  seniority = 'senior'
           WHERE id IN (1006, 1402, 1403)"""
    )
    conn.execute("DELETE FROM serving.jobs WHERE id IN (1003, 1020, 1410, 1007)")
    factory, conn.row_factory = conn.row_factory, tuple_row  # as insert_jobs reads rows
    insert_jobs(
        conn,
        [
            job_row(
                700 + i,
                company=("Brandnew", None)[i % 2],
                countries=["JP"],
                regions=[],
                cities=["Osaka"],
                title="Marketing Intern",
                source="lever",
            )
            for i in range(5)
        ],
    )
    conn.row_factory = factory


@pytest.mark.parametrize("delta", [True, False], ids=["delta", "rows"])
@pytest.mark.parametrize("top_n", [None, 2], ids=["every-value", "top-2"])
@pytest.mark.parametrize(
    "options",
    [
        pytest.param({}, id="every-word-a-bitmap"),
        pytest.param({"word_min_share": 1.0}, id="most-words-from-their-rows"),
        pytest.param({"values_kept": 2}, id="values-past-the-kept-ones"),
    ],
)
def test_postings_written_since_the_build_are_counted_exactly_without_a_build(
    serving, owner, options, top_n, delta
) -> None:
    """Inserted, updated and deleted postings, no build since: the bitmaps still answer
    every request they read, and give what the counting queries give, whether the
    written postings are read from the delta the sync makes or, without one, from
    their rows."""
    _insert(serving, _enriched_rows())
    _build(serving, **options)
    _write_as_a_sync_does(owner)
    if delta:
        assert owner.execute("SELECT serving.refresh_facet_delta() AS n").fetchone()["n"] == 15
    assert facet_bits.state(owner).dirty == 4 + 3 + 3 + 4 + 5  # updated, deleted, inserted
    assert facet_bits.is_current(owner)
    answered = 0
    requests = _requests(150, seed=29)
    for filters in requests:
        want = _exact(owner, filters, top_n)
        answered += bool(_bits_rows(owner, filters))
        got = _answers(_counts(owner, filters, top_n))
        for group, mine, theirs in zip(GROUPS, got[1], want[1], strict=True):
            assert mine == theirs, (group, filters)
        assert got[0] == want[0], filters
    assert answered == sum(map(_bands_only, requests)) > 100


def test_the_written_postings_comparison_fails_when_a_written_one_is_not_counted(
    serving, owner
) -> None:
    """The check above can fail: forgetting one written posting shows, and so does a
    delta that was not made again after a write (it is not read then)."""
    _build(serving)
    _write_as_a_sync_does(owner)
    owner.execute("SELECT serving.refresh_facet_delta()")
    want = _exact(owner, Filters())
    assert _answers(_counts(owner, Filters())) == want
    owner.execute("UPDATE serving.facet_dirty SET delta = NULL WHERE id = 1001")
    assert _answers(_counts(owner, Filters())) == want  # counted from the rows instead
    owner.execute("UPDATE serving.facet_delta_build SET made_by = '1'")
    owner.execute("UPDATE serving.facet_dirty SET delta = '1'")
    owner.execute("UPDATE serving.facet_delta_bits SET bits = ~bits WHERE facet = 'work_mode'")
    assert _answers(_counts(owner, Filters())) != want  # a wrong delta shows
    owner.execute("UPDATE serving.facet_delta_build SET made_by = '2'")
    owner.execute("DELETE FROM serving.facet_dirty WHERE id = 1001")
    assert _answers(_counts(owner, Filters())) != want


@pytest.mark.parametrize(
    ("statement", "written"),
    [
        ("DELETE FROM serving.jobs WHERE id = 1001", {1001}),
        ("UPDATE serving.jobs SET title = title WHERE false", set()),  # changes nothing
        ("UPDATE serving.jobs SET id = 5000 WHERE id = 1002", {1002, 5000}),
    ],
)
def test_a_statement_records_the_postings_it_wrote(serving, owner, statement, written) -> None:
    _build(serving)
    owner.execute(statement)
    ids = {r["id"] for r in owner.execute("SELECT id FROM serving.facet_dirty")}
    assert ids == written
    assert facet_bits.is_current(owner)
    assert _answers(_counts(owner, Filters())) == _exact(owner, Filters())


def test_a_truncate_drops_the_build(serving, owner) -> None:
    _build(serving)
    owner.execute("TRUNCATE serving.jobs CASCADE")
    assert not facet_bits.is_current(owner)
    assert _bits_rows(owner, Filters()) == []
    assert facet_bits.refresh(serving).built


def test_a_reader_sees_a_sync_whole_or_not_at_all_and_always_from_the_bitmaps(
    serving, owner
) -> None:
    """While the sync's transaction is open another connection reads the counts before
    it; from its commit, the counts after it: never a mix, never the counting queries."""
    _build(serving)
    before = _exact(owner, Filters(q="engineer"))
    with psycopg.connect(serving.url, row_factory=dict_row) as sync:
        _write_as_a_sync_does(sync)
        sync.execute("SELECT serving.refresh_facet_delta()")
        during = _answers(_counts(owner, Filters(q="engineer")))
        assert _bits_rows(owner, Filters(q="engineer"))
        sync.commit()
    after = _answers(_counts(owner, Filters(q="engineer")))
    assert _bits_rows(owner, Filters(q="engineer"))
    assert during == before
    assert after == _exact(owner, Filters(q="engineer")) != before


def test_a_write_a_build_did_not_see_stays_counted_from_its_row(serving, owner) -> None:
    """A sync committing while a build reads its snapshot: the build holds the rows as
    they were, so that sync's postings stay written-since after the build commits and
    its absorbed postings are forgotten (forgetting every recorded posting at a build
    would count the old rows)."""
    _build(serving)
    owner.execute("UPDATE serving.jobs SET work_mode = 'hybrid' WHERE id = 1010")  # before
    with psycopg.connect(serving.url) as build:
        build.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        build.execute("SELECT 1")  # the build's snapshot, taken now
        owner.execute("UPDATE serving.jobs SET work_mode = 'remote' WHERE id = 1001")  # commits
        build.execute("SELECT serving.build_facet_bits()")
        build.commit()
    assert facet_bits.forget_absorbed(owner) == 1  # 1010's: the build saw it
    ids = [r["id"] for r in owner.execute("SELECT id FROM serving.facet_dirty")]
    assert ids == [1001]
    assert _bits_rows(owner, Filters())
    assert _answers(_counts(owner, Filters())) == _exact(owner, Filters())


def test_past_the_limit_the_queries_count_and_a_build_is_due(serving, owner) -> None:
    """Past `dirty_min` postings written since (the share being 0 here), the bitmaps step
    aside; a build is due from half of it, and brings them back."""
    assert _build(serving, dirty_share=0.0, dirty_min=4).built
    owner.execute("UPDATE serving.jobs SET work_mode = 'remote' WHERE id IN (1001, 1002)")
    assert not facet_bits.refresh(serving, dirty_share=0.0, dirty_min=4).built  # 2: not due
    owner.execute("UPDATE serving.jobs SET work_mode = 'remote' WHERE id IN (1003, 1004, 1005)")
    assert not facet_bits.is_current(owner)
    assert _bits_rows(owner, Filters()) == []
    want = _answers(_counts(owner, Filters()))
    report = facet_bits.refresh(serving, dirty_share=0.0, dirty_min=4)
    assert (report.built, report.dirty) == (True, 5)
    assert facet_bits.state(owner).dirty == 0
    assert owner.execute("SELECT count(*) AS n FROM serving.facet_dirty").fetchone()["n"] == 0
    assert _bits_rows(owner, Filters())
    assert _answers(_counts(owner, Filters())) == want


def test_the_total_is_counted_when_only_groups_with_their_own_filter_are_asked(
    serving, owner
) -> None:
    """The queries' shared pass also gives the total: it runs for it alone, before a
    build as after one."""
    filters = Filters(country=("US",))
    want = sum(1 for r in SEED_ROWS if "US" in r["countries"])
    assert search.counts(owner, filters, ("country",), budget_ms=5000).total == want
    _build(serving)
    assert search.counts(owner, filters, ("country",), budget_ms=5000).total == want


def test_a_request_with_nothing_changed_does_not_rebuild(serving, owner) -> None:
    assert _build(serving).built
    again = facet_bits.refresh(serving)
    assert not again.built
    assert again.slots == 60


@pytest.mark.parametrize(
    "filters",
    [
        pytest.param(Filters(q='"build things"'), id="phrase"),
        pytest.param(Filters(experience_min=("3",)), id="years-not-a-band"),
        pytest.param(Filters(salary_min=1000, salary_currency="EUR"), id="salary-at-least"),
    ],
)
def test_what_bitmaps_cannot_read_is_counted_by_the_queries(serving, owner, filters) -> None:
    want = _answers(_counts(owner, filters))
    _build(serving)
    assert _bits_rows(owner, filters) == []
    assert _answers(_counts(owner, filters)) == want


def test_a_prefix_is_its_words_and_too_many_postings_to_read_are_left_to_the_queries(
    serving, owner
) -> None:
    """'zorb' covers 61 words of 30 postings each (1,800 in all). With bitmaps for them it
    is their OR; without, their postings are read from rows, and past the cap (1,000 here:
    twice a bitmap word's 186 postings, at least 1,000) the bitmaps give up instead of
    reading them all. So does a prefix of more than 5,000 words."""
    rows = [job_row(100 + i, description=f"Zorbing zorb{i % 60:02d}.") for i in range(1800)]
    rows += [
        job_row(2000 + i, description=" ".join(f"zqx{i:03d}w{k:02d}" for k in range(51)))
        for i in range(100)
    ]
    _insert(serving, rows)
    wanted = [Filters(q="zorb"), Filters(q='"zorb07"'), Filters(q="zqx"), Filters(q="zqx05")]
    want = [_answers(_counts(owner, f)) for f in wanted]
    _build(serving)  # every 'zorb..' word has a bitmap (30 postings: over 1% of 1,960)
    assert _bits_rows(owner, Filters(q="zorb"))
    _build(serving, word_min_share=0.1)
    assert _bits_rows(owner, Filters(q="zorb")) == []  # 1,800 postings to read: over the cap
    assert _bits_rows(owner, Filters(q="zorb", work_mode=("remote",))) == []  # the text alone is
    assert _bits_rows(owner, Filters(q='"zorb07"'))  # one word's 30 postings: read
    assert _bits_rows(owner, Filters(q="zqx")) == []  # 5,100 words under the prefix
    assert _bits_rows(owner, Filters(q="zqx05"))  # 510 of them
    assert [_answers(_counts(owner, f)) for f in wanted] == want


def test_a_top_n_that_values_past_the_kept_ones_could_enter_is_left_to_the_queries(
    serving, owner
) -> None:
    # Five cities of 10 postings each: with two kept, the top two (10 and 10) cannot be
    # shown to beat the third, which has no bitmap (10 too).
    filters = Filters()
    want = search.counts(owner, filters, GROUPS, budget_ms=5000, top_n=2)
    _build(serving, values_kept=2)
    rows = _bits_rows(owner, filters, top_n=2)
    assert "city" not in {r["facet"] for r in rows}
    assert "month" in {r["facet"] for r in rows}  # every month has a bitmap
    got = search.counts(owner, filters, GROUPS, budget_ms=5000, top_n=2)
    assert got.groups["city"] == want.groups["city"]


def test_a_top_n_proven_by_the_sizes_is_answered_and_agrees(serving, owner) -> None:
    """Many postings in two cities, few in the rest: the top two beat every city without
    a bitmap, so the bitmaps answer; their list starts like the queries' (which rank
    'unknown' among the N), and the denominators agree."""
    big = [
        job_row(200 + i, cities=["Lyon" if i % 2 else "Nantes"], countries=["FR"])
        for i in range(80)
    ]
    _insert(serving, big)
    want = search.counts(owner, Filters(), GROUPS, budget_ms=5000, top_n=2)
    _build(serving, values_kept=3)
    rows = _bits_rows(owner, Filters(), top_n=2)
    assert "city" in {r["facet"] for r in rows}
    got = search.counts(owner, Filters(), GROUPS, budget_ms=5000, top_n=2)
    city, old = got.groups["city"], want.groups["city"]
    assert [v for v, _ in city.buckets[:2]] == ["Lyon", "Nantes"]
    known = [b for b in old.buckets if b[0] != search.UNKNOWN]
    assert city.buckets[: len(known)] == tuple(known)
    assert (city.denominator, city.unknown) == (old.denominator, old.unknown)


def test_the_build_needs_one_snapshot(serving, owner) -> None:
    with pytest.raises(psycopg.errors.InvalidTransactionState, match="REPEATABLE READ"):
        owner.execute("SELECT serving.build_facet_bits()")


def test_posted_within_counts_the_boundary_day_to_the_second(serving, owner) -> None:
    """The boundary is now() - N days: of two postings on its day, one just inside it and
    one just outside, only the first counts."""
    at = owner.execute("SELECT now() - interval '3 days' AS at").fetchone()["at"]
    _insert(
        serving,
        [
            job_row(300, posted_at=at.replace(microsecond=0) + _seconds(90)),
            job_row(301, posted_at=at.replace(microsecond=0) - _seconds(90)),
        ],
    )
    with owner.transaction():  # one now() for both
        owner.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        want = _answers(_counts(owner, Filters(posted_within_days=3)))
        owner.execute("SELECT serving.build_facet_bits()")
        assert _bits_rows(owner, Filters(posted_within_days=3))
        assert _answers(_counts(owner, Filters(posted_within_days=3))) == want
    assert want[0] == 1 + sum(1 for r in SEED_ROWS if (r["posted_at"] or r["first_seen_at"]) >= at)


def _seconds(n: int) -> Any:
    from datetime import timedelta

    return timedelta(seconds=n)


def test_a_sync_builds_the_bitmaps(seed: Seeder, app) -> None:
    from pipeline.phases.sync import sync_serving

    seed.posting(title="Glassblower", description_text="Annealing ovens.")
    report = sync_serving(app)
    assert report.stats["facet_bits_built"] is True
    with seed.dbs.serving.connect() as conn:
        assert facet_bits.is_current(conn)
        rows = _bits_rows(conn, Filters(q="glassblower"))
    assert {r["facet"]: r["count"] for r in rows if r["value"] is None}["work_mode"] == 1
    again = sync_serving(app)  # nothing changed: nothing to build
    assert again.stats["facet_bits_built"] is False
    seed.posting(title="Glassblower", description_text="Blowpipes.")
    third = sync_serving(app)  # one posting written: its delta, no build
    assert (third.stats["inserted"], third.stats["facet_bits_built"]) == (1, False)
    with seed.dbs.serving.connect() as conn:
        delta = conn.execute("SELECT rows FROM serving.facet_delta_build").fetchone()
        rows = _bits_rows(conn, Filters(q="glassblower"))
    assert delta["rows"] == 1
    assert {r["facet"]: r["count"] for r in rows if r["value"] is None}["work_mode"] == 2


def test_a_failed_build_does_not_fail_the_sync_it_follows(seed: Seeder, app) -> None:
    from pipeline.phases.sync import sync_serving

    seed.posting(title="Glassblower", description_text="Annealing ovens.")
    seed.serving(
        "ALTER FUNCTION serving.build_facet_bits(real, integer, integer, real, integer) RENAME TO gone"
    )
    report = sync_serving(app)
    assert report.status == "succeeded"
    assert report.stats["inserted"] == 1
    assert report.stats["facet_bits_built"] is False
    assert "UndefinedFunction" in report.stats["facet_bits_error"]
    assert seed.last_run()["status"] == "applied"
    with seed.dbs.serving.connect() as conn:
        assert not facet_bits.is_current(conn)
        counts = search.counts(conn, Filters(q="glassblower"), GROUPS, budget_ms=5000)
    assert counts.total == 1  # the queries count meanwhile


def test_the_web_role_counts_through_the_bitmaps_only(serving, owner, web_conn) -> None:
    _build(serving)
    assert _bits_rows(web_conn, Filters(q="engineer"))


@pytest.mark.parametrize(
    "statement",
    [
        *(
            f"SELECT 1 FROM serving.{table} LIMIT 1"
            for table in (
                "facet_bits",
                "facet_slots",
                "facet_companies",
                "facet_bits_build",
                "facet_bits_tail",
                "facet_dirty",
                "facet_delta_build",
                "facet_delta_bits",
                "facet_delta_slots",
            )
        ),
        "SELECT serving.operand_bits('engineer', false, 60, 10)",
        "SELECT serving.text_bits('engineer', 60, 10)",
        "SELECT serving.filter_bits('country', '{US}', 60)",
        "SELECT serving.posted_within_bits(7, 60)",
        "SELECT * FROM serving.group_bits('country', B'1', 12)",
        "SELECT serving.bits_of_ids('{1001}', 60)",
        "SELECT serving.bits_of_slots('{1}', 60)",
        "SELECT serving.facet_dirty_ids(pg_current_snapshot(), 10)",
        "SELECT serving.refresh_facet_delta()",
        "SELECT * FROM serving.live_bits(60)",
        "SELECT * FROM serving.dirty_facet_counts(NULL, NULL, '{1001}', '{country}')",
        "SELECT * FROM serving.facet_values('{}', '{}', '{}', '{}', NULL, NULL, 'x', NULL, NULL,"
        " NULL, NULL, now(), NULL, NULL, true, NULL, NULL, '{}', '{}')",
        "SELECT serving.build_facet_bits()",
    ],
)
def test_the_web_role_reads_no_bitmap_table_and_calls_no_helper(
    serving, seeded, web_conn, statement
) -> None:
    _build(serving)
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        web_conn.execute(statement)
