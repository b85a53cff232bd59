"""Secrets never appear in output (docs/reliability.md §6): the configured secret values
(a database password, the S3 keys) are grepped for in everything `jobharbor` prints,
for a normal command, a failing one, and one whose database is unreachable."""

from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import urlsplit, urlunsplit

import pytest

from pipeline.settings import REPO_ROOT

SECRETS = {
    "password": "pw-Zq81rT5c",
    "access": "AKIAEXAMPLE7Q2",
    "secret": "s3-secret-Vb93kLm0",
}


def _with_password(url: str, port: int | None = None) -> str:
    parts = urlsplit(url)
    netloc = f"{parts.username or 'postgres'}:{SECRETS['password']}@{parts.hostname}:{port or parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


def _run(databases, tmp_path, *args: str, port: int | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JOBHARBOR_")}
    env.update(
        JOBHARBOR_DATABASE_URL=_with_password(databases.db.url, port),
        JOBHARBOR_SERVING_DATABASE_URL=_with_password(databases.serving.url, port),
        JOBHARBOR_RAW_STORE_URL=(tmp_path / "raw").as_uri(),
        JOBHARBOR_DATA_DIR=str(tmp_path),
        JOBHARBOR_CACHE_DIR=os.environ["JOBHARBOR_CACHE_DIR"],
        JOBHARBOR_S3_ACCESS_KEY=SECRETS["access"],
        JOBHARBOR_S3_SECRET_KEY=SECRETS["secret"],
        JOBHARBOR_SOURCES=str(REPO_ROOT / "sandbox" / "sources.yaml"),
    )
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "-v", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.stdout + done.stderr


@pytest.mark.parametrize(
    "args",
    [("status",), ("status", "--json"), ("discover", "--source", "no-such-source")],
    ids=["status", "status-json", "error"],
)
def test_no_configured_secret_appears_in_a_commands_output(databases, tmp_path, args) -> None:
    output = _run(databases, tmp_path, *args)
    assert output.strip()  # it did say something
    for name, value in SECRETS.items():
        assert value not in output, f"the {name} appears in the output of {args}"


def test_no_secret_appears_when_the_database_is_unreachable(databases, tmp_path) -> None:
    output = _run(databases, tmp_path, "status", port=9)  # nothing listens on port 9
    assert "error" in output.lower()
    for name, value in SECRETS.items():
        assert value not in output, f"the {name} appears in a connection error"


# ---------------------------------------------------------------- the web app's error paths

WEB_PATHS = (
    "/",
    "/?q=engineer",
    "/stats",
    "/jobs/1",
    "/api/jobs",
    "/api/jobs/1",
    "/api/stats",
    "/healthz",
    # 422s: a bad value in a page and in the API.
    "/?remote=sometimes",
    "/api/jobs?limit=0",
    "/api/jobs?cursor=%25%25%25",
    "/jobs/abc",
)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve_and_capture(tmp_path, reader_url: str) -> tuple[list[tuple[int, str]], str]:
    """`jobharbor -v web` in its own process, with the reader password configured; every
    path's status and body, and the server's whole log."""
    import time

    import httpx

    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JOBHARBOR_")}
    env.update(
        JOBHARBOR_SERVING_READER_URL=reader_url,
        JOBHARBOR_WEB_DB_PASSWORD=SECRETS["password"],
        JOBHARBOR_WEB_POOL_TIMEOUT_S="1",
        JOBHARBOR_DATA_DIR=str(tmp_path),
        JOBHARBOR_CACHE_DIR=os.environ["JOBHARBOR_CACHE_DIR"],
    )
    log = tmp_path / "web.log"
    with log.open("w") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "pipeline", "-v", "web", "--port", str(port)],
            cwd=REPO_ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    httpx.get(f"http://127.0.0.1:{port}/static/", timeout=1)
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise
                    time.sleep(0.2)
            answers = [
                (r.status_code, r.text)
                for r in (
                    httpx.get(f"http://127.0.0.1:{port}{path}", timeout=15) for path in WEB_PATHS
                )
            ]
        finally:
            server.terminate()
            server.wait(timeout=15)
    return answers, log.read_text()


def _reader_url(serving_url: str, port: int | None = None) -> str:
    parts = urlsplit(serving_url)
    netloc = f"jobharbor_web:{SECRETS['password']}@{parts.hostname}:{port or parts.port}"
    return urlunsplit(parts._replace(netloc=netloc, query="connect_timeout=1"))


def test_no_secret_appears_in_the_web_apps_pages_or_log_during_an_outage(
    databases, tmp_path
) -> None:
    answers, log = _serve_and_capture(tmp_path, _reader_url(databases.serving.url, port=9))
    statuses = {status for status, _ in answers}
    assert 503 in statuses  # the outage is real, and said
    assert "unavailable" in log.lower()  # the log says it too
    for status, body in answers:
        assert SECRETS["password"] not in body, status
    assert SECRETS["password"] not in log


def test_no_secret_appears_in_the_web_apps_422_bodies_or_log(databases, tmp_path) -> None:
    from serving_sync import roles

    roles.provision_web_role(databases.serving, SECRETS["password"])
    answers, log = _serve_and_capture(tmp_path, _reader_url(databases.serving.url))
    assert {status for status, _ in answers} >= {200, 422}
    for status, body in answers:
        assert SECRETS["password"] not in body, status
    assert SECRETS["password"] not in log
