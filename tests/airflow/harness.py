"""What the real-Airflow tests share: the environment a task sees, Airflow's metadata
database (migrated once per worker, cloned per test), the DagBag probe, and `AirflowCli`,
which runs `airflow ...` commands in one long-lived process per test (cli_server.py)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from pipeline.airflow.setup import pools
from pipeline.db.connect import sqlalchemy_url
from pipeline.settings import REPO_ROOT

BIN = Path(sys.executable).parent
CLI_SERVER = Path(__file__).with_name("cli_server.py")


def airflow_env(tmp_path: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "JOBHARBOR_"))}
    env.update(
        AIRFLOW_HOME=str(tmp_path / "airflow"),
        AIRFLOW__CORE__DAGS_FOLDER=str(REPO_ROOT / "dags"),
        AIRFLOW__CORE__LOAD_EXAMPLES="False",
        AIRFLOW__LOGGING__LOGGING_LEVEL="WARNING",
        JOBHARBOR_SOURCES=str(REPO_ROOT / "sandbox" / "sources.yaml"),
        # Share the built location index instead of rebuilding it in a temp data dir.
        JOBHARBOR_CACHE_DIR=str(REPO_ROOT / ".data" / "cache"),
        PATH=f"{BIN}:{env.get('PATH', '')}",
        PYTHONPATH=str(REPO_ROOT),
    )
    env.update(extra or {})
    return env


def jobharbor_env(
    tmp_path: Path, databases: Any, sandbox: Any, metadata_url: str, **extra: str
) -> dict[str, str]:
    """The environment of a task that crawls the sandbox into the test databases, with
    its raw objects and data under tmp_path; `extra` adds or overrides variables."""
    return airflow_env(
        tmp_path,
        {
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": metadata_url,
            "JOBHARBOR_DATABASE_URL": databases.db.url,
            "JOBHARBOR_SERVING_DATABASE_URL": databases.serving.url,
            "JOBHARBOR_RAW_STORE_URL": (tmp_path / "raw").resolve().as_uri(),
            "JOBHARBOR_DATA_DIR": str(tmp_path / "data"),
            "JOBHARBOR_SANDBOX_URL": sandbox.url,
            "JOBHARBOR_ALLOW_PRIVATE_NETWORKS": "true",
            **extra,
        },
    )


def run(
    args: list[str], env: dict[str, str], timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, env=env, capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT
    )


class AirflowCli:
    """`airflow` commands for one environment, run in one process that stays up (see
    cli_server.py): same commands, same exit codes and output, one start-up."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        # Beside AIRFLOW_HOME, not in it: the tests read the task logs under it.
        home = Path(env["AIRFLOW_HOME"])
        home.parent.mkdir(parents=True, exist_ok=True)
        self._outputs = Path(tempfile.mkdtemp(prefix="airflow-cli-", dir=home.parent))
        self._count = 0
        self._log: IO[bytes] = open(self._outputs / "server.log", "wb")  # noqa: SIM115
        self._server = subprocess.Popen(
            [sys.executable, str(CLI_SERVER)],
            env=env,
            cwd=REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )

    def __call__(self, *argv: str) -> subprocess.CompletedProcess[str]:
        """Run `airflow <argv>`; its stdout, stderr and exit code, as a subprocess's."""
        self._count += 1
        out, err = (self._outputs / f"{self._count}.{name}" for name in ("out", "err"))
        request = {"argv": list(argv), "stdout": str(out), "stderr": str(err)}
        assert self._server.stdin is not None
        assert self._server.stdout is not None
        self._server.stdin.write(json.dumps(request) + "\n")
        self._server.stdin.flush()
        answer = self._server.stdout.readline()
        if not answer:  # the server died: say why rather than hang or guess
            raise RuntimeError(
                "the Airflow CLI server exited: "
                + (self._outputs / "server.log").read_text(errors="replace")[-3000:]
            )
        return subprocess.CompletedProcess(
            ["airflow", *argv],
            json.loads(answer)["code"],
            out.read_text(errors="replace"),
            err.read_text(errors="replace"),
        )

    def __enter__(self) -> AirflowCli:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        # Every answer is in by now. An interpreter that ran Airflow can take many
        # seconds to exit (its threads), so it gets a moment and is then stopped.
        if self._server.stdin is not None:
            self._server.stdin.close()
        try:
            self._server.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self._server.kill()
            self._server.wait()
        self._log.close()


def run_states(cli: AirflowCli, dag_id: str) -> list[str]:
    listed = cli("dags", "list-runs", dag_id, "-o", "json")
    assert listed.returncode == 0, listed.stderr[-2000:]
    return [r["state"] for r in json.loads(last_json_line(listed.stdout))]


def last_json_line(text: str) -> str:
    """The JSON list a `-o json` command printed (log lines may come before it)."""
    return next(line for line in reversed(text.splitlines()) if line.startswith("["))


DAGBAG_PROBE = """
import json
from airflow.dag_processing.dagbag import DagBag
bag = DagBag(dag_folder=__import__("os").environ["AIRFLOW__CORE__DAGS_FOLDER"])
def uris(condition):
    if condition is None:
        return []
    if hasattr(condition, "uri"):
        return [condition.uri]
    return sorted(u for part in condition.objects for u in uris(part))
def on_assets(dag):
    condition = getattr(dag.timetable, "asset_condition", None)
    return {"kind": type(condition).__name__, "uris": uris(condition)} if condition else None
def timer(dag):
    inner = getattr(dag.timetable, "timetable", dag.timetable)
    return getattr(inner, "_expression", None) or getattr(inner, "expression", None)
print(json.dumps({
    "errors": {k: str(v) for k, v in bag.import_errors.items()},
    "dags": {
        dag_id: {
            "paused": dag.is_paused_upon_creation,
            "schedule": str(dag.schedule),
            "assets": on_assets(dag),
            "timer": timer(dag),
            "outlets": {t.task_id: [o.uri for o in t.outlets] for t in dag.tasks if t.outlets},
            "tasks": {
                t.task_id: {"pool": t.pool, "slots": t.pool_slots, "rule": getattr(t.trigger_rule, "value", str(t.trigger_rule)),
                            "down": sorted(t.downstream_task_ids), "queue": t.queue}
                for t in dag.tasks
            },
        }
        for dag_id, dag in bag.dags.items()
    },
}))
"""


def dagbag(env: dict[str, str]) -> dict:
    result = run([sys.executable, "-c", DAGBAG_PROBE], env)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def airflow_template(pg_server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Airflow's metadata schema, migrated once per worker (`airflow db migrate` takes
    seconds); each test's metadata database is a copy of it."""
    name = f"jh_airflow_template_{uuid.uuid4().hex[:8]}"
    url = sqlalchemy_url(pg_server.create(name))
    env = airflow_env(tmp_path_factory.mktemp("airflow-template"))
    migrated = run(
        ["airflow", "db", "migrate"], {**env, "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": url}
    )
    assert migrated.returncode == 0, migrated.stderr[-3000:]
    yield name
    pg_server.drop(name)


@pytest.fixture
def airflow_db(pg_server, airflow_template: str) -> Iterator[str]:
    name = f"jh_airflow_{uuid.uuid4().hex[:8]}"
    url = pg_server.create(name, airflow_template)
    yield sqlalchemy_url(url)
    pg_server.drop(name)


@contextlib.contextmanager
def airflow_cli(env: dict[str, str]) -> Iterator[AirflowCli]:
    """The CLI of `env`, with the pools the tasks need (the shared one and the lanes')."""
    with AirflowCli(env) as cli, tempfile.NamedTemporaryFile("w", suffix=".json") as listed:
        json.dump(pools(), listed)
        listed.flush()
        pool = cli("pools", "import", listed.name)
        assert pool.returncode == 0, pool.stderr[-3000:]
        yield cli
