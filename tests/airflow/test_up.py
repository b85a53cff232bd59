"""`make up` (scripts/airflow-up.sh): the components it starts and where they listen.
The running stack's sockets are listed by `make up-check` (scripts/up_check.py)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.airflow.env import execution_api_url
from pipeline.settings import REPO_ROOT

SCRIPT = REPO_ROOT / "scripts" / "airflow-up.sh"


def started_commands() -> dict[str, list[str]]:
    """The `start NAME ARGS...` lines of the script: Airflow's arguments by component."""
    commands = {}
    for line in SCRIPT.read_text().splitlines():
        match = re.match(r"start (\S+) (.+)$", line.strip())
        if match:
            commands[match[1]] = shlex.split(match[2])
    return commands


def test_make_up_starts_the_four_components_without_task_log_servers() -> None:
    commands = started_commands()
    assert set(commands) == {"api-server", "scheduler", "dag-processor", "triggerer"}
    assert "--skip-serve-logs" in commands["scheduler"]
    assert "--skip-serve-logs" in commands["triggerer"]
    assert commands["api-server"][1:] == [
        "--host",
        "$AIRFLOW__API__HOST",
        "--port",
        "$AIRFLOW__API__PORT",
    ]


def test_the_installed_airflow_accepts_every_command_make_up_runs() -> None:
    """An Airflow upgrade that drops a flag (say --skip-serve-logs) fails here, not in
    front of a user."""
    from airflow.cli.cli_parser import get_parser

    parser = get_parser()
    for name, command in started_commands().items():
        args = [a.replace("$AIRFLOW__API__HOST", "127.0.0.1") for a in command]
        args = [a.replace("$AIRFLOW__API__PORT", "8080") for a in args]
        parsed = parser.parse_args(args)
        assert parsed.subcommand == name
    assert parser.parse_args(["scheduler", "--skip-serve-logs"]).skip_serve_logs is True


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8080/execution/"),
        ("0.0.0.0", "http://127.0.0.1:8080/execution/"),
        ("::", "http://127.0.0.1:8080/execution/"),
        ("10.1.2.3", "http://10.1.2.3:8080/execution/"),
        ("fd00::1", "http://[fd00::1]:8080/execution/"),
    ],
)
def test_tasks_reach_the_api_server_where_JOBHARBOR_AIRFLOW_HOST_binds_it(
    host: str, url: str
) -> None:
    assert execution_api_url(host, "8080") == url


def local_settings() -> str:
    """The airflow_local_settings.py the script writes into AIRFLOW_HOME/config."""
    text = SCRIPT.read_text()
    return text.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]


@pytest.mark.parametrize(("preload", "loaded"), [("1", True), ("0", False), (None, False)])
def test_the_local_settings_preload_the_task_code_only_when_told(
    tmp_path: Path, preload: str | None, loaded: bool
) -> None:
    (tmp_path / "airflow_local_settings.py").write_text(local_settings())
    env = {k: v for k, v in os.environ.items() if k != "JOBHARBOR_AIRFLOW_PRELOAD"}
    env["PYTHONPATH"] = f"{tmp_path}:{REPO_ROOT}"
    if preload is not None:
        env["JOBHARBOR_AIRFLOW_PRELOAD"] = preload
    probe = "import sys, airflow_local_settings; print('pipeline.airflow.tasks' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == str(loaded)


def test_airflows_metadata_goes_through_psycopg2_whatever_the_platforms_url_says() -> None:
    from pipeline.airflow.env import metadata_url

    for given in ("postgresql://u:p@h:5/airflow", "postgresql+psycopg://u:p@h:5/airflow"):
        assert metadata_url(given) == "postgresql+psycopg2://u:p@h:5/airflow"


def test_make_up_turns_the_deadline_alert_on_unless_the_setting_is_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pipeline.airflow.env import MAKE_UP_DEADLINE_MINUTES, make_up_deadline_minutes
    from pipeline.airflow.settings import AlertSettings

    monkeypatch.delenv("JOBHARBOR_ALERT_DEADLINE_MINUTES", raising=False)
    assert make_up_deadline_minutes(AlertSettings()) == MAKE_UP_DEADLINE_MINUTES
    monkeypatch.setenv("JOBHARBOR_ALERT_DEADLINE_MINUTES", "0")  # off, as asked
    assert make_up_deadline_minutes(AlertSettings()) is None
    assert AlertSettings().deadline_minutes == 0
