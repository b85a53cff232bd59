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


def test_a_role_other_than_the_superuser_cannot_reach_the_maintenance_template_or_airflow_databases(
    root: Path,
) -> None:
    """PostgreSQL grants CONNECT and TEMPORARY on every database to PUBLIC: a login role
    made for the web app could otherwise open the `airflow` metadata or `postgres`
    database and write temporary tables there. The platform's databases keep PUBLIC's
    CONNECT (their own grants decide), and the superuser reaches everything."""
    cluster = ensure_cluster(
        root, databases=("jobharbor", "airflow"), durable=False, password_auth=False
    )
    with psycopg.connect(cluster.url("postgres"), autocommit=True) as conn:
        conn.execute("CREATE ROLE visitor LOGIN")
    visitor = f"postgresql://visitor@127.0.0.1:{cluster.port}"
    for name in ("postgres", "template1", "airflow"):
        with pytest.raises(psycopg.OperationalError, match="permission denied for database"):
            psycopg.connect(f"{visitor}/{name}", connect_timeout=5).close()
        assert _connects(cluster.url(name))
    assert _connects(f"{visitor}/jobharbor")
    # Idempotent: the next command's ensure_cluster keeps the revokes and says nothing new.
    ensure_cluster(root, databases=("jobharbor", "airflow"), durable=False, password_auth=False)
    assert not _connects(f"{visitor}/airflow")
