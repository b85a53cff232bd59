"""An optional per-source `schedule` in sources.yaml: cron or preset, validated with file,
line and key; the source DAG gets it and still starts paused; unset stays manual."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import load_sources
from pipeline.errors import ConfigError

BASE = "sources:\n  gh:\n    platform: greenhouse\n    boards: [acme]\n"


@pytest.mark.parametrize("schedule", ["@hourly", "@daily", "*/15 * * * *", "0 6,18 * * MON-FRI"])
def test_cron_and_presets_load(tmp_path: Path, schedule: str) -> None:
    path = tmp_path / "sources.yaml"
    path.write_text(BASE + f"    schedule: '{schedule}'\n")
    assert load_sources(path, env={}).sources["gh"].schedule == schedule


def test_no_schedule_means_manual(tmp_path: Path) -> None:
    path = tmp_path / "sources.yaml"
    path.write_text(BASE)
    assert load_sources(path, env={}).sources["gh"].schedule is None


@pytest.mark.parametrize(
    ("schedule", "problem"),
    [
        ("@sometimes", "presets are @hourly, @daily, @weekly, @monthly, @quarterly, @yearly"),
        ("every hour", "is not a cron expression (5 fields) or a preset"),
        ("61 * * * *", "61 is outside 0-59"),
        ("0 0 32 * *", "32 is outside 1-31"),
    ],
)
def test_bad_schedules_name_the_line_and_key(tmp_path: Path, schedule: str, problem: str) -> None:
    path = tmp_path / "sources.yaml"
    path.write_text(BASE + f"    schedule: '{schedule}'\n")
    with pytest.raises(ConfigError) as caught:
        load_sources(path, env={})
    (message,) = caught.value.problems
    assert message.startswith(f"{path}:5: sources.gh.schedule: ")
    assert problem in message


@pytest.mark.airflow
def test_a_scheduled_source_dag_is_scheduled_and_paused(tmp_path: Path) -> None:
    from tests.airflow.harness import airflow_env, dagbag

    path = tmp_path / "sources.yaml"
    path.write_text(
        BASE + "    schedule: '*/30 * * * *'\n  lv:\n    platform: lever\n    boards: [acme]\n"
    )
    bag = dagbag(airflow_env(tmp_path, {"JOBHARBOR_SOURCES": str(path)}))
    assert bag["errors"] == {}
    gh, lv = bag["dags"]["jobharbor_gh"], bag["dags"]["jobharbor_lv"]
    assert gh["paused"] is True
    assert "*/30 * * * *" in gh["schedule"]
    assert (lv["paused"], lv["schedule"]) == (True, "None")
