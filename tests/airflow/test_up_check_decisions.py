"""The parts of `make up-check`'s decision steps (scripts/up_check_decisions.py) that
decide its verdict without Airflow running: a step not shown leaves its key false and
the next steps still run, the wait for the scheduler's pause event, and the small copy
of the screenshots for docs/. The steps themselves run against the real stack in
`make up-check`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image

from pipeline.settings import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "scripts"))
import up_check_decisions as decisions


class Page:
    """Where a failed step's screenshot would be taken; records the names."""

    def __init__(self) -> None:
        self.shots: list[str] = []

    def screenshot(self, path: Path, full_page: bool) -> None:
        self.shots.append(path.name)


def bare(tmp_path: Path) -> decisions.Decisions:
    """A Decisions with no database, browser or API: only what run() itself uses."""
    made = object.__new__(decisions.Decisions)
    made.page, made.shots = Page(), tmp_path
    made.scheduler_log = tmp_path / "scheduler.log"
    return made


def test_a_step_that_fails_leaves_its_keys_false_says_why_and_the_next_steps_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = bare(tmp_path)

    def failing() -> decisions.Shown:
        raise decisions.StepFailed("the run note does not name the approver")

    shown = decisions.Shown(("forced_poll",), "polled")
    for name in ("approve", "reject", "empty_preview", "over_cap", "alert", "lineage"):
        monkeypatch.setattr(steps, name, failing, raising=False)
    monkeypatch.setattr(steps, "forced_poll", lambda: shown, raising=False)
    monkeypatch.setattr(steps, "alert", lambda: decisions.Shown(("alert_delivered",), "mail"))
    done, keys = steps.run()
    assert done == ["polled", "mail"]
    assert keys == {key: key in ("forced_poll", "alert_delivered") for key in decisions.KEYS}
    out = capsys.readouterr().out
    assert "NOT SHOWN: failing: StepFailed: the run note does not name the approver" in out
    assert "failed-failing.png" in steps.page.shots


def test_no_answer_is_given_before_the_scheduler_took_the_approval_tasks_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = bare(tmp_path)
    run_id = "manual__2026-12-06T04:23:42+00:00"
    other = "manual__2026-12-06T04:20:00+00:00"
    event = f"{decisions.EXECUTOR_EVENT} for task instance TaskInstanceKey(dag_id='d', "
    steps.scheduler_log.write_text(f"{event}task_id='approval', run_id='{other}', ...)\n")
    clock = iter(range(0, 1000, 30))
    monkeypatch.setattr(decisions.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(decisions.time, "sleep", lambda s: None)
    # Another run's event is not this run's: the wait runs to its end.
    steps._paused_for_the_scheduler(run_id)
    assert next(clock) > 120
    steps.scheduler_log.write_text(f"{event}task_id='approval', run_id='{run_id}', ...)\n")
    clock = iter(range(0, 1000, 30))
    steps._paused_for_the_scheduler(run_id)
    assert next(clock) == 60  # seen at the first look


def test_the_docs_copy_is_a_narrow_palette_png_much_smaller_and_skips_missing_steps(
    tmp_path: Path,
) -> None:
    shots, docs = tmp_path / "shots", tmp_path / "docs"
    shots.mkdir()
    noisy = Image.effect_noise((1400, 900), 60).convert("RGB")
    noisy.save(shots / "5-approval-screen.png")
    said = decisions.publish(shots, docs)
    assert [p.name for p in docs.iterdir()] == ["5-approval-screen.png"]
    with Image.open(docs / "5-approval-screen.png") as copy:
        assert copy.mode == "P"
        assert copy.width == decisions.PUBLISHED_WIDTH
        assert len(copy.getcolors() or []) <= decisions.PUBLISHED_COLOURS
    assert (docs / "5-approval-screen.png").stat().st_size < (
        shots / "5-approval-screen.png"
    ).stat().st_size / 2
    assert said.startswith(str(docs))


@pytest.mark.parametrize(
    ("note", "decided_by", "named"),
    [
        ("Backfill approved by analyst (id analyst) at 2026-12-06T07:00:00+00:00: ok",
         "analyst (id analyst)", True),
        ("Backfill approved by Anonymous (id Anonymous) at 2026-12-06T07:00:00+00:00: ok",
         "Anonymous (id Anonymous)", False),
        ("Backfill approved by operator (id operator) at 2026-12-06T07:00:00+00:00: ok",
         "operator (id operator)", False),
        ("Backfill approved by analyst (id analyst) at 2026-12-06T07:00:00+00:00: ok",
         "", False),
    ],
)  # fmt: skip
def test_the_approver_counts_as_recorded_only_when_it_is_the_user_who_clicked(
    note: str, decided_by: str, named: bool
) -> None:
    assert decisions.approver_named(note, decided_by, "analyst") is named


def test_the_lineage_path_is_found_through_the_assets_and_only_downstream() -> None:
    graph = {
        "edges": [
            {"source_id": "dag:jobharbor_lever", "target_id": "asset:1"},
            {"source_id": "asset:1", "target_id": "dag:jobharbor_serving_sync"},
            {"source_id": "dag:jobharbor_serving_sync", "target_id": "asset:2"},
            {"source_id": "asset:2", "target_id": "dag:jobharbor_freshness"},
        ]
    }
    assert decisions.reaches(graph, "dag:jobharbor_lever", "dag:jobharbor_freshness")
    assert not decisions.reaches(graph, "dag:jobharbor_freshness", "dag:jobharbor_lever")
    assert not decisions.reaches({"edges": []}, "dag:jobharbor_lever", "dag:jobharbor_lever")
