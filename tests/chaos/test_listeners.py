"""Listeners bind to loopback unless a setting says otherwise (docs/reliability.md §3):
the listening sockets of a running sandbox process, of `jobharbor web` and of the
embedded PostgreSQL cluster, read from the operating system. (`make up`'s are listed
by `make up-check`, scripts/up_check.py.)"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from chaos.listeners import exposed, listeners, port_listeners, sandbox_process, web_process
from serving_sync import roles


def test_a_running_sandbox_listens_on_loopback_only(tmp_path: Path) -> None:
    with sandbox_process(tmp_path) as process:
        found = listeners([process.pid])
    assert found, "the sandbox process has no listening socket"
    assert exposed(found) == []


def test_the_check_flags_a_sandbox_told_to_listen_on_every_interface(tmp_path: Path) -> None:
    """The setting that says otherwise (--host 0.0.0.0) is seen as exposed."""
    with sandbox_process(tmp_path, "--host", "0.0.0.0") as process:
        found = listeners([process.pid])
    assert [address for _, address, _ in exposed(found)] == ["0.0.0.0"]


def test_the_embedded_postgresql_cluster_listens_on_loopback_only(pg_server) -> None:
    parts = urlsplit(pg_server.admin_url)
    if parts.hostname not in ("127.0.0.1", "localhost"):
        pytest.skip(f"JOBHARBOR_TEST_ADMIN_URL points at an external server ({parts.hostname})")
    found = port_listeners(parts.port or 5432)
    assert found, "no listener on the cluster's port"
    assert exposed(found) == []


@pytest.fixture
def reader_url(databases) -> str:
    """The test serving database, logged in as the web role (as `jobharbor web` reads it)."""
    roles.provision_web_role(databases.serving, "listener-test")
    return roles.reader_url(databases.serving.url, "listener-test")


def test_jobharbor_web_listens_on_loopback_only(reader_url: str) -> None:
    with web_process(reader_url) as process:
        found = listeners([process.pid])
    assert found, "jobharbor web has no listening socket"
    assert exposed(found) == []


def test_the_check_flags_jobharbor_web_told_to_listen_on_every_interface(
    reader_url: str,
) -> None:
    with web_process(reader_url, "--host", "0.0.0.0") as process:
        found = listeners([process.pid])
    assert [address for _, address, _ in exposed(found)] == ["0.0.0.0"]
