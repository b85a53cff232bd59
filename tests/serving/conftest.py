"""Serving tests. The sync's: postings written straight into the real authoritative
database (as the parse and lifecycle phases write them, triggers included), synced
into a real serving database (`seed`). Search's: a small, varied published set
inserted straight into serving.jobs (every group has known and unknown values), the
web role's connection, and a real web server on a socket (`seeded`, `web`)."""

from __future__ import annotations

import hashlib
import itertools
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row

from pipeline.db.connect import Database
from serving_sync import roles
from serving_sync.language import detected_language
from serving_sync.reconcile import SyncReport, reconcile, yearly_salary_columns
from tests.conftest import TestDatabases

_raw = itertools.count(1)


def _sha() -> str:
    return hashlib.sha256(str(next(_raw)).encode()).hexdigest()


DEFAULTS: dict[str, Any] = {
    "title": "Software Engineer",
    "company": "Acme",
    "location_text": "Berlin, Germany",
    "location": '{"countries": ["DE"], "offices": [{"city": "Berlin", "region": "Berlin"}]}',
    "remote": "hybrid",
    "description_text": "Build things that matter.",
    "posted_at": "2026-11-20T08:00:00Z",
    "posted_precision": "day",
}


@dataclass
class Seeder:
    """Writes the authoritative side of a test the way the pipeline does."""

    dbs: TestDatabases
    source: str = "acme"

    def __post_init__(self) -> None:
        with self.dbs.db.connect() as conn:
            conn.execute(
                "INSERT INTO ref.sources (id, platform, display_name, parser, config, config_hash) "
                "VALUES (%s, 'greenhouse', 'Acme', 'greenhouse', '{}', 'h')",
                (self.source,),
            )
            self.board = conn.execute(
                "INSERT INTO crawl.boards (source_id, board_key, url, lane, host) "
                "VALUES (%s, 'b', 'http://x', 'greenhouse', 'x') RETURNING id",
                (self.source,),
            ).fetchone()["id"]
        self._external = itertools.count(1)

    def posting(self, quality: str = "accepted", **fields: Any) -> int:
        external = str(next(self._external))
        with self.dbs.db.connect() as conn:
            posting = conn.execute(
                "INSERT INTO core.postings (source_id, external_id, board_id, url) "
                "VALUES (%s, %s, %s, %s) RETURNING id",
                (self.source, external, self.board, f"http://x/{external}"),
            ).fetchone()["id"]
        self.parse(posting, quality, **fields)
        return posting

    def postings(self, n: int, **fields: Any) -> list[int]:
        return [self.posting(title=f"Engineer {i}", **fields) for i in range(n)]

    def parse(self, posting: int, quality: str = "accepted", **fields: Any) -> int:
        """A new parse result; non-rejected ones become current, as the parse phase does."""
        values = {**DEFAULTS, **fields}
        sha = _sha()
        columns = ", ".join(values)
        placeholders = ", ".join(["%s"] * len(values))
        with self.dbs.db.connect() as conn:
            conn.execute(
                "INSERT INTO crawl.raw_objects (sha256, object_key, byte_length, source_id, url, state) "
                "VALUES (%s, %s, 1, %s, 'http://x', 'ready')",
                (sha, sha, self.source),
            )
            result = conn.execute(
                f"""INSERT INTO core.parse_results
                    (posting_id, raw_sha256, parser_name, parser_version, quality, {columns})
                    VALUES (%s, %s, 'greenhouse', '1', %s, {placeholders}) RETURNING id""",
                (posting, sha, quality, *values.values()),
            ).fetchone()["id"]
            if quality != "rejected":
                conn.execute(
                    "UPDATE core.parse_results SET is_current = false WHERE posting_id = %s AND is_current",
                    (posting,),
                )
                conn.execute(
                    "UPDATE core.parse_results SET is_current = true WHERE id = %s", (result,)
                )
        return result

    def sql(self, query: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        with self.dbs.db.connect() as conn:
            cursor = conn.execute(query, params)
            return cursor.fetchall() if cursor.description else []

    def serving(self, query: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        with self.dbs.serving.connect() as conn:
            cursor = conn.execute(query, params)
            return cursor.fetchall() if cursor.description else []

    def sync(self, **options: Any) -> SyncReport:
        return reconcile(self.dbs.db, self.dbs.serving, **options)

    def jobs(self) -> dict[int, dict[str, Any]]:
        return {r["id"]: r for r in self.serving("SELECT * FROM serving.jobs")}

    def last_run(self) -> dict[str, Any]:
        return self.serving("SELECT * FROM serving.sync_runs ORDER BY id DESC LIMIT 1")[0]


@pytest.fixture
def seed(databases: TestDatabases) -> Seeder:
    return Seeder(databases)


WEB_PASSWORD = "web-test-password"
NOW = datetime.now(UTC).replace(microsecond=0)

TITLES = (
    "Data Engineer",
    "Senior Software Engineer",
    "Kế toán trưởng",
    "Nhân viên kế toán tổng hợp",
    "Product Designer",
    "Marketing Intern",
    "Engineering Manager",
    "Backend Developer (Python)",
    "Graduate Data Analyst",
    "Customer Support Specialist",
)
PLACES = (  # countries, regions, cities, location_text
    (["VN"], ["Hà Nội"], ["Hà Nội"], "Hà Nội"),
    (["VN"], ["Hồ Chí Minh"], ["Hồ Chí Minh"], "TP. Hồ Chí Minh"),
    (["US"], ["California"], ["San Francisco"], "San Francisco, CA"),
    (["CA", "US"], ["Ontario", "New York"], ["New York", "Toronto"], "Toronto or New York"),
    ([], [], [], "Somewhere nice"),
    (["DE"], [], [], "Germany"),
)
WORK_MODES = ("remote", "hybrid", "unknown", "onsite", "unknown")
JOB_TYPES = (None, None, "intern", "new_grad")
EMPLOYMENT = (["full_time"], [], ["part_time"], ["full_time", "contract"])
SOURCES = ("greenhouse", "lever", "vietnamworks")
COMPANIES = ("Acme", "Globex", None, "Initech", "Acme")


def job_row(i: int, **overrides: Any) -> dict[str, Any]:
    countries, regions, cities, location = PLACES[i % len(PLACES)]
    salary = i % 4 == 0
    row = {
        "id": 1000 + i,
        "source": SOURCES[i % len(SOURCES)],
        "external_id": f"ext-{i}",
        "status": "active",
        "title": TITLES[i % len(TITLES)],
        "company": COMPANIES[i % len(COMPANIES)],
        "location_text": location,
        "countries": countries,
        "regions": regions,
        "cities": cities,
        "location_unresolved": not countries,
        "work_mode": WORK_MODES[i % len(WORK_MODES)],
        "job_type": JOB_TYPES[i % len(JOB_TYPES)],
        "employment_type": EMPLOYMENT[i % len(EMPLOYMENT)],
        # Every third posting has no posted date: it is dated by when we first saw it.
        "posted_at": None if i % 3 == 0 else NOW - timedelta(days=i, hours=i),
        "posted_precision": "unknown" if i % 3 == 0 else "day",
        "first_seen_at": NOW - timedelta(days=i % 50, hours=2 * i),
        "salary_min": Decimal(1000 * (i + 1)) if salary else None,
        "salary_max": Decimal(1500 * (i + 1)) if salary else None,
        "salary_currency": ("EUR", "USD")[i % 2] if salary else None,
        "salary_period": "year" if salary else None,
        "url": f"https://jobs.example.test/{i}",
        "description": f"Job number {i}. We build things together. {TITLES[i % len(TITLES)]}.",
        "openings_12m": 1 + i % 3,
    }
    row.update(overrides)
    # Vietnamese when the title's letters say so, as the sync would detect it; otherwise
    # English, so that these postings' words are stemmed (their descriptions are too
    # short for the sync's detector to name English: it would leave them unclear).
    row.setdefault("language", detected_language(row["title"], None) or "en")
    # The yearly figures the sync derives from the stated salary (unless a test sets them).
    return {**yearly_salary_columns(row), **row}


def insert_jobs(conn: psycopg.Connection, rows: list[dict[str, Any]]) -> None:
    """Insert rows, filling the bookkeeping columns the schema requires (whichever of
    them exist in this version: the sync owns those, search does not read them)."""
    required = {
        r[0]
        for r in conn.execute(
            """SELECT column_name FROM information_schema.columns
               WHERE table_schema = 'serving' AND table_name = 'jobs'
                 AND is_nullable = 'NO' AND column_default IS NULL AND is_generated = 'NEVER'"""
        )
    }
    fill = {"fingerprint": "test", "last_seen_on": NOW.date()}
    for row in rows:
        full = {**{k: v for k, v in fill.items() if k in required}, **row}
        names = ", ".join(full)
        marks = ", ".join(["%s"] * len(full))
        conn.execute(f"INSERT INTO serving.jobs ({names}) VALUES ({marks})", list(full.values()))


SEED_ROWS = [job_row(i) for i in range(60)]


def seed_for_reading(serving: Database, rows: list[dict[str, Any]]) -> str:
    """A module's rows, inserted and analyzed once (statistics for the planner, the
    visibility map for index-only walks), and the web role's URL to read them with."""
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, rows)
    with psycopg.connect(serving.url, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE) serving.jobs")
    roles.provision_web_role(serving, WEB_PASSWORD)
    return roles.reader_url(serving.url, WEB_PASSWORD)


@pytest.fixture
def serving(databases) -> Database:
    return databases.serving


def seed_published(serving: Database) -> None:
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, SEED_ROWS)
        conn.execute(
            "INSERT INTO serving.closed_jobs (id, source, title, company, closed_at, reason) VALUES (%s, %s, %s, %s, %s, %s)",
            (999, "greenhouse", "Closed Role", "Acme", NOW - timedelta(days=3), "expired"),
        )
        conn.execute("ANALYZE serving.jobs")


@dataclass(frozen=True)
class Published:
    """The published set of a module's read-only tests: seeded once, read as the web role."""

    serving: Database
    web_url: str


@pytest.fixture(scope="module")
def published(module_serving: Database) -> Published:
    seed_published(module_serving)
    roles.provision_web_role(module_serving, WEB_PASSWORD)
    return Published(module_serving, roles.reader_url(module_serving.url, WEB_PASSWORD))


@pytest.fixture(scope="module")
def published_web(published: Published) -> Iterator[RunningWeb]:
    running = start_web(published.web_url)
    try:
        yield running
    finally:
        running.stop()


def _writes(request: pytest.FixtureRequest) -> bool:
    """Whether the test can change the serving database: it reaches the owner's
    connection (`serving`, `seed`, an App: all through `databases`). The web role
    cannot write (tests/serving/test_web_role.py), so a test that only reads through it
    shares its module's published set instead of seeding its own copy."""
    return "databases" in request.fixturenames


# `pg_server` in the signatures below: a test of either copy is marked `db` (the copy is
# chosen at run time, after the markers are set from the fixtures).
@pytest.fixture
def seeded(request: pytest.FixtureRequest, pg_server: object) -> list[dict[str, Any]]:
    if _writes(request):
        seed_published(request.getfixturevalue("serving"))
    else:
        request.getfixturevalue("published")
    return SEED_ROWS


@pytest.fixture
def web_url(request: pytest.FixtureRequest, pg_server: object) -> str:
    if not _writes(request):
        return request.getfixturevalue("published").web_url
    serving = request.getfixturevalue("serving")
    roles.provision_web_role(serving, WEB_PASSWORD)
    return roles.reader_url(serving.url, WEB_PASSWORD)


@pytest.fixture
def web_conn(web_url: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(web_url, autocommit=True, row_factory=dict_row) as conn:
        yield conn


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RunningWeb:
    def __init__(self, url: str, server: Any, thread: threading.Thread) -> None:
        self.url, self._server, self._thread = url, server, thread

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


def start_web(reader_url: str, **settings: Any) -> RunningWeb:
    """The real app under uvicorn on a loopback socket, in a thread."""
    import uvicorn

    from web.app import create_app
    from web.settings import WebSettings

    values = {"web_rate_limit_per_minute": 0, "web_counts_cache_s": 0, **settings}
    app = create_app(reader_url, WebSettings(**values))
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("web server did not start")
        time.sleep(0.05)
    return RunningWeb(f"http://127.0.0.1:{port}", server, thread)


@pytest.fixture
def web(request: pytest.FixtureRequest, seeded, web_url: str) -> Iterator[RunningWeb]:
    if not _writes(request):
        yield request.getfixturevalue("published_web")
        return
    running = start_web(web_url)
    try:
        yield running
    finally:
        running.stop()
