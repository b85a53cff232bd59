"""A dry run is a plan: counts and a sample of each change, with the fields an update
changes. It writes nothing to serving and does not move the next sync's base."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pipeline.cli import main
from serving_sync.mode import History, choose_mode
from tests.serving.conftest import Seeder


def serving_state(seed: Seeder) -> list[list[dict]]:
    return [
        seed.serving(f"SELECT * FROM serving.{table} ORDER BY id")
        for table in ("jobs", "job_liveness", "closed_jobs")
    ]


def changes(seed: Seeder) -> tuple[int, int, int]:
    """One new posting, one edited, one closed (after a first sync of three)."""
    ids = seed.postings(3)
    seed.sync()
    seed.parse(ids[1], title="Edited title", remote="yes")
    seed.sql(
        "UPDATE core.postings SET status = 'expired', closed_at = now() WHERE id = %s", (ids[2],)
    )
    seed.sql(
        "UPDATE core.postings SET last_seen_at = now() + interval '1 day' WHERE id = %s", (ids[0],)
    )
    new = seed.posting(title="Brand new")
    return new, ids[1], ids[2]


def test_a_dry_run_returns_the_plan_and_changes_nothing(seed: Seeder) -> None:
    new, edited, closed = changes(seed)
    before = serving_state(seed)
    plan = seed.sync(dry_run=True)
    assert (plan.inserted, plan.updated, plan.removed, plan.unchanged) == (1, 1, 1, 1)
    assert plan.liveness == 2  # the new one and the one seen tomorrow
    assert [r["id"] for r in plan.sample["insert"]] == [new]
    assert plan.sample["insert"][0]["title"] == "Brand new"
    [update] = plan.sample["update"]
    assert (update["id"], sorted(update["changed"])) == (edited, ["title", "work_mode"])
    assert [r["id"] for r in plan.sample["remove"]] == [closed]
    assert serving_state(seed) == before
    assert seed.last_run()["status"] == "previewed"
    # The dry run is not a base: the real sync still sees every change, the same ones.
    applied = seed.sync()
    assert (applied.mode, applied.inserted, applied.updated, applied.removed) == (
        "incremental",
        1,
        1,
        1,
    )
    assert serving_state(seed) != before


def test_a_dry_run_shows_a_mass_removal_it_would_refuse(seed: Seeder) -> None:
    seed.postings(2)
    seed.sync()
    seed.sql("UPDATE core.postings SET status = 'expired', closed_at = now()")
    plan = seed.sync(dry_run=True)
    assert plan.removed == 2
    assert len(plan.sample["remove"]) == 2


def test_the_cli_dry_run_prints_the_plan(
    seed: Seeder, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    _new, edited, _closed = changes(seed)
    monkeypatch.setenv("JOBHARBOR_DATABASE_URL", seed.dbs.db.url)
    monkeypatch.setenv("JOBHARBOR_SERVING_DATABASE_URL", seed.dbs.serving.url)
    monkeypatch.setenv("JOBHARBOR_DATA_DIR", str(tmp_path))
    assert main(["sync", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "inserted=1, updated=1, removed=1" in out
    assert f"update {edited}: Edited title changed: title, work_mode" in out
    assert seed.last_run()["status"] == "previewed"
    assert main(["sync", "--full"]) == 0
    assert "mode=full, mode_reason=asked for" in capsys.readouterr().out


NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
BASE = History("10:12:", "db/1", NOW - timedelta(hours=2), False)


@pytest.mark.parametrize(
    ("history", "kwargs", "expected"),
    [
        (BASE, {}, ("incremental", None)),
        (BASE, {"full_requested": True}, ("full", "asked for")),
        (History(None, None, None, False), {}, ("full", "no applied sync to build on")),
        (
            History("10:12:", "other/2", NOW, False),
            {},
            ("full", "the last applied sync read another source database"),
        ),
        (
            History("10:12:", "db/1", NOW, True),
            {},
            ("full", "a sync failed since the last applied one"),
        ),
        (BASE, {"full_every": timedelta(hours=3)}, ("incremental", None)),
        (
            BASE,
            {"full_every": timedelta(hours=1)},
            ("full", "periodic: the last full reconcile was 2.0h ago"),
        ),
        (
            History("10:12:", "db/1", None, False),
            {"full_every": timedelta(hours=1)},
            ("full", "periodic: no full reconcile on record"),
        ),
    ],
)
def test_the_mode_builds_on_the_last_sync_only_when_it_can_be_trusted(
    history: History, kwargs: dict, expected: tuple[str, str | None]
) -> None:
    mode = choose_mode(history, identity="db/1", now=NOW, **kwargs)
    assert (mode.name, mode.reason) == expected
