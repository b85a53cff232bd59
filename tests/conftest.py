"""Shared fixtures: a real, throwaway PostgreSQL cluster (one per xdist worker), migrated
template databases cloned per test, the sandbox job web over real sockets, and an App
wired to all of them exactly as production wires itself.

Markers follow the fixtures: a test whose fixtures reach `pg_server` is `db`, one that
reaches the sandbox is `sandbox`; `airflow` and `browser` are set by the modules that
run them. `pytest --fast` runs only the tests with none of the four, and makes anything
of theirs that reaches for PostgreSQL, the network, a sandbox or a browser fail loudly.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
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
from pipeline.errors import FatalError
from pipeline.settings import REPO_ROOT, Settings
from sandbox.server import RunningSandbox, start_sandbox
from serving_sync import roles
from serving_sync import schema as serving_schema

SANDBOX_SOURCES = REPO_ROOT / "sandbox" / "sources.yaml"
TEST_EGRESS = "127.0.0.1,127.0.0.2"
TEMPLATE = "jh_template"
SERVING_TEMPLATE = "jh_serving_template"

# The engine fixtures (`make_app`: an App from a sources file written by the test, and
# `second_sandbox`) serve the crawl, phases, rawstore and chaos tests alike.
pytest_plugins = ["tests.apps"]


# The markers of the tests that need a service, and the fixtures that set the first two.
SERVICE_MARKERS = ("db", "sandbox", "airflow", "browser")
# Where the two databases of a test live: one cluster, or two (`--serving-cluster`).
SERVING_LAYOUTS = ("shared", "separate")
# moto's S3 server counts as a sandbox: an offline stand-in for a service, over a socket.
MARKER_FIXTURES = {
    "db": {"pg_server"},
    "sandbox": {"sandbox_server", "second_sandbox", "s3_endpoint"},
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="only the tests marked none of db, sandbox, airflow, browser; "
        "a PostgreSQL connection, a TCP connection, a sandbox or a browser started by "
        "one of them fails the test",
    )
    parser.addoption(
        "--serving-cluster",
        choices=SERVING_LAYOUTS,
        default="shared",
        help="where the `databases` fixture puts the authoritative database: in the "
        "serving database's cluster (shared) or in a second private cluster (separate), "
        "as JOBHARBOR_SERVING_DATABASE_URL naming another server deploys it",
    )


def pytest_configure(config: pytest.Config) -> None:
    """A private base temp dir per session. pytest's shared numbered dirs
    (/tmp/pytest-of-USER/pytest-N) keep only the newest three, so parallel sessions
    of the same user delete each other's running Postgres clusters and raw stores.
    Under xdist the controller makes it and each worker gets its own folder inside."""
    if not config.option.basetemp and not hasattr(config, "workerinput"):
        config.option.basetemp = tempfile.mkdtemp(prefix="jobharbor-pytest-")
        config._jobharbor_basetemp = config.option.basetemp  # type: ignore[attr-defined]
    if config.getoption("--fast"):
        _forbid_services()
    if not hasattr(config, "workerinput"):
        _build_location_index_once()


# Every test and every `jobharbor` process a test starts shares one place-name index
# cache (keyed by the code and data that shape it, so it is never stale): built on a
# throwaway data dir, it cost 15-30 s of CPU per process, and the crash drills alone
# built it six times.
SHARED_CACHE_DIR = REPO_ROOT / ".data" / "cache"


def _build_location_index_once() -> None:
    """The controller builds the index before the workers start, so that they load it
    instead of each building it at once on two cores."""
    from pipeline.normalize.locations import gazetteer

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JOBHARBOR_CACHE_DIR", str(SHARED_CACHE_DIR))
        if not gazetteer.cache_path(gazetteer.index_key()).exists():
            gazetteer.load_or_build()  # builds and stores it


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for marker, fixtures in MARKER_FIXTURES.items():
            if names & fixtures:
                item.add_marker(marker)
    if config.getoption("--fast"):
        slow = [i for i in items if any(i.get_closest_marker(m) for m in SERVICE_MARKERS)]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [
                i for i in items if not any(i.get_closest_marker(m) for m in SERVICE_MARKERS)
            ]
        return
    for item in items:
        if item.get_closest_marker("browser"):
            # One worker runs every browser test: some count the machine's Chromium
            # processes before and after, which another worker's browser would upset.
            item.add_marker(pytest.mark.xdist_group("browser"))
    # The longest tests first, so that no xdist worker is left with one at the end.
    rank = {"airflow": 0, "browser": 1}
    items.sort(key=lambda i: min((rank[m] for m in rank if i.get_closest_marker(m)), default=2))


class ServiceInFastRun(RuntimeError):
    """A test with no service marker reached for one: mark it, or give it the fixture."""


def _refuse(what: str) -> None:
    raise ServiceInFastRun(
        f"{what} in `pytest --fast`: this test is marked none of {', '.join(SERVICE_MARKERS)}; "
        "reach the service through its fixture (pg_server, databases, sandbox, ...) "
        "or mark the test"
    )


def _forbid_services() -> None:
    """Make every way a test reaches a service fail at once, for the rest of the process."""
    import psycopg

    import pipeline.db.embedded as embedded
    import sandbox.server as sandbox_server_module

    def no_database(*_args: object, **_kwargs: object) -> None:
        _refuse("a PostgreSQL connection")

    def no_cluster(*_args: object, **_kwargs: object) -> None:
        _refuse("a PostgreSQL cluster (pg_ctl, initdb)")

    def no_sandbox(*_args: object, **_kwargs: object) -> None:
        _refuse("a sandbox server")

    plain_connect, plain_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def is_network(sock: socket.socket) -> bool:
        return sock.family in (socket.AF_INET, socket.AF_INET6)

    def connect(sock: socket.socket, address: object) -> None:
        if is_network(sock):
            _refuse(f"a TCP connection to {address}")
        plain_connect(sock, address)

    def connect_ex(sock: socket.socket, address: object) -> int:
        if is_network(sock):
            _refuse(f"a TCP connection to {address}")
        return plain_connect_ex(sock, address)

    psycopg.connect = no_database  # type: ignore[assignment]  # an alias bound at import
    psycopg.Connection.connect = classmethod(no_database)  # type: ignore[assignment, method-assign]
    psycopg.AsyncConnection.connect = classmethod(no_database)  # type: ignore[assignment, method-assign]
    embedded._pg = no_cluster  # type: ignore[assignment]
    sandbox_server_module.SandboxServer.__init__ = no_sandbox  # type: ignore[assignment, method-assign]
    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    try:
        from playwright import async_api, sync_api
    except ImportError:
        return

    def no_browser(*_args: object, **_kwargs: object) -> None:
        _refuse("a browser (Playwright)")

    sync_api.sync_playwright = no_browser  # type: ignore[assignment]
    async_api.async_playwright = no_browser  # type: ignore[assignment]


def pytest_unconfigure(config: pytest.Config) -> None:
    own = getattr(config, "_jobharbor_basetemp", None)
    if own:
        shutil.rmtree(own, ignore_errors=True)


def real_fixtures_dir() -> Path:
    return Settings().effective_real_fixtures


@pytest.fixture(scope="session")
def real_dir() -> Path:
    """The real captures folder; a test that needs it is skipped, saying how to get it."""
    path = real_fixtures_dir()
    if not path.is_dir():
        pytest.skip(
            f"real captures not found at {path}: set JOBHARBOR_REAL_FIXTURES to the "
            "shared fixtures folder (../shared/fixtures/real) to run the conformance suite"
        )
    return path


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's JOBHARBOR_* variables must not leak into tests."""
    for name in list(os.environ):
        if name.startswith("JOBHARBOR_") and name != "JOBHARBOR_REAL_FIXTURES":
            monkeypatch.delenv(name)
    monkeypatch.setenv("JOBHARBOR_CACHE_DIR", str(SHARED_CACHE_DIR))


@dataclass(frozen=True)
class PgServer:
    """Where test databases are created: our own cluster, or JOBHARBOR_TEST_ADMIN_URL."""

    admin_url: str

    def url(self, database: str) -> str:
        parts = urlsplit(self.admin_url)
        return urlunsplit(parts._replace(path=f"/{database}"))

    def create(self, name: str, template: str | None = None) -> str:
        # FILE_COPY copies the template's files: on a cluster without fsync it is about
        # twice as fast as the default WAL_LOG, which writes every block to the WAL.
        suffix = f' TEMPLATE "{template}" STRATEGY FILE_COPY' if template else ""
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{suffix}')
        return self.url(name)

    def drop(self, name: str) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _start_test_cluster(factory: pytest.TempPathFactory) -> tuple[Path, EmbeddedCluster]:
    """This process's own cluster (each xdist worker has one, under its own temp dir).
    Throwaway: no fsync, and loopback trusted for the few minutes the suite runs. A free
    port is picked before the server binds it, so a worker starting at the same moment
    can take it: then the next try picks another."""
    for attempt in range(3):
        root = factory.mktemp("pgcluster")
        try:
            return root, ensure_cluster(root, databases=(), durable=False, password_auth=False)
        except FatalError:
            with contextlib.suppress(FatalError):
                stop_cluster(root)
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


@contextlib.contextmanager
def _private_cluster(factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    root, cluster = _start_test_cluster(factory)
    try:
        yield PgServer(cluster.url("postgres"))
    finally:
        stop_cluster(root)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    external = os.environ.get("JOBHARBOR_TEST_ADMIN_URL")
    if external:
        yield PgServer(external)
        return
    with _private_cluster(tmp_path_factory) as server:
        yield server


@pytest.fixture(scope="session")
def second_pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    """Another private cluster (per xdist worker, started when first asked for): the
    separate layout's authoritative side. It never holds a serving schema, so the web
    role (a cluster-wide object) does not exist there."""
    with _private_cluster(tmp_path_factory) as server:
        yield server


@pytest.fixture(scope="session")
def templates(pg_server: PgServer, request: pytest.FixtureRequest) -> tuple[str, str]:
    """Migrated template databases; each test gets a fast clone of them. Named for the
    xdist worker: with JOBHARBOR_TEST_ADMIN_URL every worker shares one server."""
    worker = getattr(request.config, "workerinput", {}).get("workerid", "main")
    names = (f"{TEMPLATE}_{worker}", f"{SERVING_TEMPLATE}_{worker}")
    for name in names:
        pg_server.drop(name)
    migrate.upgrade(Database(pg_server.create(names[0])))
    serving_schema.upgrade(Database(pg_server.create(names[1])))
    return names


def database_privileges(db: Database, serving: Database) -> None:
    """A clone does not carry its database's own privileges (CONNECT, TEMPORARY): set
    them as `jobharbor db up` does (the serving schema step applies its database file
    again; the authoritative database is closed to the web role)."""
    serving_schema.upgrade(serving)
    roles.close_authoritative_database(db, serving)


@dataclass(frozen=True)
class TestDatabases:
    __test__ = False  # a fixture's value, not a test class (modules import it)

    db: Database
    serving: Database
    # The authoritative database in a cluster of its own (SERVING_LAYOUTS).
    separate: bool = False


@pytest.fixture(scope="session")
def separate_template(second_pg_server: PgServer, request: pytest.FixtureRequest) -> str:
    """The migrated authoritative template on the second cluster."""
    worker = getattr(request.config, "workerinput", {}).get("workerid", "main")
    name = f"{TEMPLATE}_{worker}"
    second_pg_server.drop(name)
    migrate.upgrade(Database(second_pg_server.create(name)))
    return name


def serving_layout(request: pytest.FixtureRequest) -> str:
    """This test's layout: its own parameter (`both_layouts`), else `--serving-cluster`."""
    return getattr(request, "param", None) or request.config.getoption("--serving-cluster")


# Runs a test once per layout: `@both_layouts` on a test that reaches `databases`.
both_layouts = pytest.mark.parametrize("databases", SERVING_LAYOUTS, indirect=True)


@pytest.fixture
def databases(
    request: pytest.FixtureRequest, pg_server: PgServer, templates: tuple[str, str]
) -> Iterator[TestDatabases]:
    """A fresh authoritative and serving database. The serving one is always on
    `pg_server` (the module-scoped serving copies are too); in the separate layout the
    authoritative one is on `second_pg_server`."""
    separate = serving_layout(request) == "separate"
    tag = uuid.uuid4().hex[:10]
    names = (f"jh_{tag}", f"jh_serving_{tag}")
    home, template = pg_server, templates[0]
    if separate:
        home = request.getfixturevalue("second_pg_server")
        template = request.getfixturevalue("separate_template")
    urls = (home.create(names[0], template), pg_server.create(names[1], templates[1]))
    dbs = TestDatabases(Database(urls[0]), Database(urls[1]), separate)
    try:
        database_privileges(dbs.db, dbs.serving)
        yield dbs
    finally:
        home.drop(names[0])
        pg_server.drop(names[1])


@pytest.fixture(scope="module")
def module_serving(pg_server: PgServer, templates: tuple[str, str]) -> Iterator[Database]:
    """A serving database shared by one module's tests, for data they only read."""
    name = f"jh_serving_module_{uuid.uuid4().hex[:10]}"
    url = pg_server.create(name, templates[1])
    try:
        serving_schema.upgrade(Database(url))  # the database's own privileges, lost in the copy
        yield Database(url)
    finally:
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
        "cache_dir": SHARED_CACHE_DIR,
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
