"""Verification that can fail: a hand-edited, dropped or extra row in serving.jobs
fails the sync, which rolls back and records why; a full reconcile repairs them."""

from __future__ import annotations

import pytest

from serving_sync import stage
from serving_sync.verify import VerificationFailed
from tests.conftest import both_layouts
from tests.serving.conftest import Seeder

# Corruption that happens while the sync writes (another writer, a broken apply): a
# statement trigger runs `action` once, after the sync's last write to `table`.
TAMPER = """
CREATE FUNCTION serving.tamper() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() = 1 AND current_setting('tamper.done', true) IS DISTINCT FROM 'yes' THEN
        PERFORM set_config('tamper.done', 'yes', true);
        {action};
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER tamper AFTER {event} ON serving.{table}
    FOR EACH STATEMENT EXECUTE FUNCTION serving.tamper();
"""
EXTRA_ROW = (
    "INSERT INTO serving.jobs (id, source, external_id, status, title, first_seen_at, url) "
    "VALUES (424242, 'acme', 'ghost', 'active', 'Ghost job', now(), 'http://x/ghost') "
    "ON CONFLICT DO NOTHING"
)


def tamper(action: str, table: str = "jobs", event: str = "DELETE") -> str:
    return TAMPER.format(action=action, table=table, event=event)


def content(seed: Seeder) -> dict[int, tuple]:
    return {
        r["id"]: (r["title"], r["fingerprint"])
        for r in seed.serving("SELECT id, title, fingerprint FROM serving.jobs")
    }


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        (
            "UPDATE serving.jobs SET title = 'Hand edit' WHERE id = (SELECT min(id) FROM serving.jobs)",
            "rows differ from the snapshot",
        ),
        (
            "DELETE FROM serving.jobs WHERE id = (SELECT min(id) FROM serving.jobs)",
            "serving holds 2 rows, the source publishes 3",
        ),
        (EXTRA_ROW, "serving holds 4 rows, the source publishes 3"),
    ],
    ids=["hand-edited row", "dropped row", "extra row"],
)
@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
@both_layouts
def test_a_corrupted_result_fails_rolls_back_and_is_recorded(
    seed: Seeder, action: str, reason: str, full: bool
) -> None:
    ids = seed.postings(3)
    seed.sync()
    seed.parse(ids[1], title="Edited at the source")
    before = content(seed)
    seed.serving(tamper(action))
    with pytest.raises(VerificationFailed, match=reason):
        seed.sync(full=full)
    assert content(seed) == before  # rolled back: not even the real edit was applied
    run = seed.last_run()
    assert run["status"] == "failed"
    assert reason in run["error"]


def test_a_dropped_staged_row_is_named(seed: Seeder) -> None:
    ids = seed.postings(3)
    seed.sync()
    seed.parse(ids[1], title="Edited at the source")
    seed.serving(tamper(f"DELETE FROM serving.jobs WHERE id = {ids[1]}"))
    with pytest.raises(
        VerificationFailed, match=rf"open postings missing from serving: ids \[{ids[1]}\]"
    ):
        seed.sync()


def test_an_extra_row_left_after_a_full_sync_is_named(seed: Seeder) -> None:
    seed.postings(3)
    seed.sync()
    seed.serving(tamper(EXTRA_ROW))
    with pytest.raises(
        VerificationFailed, match=r"no longer open remain in serving: ids \[424242\]"
    ):
        seed.sync(full=True)


def test_a_hand_edit_is_repaired_by_a_full_reconcile(seed: Seeder) -> None:
    ids = seed.postings(3)
    seed.sync()
    seed.serving("UPDATE serving.jobs SET title = 'Hand edit' WHERE id = %s", (ids[0],))
    report = seed.sync(full=True)
    assert report.updated == 1
    assert seed.jobs()[ids[0]]["title"] == "Engineer 0"


def test_a_row_whose_fingerprint_changed_under_it_is_rewritten_by_a_full_reconcile(
    seed: Seeder,
) -> None:
    """A migration that adds a column to the fingerprint changes every stored fingerprint
    while the staged values may equal the stored ones: such a row is written again (its
    source_fingerprint renewed), never left to fail the next verification."""
    ids = seed.postings(3)
    seed.sync()
    seed.serving("UPDATE serving.jobs SET source_fingerprint = 'before the migration'")
    report = seed.sync(full=True)
    assert report.updated == 3
    stale = seed.serving(
        "SELECT id FROM serving.jobs WHERE fingerprint IS DISTINCT FROM source_fingerprint"
    )
    assert stale == []
    assert set(seed.jobs()) == set(ids)


@both_layouts
def test_a_dropped_row_fails_the_next_sync_and_the_one_after_repairs_it(seed: Seeder) -> None:
    ids = seed.postings(3)
    seed.sync()
    seed.serving("DELETE FROM serving.jobs WHERE id = %s", (ids[0],))
    with pytest.raises(VerificationFailed, match="serving holds 2 rows, the source publishes 3"):
        seed.sync()
    report = seed.sync()  # a failure puts the base in doubt: this one is full
    assert (report.mode, report.mode_reason) == ("full", "a sync failed since the last applied one")
    assert report.inserted == 1
    assert set(seed.jobs()) == set(ids)
    assert seed.sync().mode == "incremental"


def test_hand_edited_liveness_fails_verification(seed: Seeder) -> None:
    seed.postings(2)
    seed.sync()
    seed.serving(
        tamper(
            "DELETE FROM serving.job_liveness WHERE id = (SELECT min(id) FROM serving.jobs)",
            table="job_liveness",
            event="INSERT",
        )
    )
    with pytest.raises(
        VerificationFailed, match=r"liveness differs from the snapshot: ids \[\d+\]"
    ):
        seed.sync(full=True)


def test_duplicate_ids_in_the_snapshot_are_found(seed: Seeder) -> None:
    with seed.dbs.serving.connect() as conn:
        stage.create_staging(conn)
        row = [7, "acme", "7", "active", "t", *[None] * (len(stage.CONTENT) - 5)]
        stage.copy_rows(conn, "staging", stage.CONTENT[:5] + stage.CONTENT[5:], [row, row])
        assert stage.duplicate_ids(conn) == [7]
        conn.rollback()
