"""`make up`'s logins (pipeline.airflow.auth): the passwords file, and a real API server
run with the settings `make up` gives it, which refuses whoever has not logged in and
knows who has."""

from __future__ import annotations

import contextlib
import json
import socket
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pipeline.airflow.auth import (
    ANALYST,
    OPERATOR,
    USERS,
    LoginFailed,
    ensure_passwords,
    token,
    token_from_file,
    users_setting,
)
from pipeline.airflow.env import metadata_url
from tests.airflow.harness import airflow_db, airflow_env, airflow_template  # noqa: F401

pytestmark = pytest.mark.airflow


def test_passwords_are_generated_once_per_user_into_a_file_only_its_owner_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "airflow" / "passwords.json"
    first = ensure_passwords(path, {})
    assert set(first) == set(USERS) == {OPERATOR, ANALYST}
    assert first[OPERATOR] != first[ANALYST]
    assert min(len(p) for p in first.values()) >= 20
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == first
    assert ensure_passwords(path, {}) == first  # kept, not regenerated
    out = capsys.readouterr()
    assert all(p not in out.out + out.err for p in first.values())


def test_a_password_from_the_environment_wins_and_a_loose_file_is_made_private(
    tmp_path: Path,
) -> None:
    path = tmp_path / "passwords.json"
    kept = ensure_passwords(path, {})
    path.chmod(0o644)
    now = ensure_passwords(path, {OPERATOR: "from-the-environment", ANALYST: None})
    assert now == {OPERATOR: "from-the-environment", ANALYST: kept[ANALYST]}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def api_server(tmp_path: Path, database_url: str) -> Iterator[tuple[str, dict[str, str]]]:
    """`airflow api-server` with `make up`'s auth settings and metadata driver
    (pipeline.airflow.env)."""
    passwords = ensure_passwords(tmp_path / "passwords.json", {})
    port = free_port()
    env = airflow_env(
        tmp_path,
        {
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": metadata_url(database_url),
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "False",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS": users_setting(),
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE": str(tmp_path / "passwords.json"),
            "AIRFLOW__LOGGING__LOGGING_LEVEL": "INFO",
        },
    )
    log = tmp_path / "api-server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            ["airflow", "api-server", "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            assert server.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/api/v2/monitor/health", timeout=2).status_code == 200:
                    break
            time.sleep(1)
        yield base, passwords
    finally:
        server.terminate()
        server.wait(timeout=60)
    assert all(p not in log.read_text() for p in passwords.values()), "a password was logged"


def test_the_api_refuses_an_unauthenticated_call_and_knows_who_logged_in(
    tmp_path: Path,
    airflow_db: str,  # noqa: F811
) -> None:
    with api_server(tmp_path, airflow_db) as (base, passwords), httpx.Client(base_url=base) as c:
        assert c.get("/api/v2/dags").status_code == 401  # no token
        assert c.get("/auth/token").status_code == 403  # no credential-free token
        with pytest.raises(LoginFailed, match="401"):
            token(c, ANALYST, passwords[ANALYST] + "x")
        analyst = {"Authorization": f"Bearer {token(c, ANALYST, passwords[ANALYST])}"}
        assert c.get("/api/v2/dags", headers=analyst).status_code == 200
        # The analyst's role (User) answers approvals and triggers DAGs, not pools.
        assert c.get("/api/v2/pools", headers=analyst).status_code == 200
        pool = {"name": "p", "slots": 1, "include_deferred": False}
        assert c.post("/api/v2/pools", json=pool, headers=analyst).status_code == 403
        operator = token_from_file(c, tmp_path / "passwords.json")
        assert c.post("/api/v2/pools", json=pool, headers={"Authorization": f"Bearer {operator}"}).status_code == 201  # fmt: skip
        # Who the UI (and so a decision on its approval screen) takes the caller for.
        me = c.get("/ui/auth/me", headers=analyst)
        assert me.status_code == 200
        assert me.json()["username"] == ANALYST
        # The Assets graph's query (a jsonb #> path) through the psycopg2 driver.
        graph = c.get("/ui/dependencies", headers=analyst)
        assert graph.status_code == 200, graph.text[:500]
