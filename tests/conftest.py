"""Shared fixtures: a real, throwaway PostgreSQL cluster, migrated template
databases cloned per test, the sandbox job web over real sockets, and an App
wired to all of them exactly as production wires itself."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from pipeline.app import App
from pipeline.db import migrate
from pipeline.db.connect import Database
from pipeline.db.embedded import EmbeddedCluster, ensure_cluster, stop_cluster
from pipeline.settings import REPO_ROOT, Settings
from sandbox.server import RunningSandbox, start_sandbox
from serving_sync import schema as serving_schema

SANDBOX_SOURCES = REPO_ROOT / "sandbox" / "sources.yaml"
TEST_EGRESS = "127.0.0.1,127.0.0.2"
TEMPLATE = "jh_template"
SERVING_TEMPLATE = "jh_serving_template"

# The engine fixtures (`make_app`: an App from a sources file written by the test, and
# `second_sandbox`) serve the crawl, phases, rawstore and chaos tests alike.
pytest_plugins = ["tests.apps"]


def pytest_configure(config: pytest.Config) -> None:
    """A private base temp dir per session. pytest's shared numbered dirs
    (/tmp/pytest-of-USER/pytest-N) keep only the newest three, so parallel sessions
    of the same user delete each other's running Postgres clusters and raw stores."""
    if not config.option.basetemp and not hasattr(config, "workerinput"):
        config.option.basetemp = tempfile.mkdtemp(prefix="jobharbor-pytest-")
        config._jobharbor_basetemp = config.option.basetemp  # type: ignore[attr-defined]


def pytest_unconfigure(config: pytest.Config) -> None:
    own = getattr(config, "_jobharbor_basetemp", None)
    if own:
        shutil.rmtree(own, ignore_errors=True)


def real_fixtures_dir() -> Path:
    return Path(
        os.environ.get("JOBHARBOR_REAL_FIXTURES", REPO_ROOT.parent / "shared" / "fixtures" / "real")
    )


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's JOBHARBOR_* variables must not leak into tests."""
    for name in list(os.environ):
        if name.startswith("JOBHARBOR_") and name != "JOBHARBOR_REAL_FIXTURES":
            monkeypatch.delenv(name)


@dataclass(frozen=True)
class PgServer:
    """Where test databases are created: our own cluster, or JOBHARBOR_TEST_ADMIN_URL."""

    admin_url: str

    def url(self, database: str) -> str:
        parts = urlsplit(self.admin_url)
        return urlunsplit(parts._replace(path=f"/{database}"))

    def create(self, name: str, template: str | None = None) -> str:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            suffix = f' TEMPLATE "{template}"' if template else ""
            conn.execute(f'CREATE DATABASE "{name}"{suffix}')
        return self.url(name)

    def drop(self, name: str) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    external = os.environ.get("JOBHARBOR_TEST_ADMIN_URL")
    if external:
        yield PgServer(external)
        return
    root = tmp_path_factory.mktemp("pgcluster")
    # Throwaway: no fsync, and loopback trusted for the few minutes the suite runs.
    cluster: EmbeddedCluster = ensure_cluster(
        root, databases=(), durable=False, password_auth=False
    )
    try:
        yield PgServer(cluster.url("postgres"))
    finally:
        stop_cluster(root)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def templates(pg_server: PgServer) -> tuple[str, str]:
    """Migrated template databases; each test gets a fast clone of them."""
    for name in (TEMPLATE, SERVING_TEMPLATE):
        pg_server.drop(name)
    migrate.upgrade(Database(pg_server.create(TEMPLATE)))
    serving_schema.upgrade(Database(pg_server.create(SERVING_TEMPLATE)))
    return TEMPLATE, SERVING_TEMPLATE


@dataclass(frozen=True)
class TestDatabases:
    db: Database
    serving: Database


@pytest.fixture
def databases(pg_server: PgServer, templates: tuple[str, str]) -> Iterator[TestDatabases]:
    tag = uuid.uuid4().hex[:10]
    names = (f"jh_{tag}", f"jh_serving_{tag}")
    urls = [
        pg_server.create(name, template) for name, template in zip(names, templates, strict=True)
    ]
    try:
        yield TestDatabases(Database(urls[0]), Database(urls[1]))
    finally:
        for name in names:
            pg_server.drop(name)


@pytest.fixture
def empty_database(pg_server: PgServer) -> Iterator[Database]:
    name = f"jh_empty_{uuid.uuid4().hex[:10]}"
    url = pg_server.create(name)
    try:
        yield Database(url)
    finally:
        pg_server.drop(name)


@pytest.fixture(scope="session")
def sandbox_server() -> Iterator[RunningSandbox]:
    running = start_sandbox()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def sandbox(sandbox_server: RunningSandbox, monkeypatch: pytest.MonkeyPatch) -> RunningSandbox:
    sandbox_server.state.reset()
    monkeypatch.setenv("JOBHARBOR_SANDBOX_URL", sandbox_server.url)
    return sandbox_server


def make_settings(databases: TestDatabases, data_dir: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "database_url": databases.db.url,
        "serving_database_url": databases.serving.url,
        "raw_store_url": (data_dir / "raw").resolve().as_uri(),
        "data_dir": data_dir,
        "allow_private_networks": True,  # the sandbox is on loopback; tests allow it explicitly
        # ...and nothing else: the sandbox and the engine tests' second host (127.0.0.2).
        # A URL built on a real public host fails loudly instead of reaching the internet.
        "egress_allowlist": TEST_EGRESS,
        "sources_file": SANDBOX_SOURCES,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture
def app(databases: TestDatabases, sandbox: RunningSandbox, tmp_path: Path) -> App:
    """The real App on test databases, the sandbox sources and a temp raw store."""
    from pipeline.crawl.catalog import sync_catalog

    application = App.create(settings=make_settings(databases, tmp_path, sandbox_url=sandbox.url))
    sync_catalog(application)
    return application
