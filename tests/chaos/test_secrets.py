"""Secrets never appear in output (issue 15 section 6): the configured secret values
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
