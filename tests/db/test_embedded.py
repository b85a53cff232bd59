"""The embedded default cluster: private, password-protected, reused across commands."""

from __future__ import annotations

import stat
from pathlib import Path

import psycopg
import pytest

from pipeline.db.embedded import ensure_cluster, stop_cluster

pytestmark = pytest.mark.db  # each test starts a cluster of its own


@pytest.fixture
def root(tmp_path: Path):
    path = tmp_path / "pg"
    try:
        yield path
    finally:
        stop_cluster(path)


def _connects(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            return conn.execute("SELECT 1").fetchone()[0] == 1
    except psycopg.OperationalError:
        return False


def test_other_local_users_cannot_log_in_without_the_password(root: Path) -> None:
    cluster = ensure_cluster(root, databases=("jobharbor",), durable=False)
    password_file = root / "password"
    assert stat.S_IMODE(password_file.stat().st_mode) == 0o600
    assert _connects(cluster.url("jobharbor"))
    assert not _connects(f"postgresql://postgres@127.0.0.1:{cluster.port}/jobharbor")
    assert not _connects(f"postgresql://postgres:guess@127.0.0.1:{cluster.port}/jobharbor")
    # Reused, same port and password, by the next command.
    again = ensure_cluster(root, databases=("jobharbor",), durable=False)
    assert (again.port, again.password) == (cluster.port, cluster.password)


def test_a_cluster_that_trusted_loopback_is_tightened_on_next_use(root: Path) -> None:
    old = ensure_cluster(root, databases=("jobharbor",), durable=False, password_auth=False)
    assert _connects(old.url("jobharbor"))  # an older version's cluster: no password
    new = ensure_cluster(root, databases=("jobharbor",), durable=False)
    assert new.password
    assert _connects(new.url("jobharbor"))
    assert not _connects(old.url("jobharbor"))
