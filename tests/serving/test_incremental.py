"""Only changed rows move: change stamps on the source, staging of changed postings
only, removals, liveness apart from content, full and periodic reconciles."""

from __future__ import annotations

import psycopg

from serving_sync.source import IDENTITY
from tests.conftest import TestDatabases, both_layouts
from tests.serving.conftest import Seeder


def stamps(seed: Seeder, posting: int) -> tuple[int, int]:
    row = seed.sql("SELECT publish_xid, liveness_xid FROM core.postings WHERE id = %s", (posting,))[
        0
    ]
    return row["publish_xid"], row["liveness_xid"]


def test_the_first_sync_is_full_and_publishes_everything(seed: Seeder) -> None:
    ids = seed.postings(5)
    report = seed.sync()
    assert (report.mode, report.mode_reason) == ("full", "no applied sync to build on")
    assert (report.inserted, report.staged, report.source_rows) == (5, 5, 5)
    assert set(seed.jobs()) == set(ids)
    assert {r["id"] for r in seed.serving("SELECT id FROM serving.job_liveness")} == set(ids)


def test_a_sync_with_nothing_changed_stages_nothing(seed: Seeder) -> None:
    seed.postings(5)
    seed.sync()
    report = seed.sync()
    assert report.mode == "incremental"
    assert (report.staged, report.inserted, report.updated, report.removed) == (0, 0, 0, 0)
    assert (report.unchanged, report.liveness) == (5, 0)


@both_layouts
def test_an_edited_posting_is_the_only_one_staged(seed: Seeder) -> None:
    ids = seed.postings(5)
    seed.sync()
    seed.parse(ids[2], title="Staff Engineer")
    report = seed.sync()
    assert (report.mode, report.staged, report.updated, report.unchanged) == (
        "incremental",
        1,
        1,
        4,
    )
    assert seed.jobs()[ids[2]]["title"] == "Staff Engineer"


def test_a_reparse_with_the_same_fields_does_not_move_the_stamp(seed: Seeder) -> None:
    posting = seed.posting()
    seed.sync()
    before = stamps(seed, posting)
    seed.parse(posting)  # a new parser version, the same published fields
    assert stamps(seed, posting) == before
    assert seed.sync().staged == 0


def test_a_repoll_the_same_day_moves_no_stamp_and_a_new_day_only_liveness(seed: Seeder) -> None:
    posting = seed.posting()
    seed.sql("UPDATE core.postings SET last_seen_at = date_trunc('day', now()) + interval '1 hour'")
    seed.sync()
    before = stamps(seed, posting)
    seed.sql(
        "UPDATE core.postings SET last_seen_at = date_trunc('day', now()) + interval '2 hours'"
    )
    assert stamps(seed, posting) == before
    content_version = seed.serving("SELECT xmin::text AS v FROM serving.jobs")[0]["v"]
    seed.sql("UPDATE core.postings SET last_seen_at = date_trunc('day', now()) + interval '1 day'")
    publish_xid, liveness_xid = stamps(seed, posting)
    assert publish_xid == before[0]
    assert liveness_xid != before[1]
    report = seed.sync()
    assert (report.staged, report.updated, report.liveness) == (0, 0, 1)
    # The content row was not rewritten: same row version; the narrow table moved.
    assert seed.serving("SELECT xmin::text AS v FROM serving.jobs")[0]["v"] == content_version
    live = seed.serving("SELECT last_seen_on - current_date AS d FROM serving.job_liveness")
    assert live == [{"d": 1}]


def test_a_closed_posting_is_removed_and_answers_as_closed(seed: Seeder) -> None:
    ids = seed.postings(3)
    seed.sync()
    seed.sql(
        "UPDATE core.postings SET status = 'expired', closed_at = now(), close_reason = 'gone' "
        "WHERE id = %s",
        (ids[0],),
    )
    report = seed.sync()
    assert (report.mode, report.staged, report.removed, report.closed) == (
        "incremental",
        0,
        1,
        1,
    )
    assert ids[0] not in seed.jobs()
    closed = seed.serving("SELECT id, source, title, company, reason FROM serving.closed_jobs")
    assert closed == [
        {
            "id": ids[0],
            "source": "acme",
            "title": "Engineer 0",
            "company": "Acme",
            "reason": "expired",
        }
    ]


def test_a_reopened_posting_is_published_again_and_no_longer_closed(seed: Seeder) -> None:
    posting, _other = seed.postings(2)
    seed.sync()
    seed.sql(
        "UPDATE core.postings SET status = 'not_found', closed_at = now() WHERE id = %s", (posting,)
    )
    seed.sync()
    seed.sql(
        "UPDATE core.postings SET status = 'active', closed_at = NULL WHERE id = %s", (posting,)
    )
    report = seed.sync()
    assert report.inserted == 1
    assert posting in seed.jobs()
    assert seed.serving("SELECT id FROM serving.closed_jobs") == []


def test_closures_older_than_the_retention_are_pruned(seed: Seeder) -> None:
    old, recent, _open = seed.postings(3)
    seed.sync()
    seed.sql(
        "UPDATE core.postings SET status = 'expired', "
        "closed_at = now() - CASE WHEN id = %s THEN interval '100 days' ELSE interval '1 day' END "
        "WHERE id IN (%s, %s)",
        (old, old, recent),
    )
    seed.serving(
        "INSERT INTO serving.closed_jobs (id, source, title, closed_at, reason) "
        "VALUES (999, 'acme', 'Long gone', now() - interval '91 days', 'expired')"
    )
    report = seed.sync(retention_days=90)
    assert report.removed == 2
    assert report.pruned == 1
    assert [r["id"] for r in seed.serving("SELECT id FROM serving.closed_jobs")] == [recent]


def test_a_disabled_source_is_unpublished_by_an_incremental_sync(seed: Seeder) -> None:
    seed.postings(3)
    kept = Seeder(seed.dbs, source="other").postings(3)
    seed.sync()
    seed.sql("UPDATE ref.sources SET enabled = false WHERE id = 'acme'")
    report = seed.sync()
    assert (report.mode, report.removed) == ("incremental", 3)
    assert set(seed.jobs()) == set(kept)
    assert seed.serving("SELECT id FROM serving.closed_jobs") == []  # not closed: not followed


def test_a_new_repost_updates_the_openings_of_its_group(seed: Seeder) -> None:
    first = seed.posting()
    seed.sql("UPDATE core.postings SET repost_key = 'role', opening_key = 'a'")
    seed.sync()
    assert seed.jobs()[first]["openings_12m"] == 1
    second = seed.posting()
    seed.sql(
        "UPDATE core.postings SET repost_key = 'role', opening_key = 'b' WHERE id = %s", (second,)
    )
    report = seed.sync()
    assert (report.mode, report.inserted, report.updated) == ("incremental", 1, 1)
    assert seed.jobs()[first]["openings_12m"] == 2


@both_layouts
def test_a_change_committed_after_the_snapshot_is_picked_up_next_time(seed: Seeder) -> None:
    posting = seed.posting()
    seed.sync()
    # A parse commits while a sync reads: that sync does not see it...
    with psycopg.connect(seed.dbs.db.url) as slow:
        slow.execute(
            "UPDATE core.parse_results SET title = 'Edited mid-sync' WHERE posting_id = %s AND is_current",
            (posting,),
        )
        assert seed.sync().staged == 0
        slow.commit()
    # ...the next one does, although the edit's transaction began before the last snapshot.
    report = seed.sync()
    assert (report.staged, report.updated) == (1, 1)
    assert seed.jobs()[posting]["title"] == "Edited mid-sync"


def test_full_reconciles_every_row_and_says_why(seed: Seeder) -> None:
    seed.postings(4)
    seed.sync()
    report = seed.sync(full=True)
    assert (report.mode, report.mode_reason, report.staged) == ("full", "asked for", 4)
    assert (report.updated, report.unchanged) == (0, 4)


def test_a_full_reconcile_runs_when_the_last_one_is_older_than_the_setting(seed: Seeder) -> None:
    seed.postings(2)
    seed.sync()
    assert seed.sync(full_every_hours=24).mode == "incremental"
    seed.serving("UPDATE serving.sync_runs SET finished_at = finished_at - interval '25 hours'")
    report = seed.sync(full_every_hours=24)
    assert report.mode == "full"
    assert report.mode_reason.startswith("periodic: the last full reconcile was 25")


def _identity(db: object) -> str:
    with db.connect() as conn:  # type: ignore[attr-defined]
        return conn.execute(IDENTITY).fetchone()["identity"]


@both_layouts
def test_the_snapshot_is_taken_on_the_authoritative_cluster_and_applied_on_serving(
    seed: Seeder, databases: TestDatabases
) -> None:
    ids = seed.postings(3)
    assert seed.sync().mode == "full"
    seed.parse(ids[0], title="Edited at the source")
    report = seed.sync()
    assert (report.mode, report.staged, report.updated) == ("incremental", 1, 1)
    run = seed.last_run()
    # The base the next sync builds on names the authoritative database, wherever it is.
    assert run["source_identity"] == _identity(databases.db)
    authoritative_cluster = run["source_identity"].split("/")[0]
    serving_cluster = _identity(databases.serving).split("/")[0]
    assert (authoritative_cluster != serving_cluster) is databases.separate
    assert seed.jobs()[ids[0]]["title"] == "Edited at the source"


def test_a_base_from_another_source_database_is_not_built_on(seed: Seeder) -> None:
    seed.postings(2)
    seed.sync()
    seed.serving("UPDATE serving.sync_runs SET source_identity = 'another/1'")
    report = seed.sync()
    assert (report.mode, report.mode_reason) == (
        "full",
        "the last applied sync read another source database",
    )


def test_small_batches_stream_the_same_result(seed: Seeder) -> None:
    ids = seed.postings(25)
    report = seed.sync(batch=4)  # seven round trips of the server-side cursor
    assert report.inserted == 25
    assert set(seed.jobs()) == set(ids)
    assert seed.sync(full=True, batch=4).updated == 0
