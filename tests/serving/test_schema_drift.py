"""The serving schema cannot drift: built from scratch, and upgraded from the oldest
version this code supports (the schema as the numbered files up to version 13 left it,
restored from tests/serving/legacy/serving_v13.sql.gz), it is one catalog: functions,
tables and columns, indexes, triggers, policies, privileges, row level security and
the web role's settings (tests/serving/catalog.py)."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from pipeline.db.connect import Database
from serving_sync import schema
from serving_sync.definitions import MIGRATIONS_DIR, OBJECTS_DIR
from tests.conftest import PgServer
from tests.serving.catalog import differences, restore_legacy, snapshot

ROLE_FILE = OBJECTS_DIR / "roles" / "jobharbor_web.sql"


@pytest.fixture
def new_database(pg_server: PgServer) -> Iterator[Callable[[], Database]]:
    names: list[str] = []

    def create() -> Database:
        names.append(f"jh_schema_{uuid.uuid4().hex[:10]}")
        return Database(pg_server.create(names[-1]))

    yield create
    for name in names:
        pg_server.drop(name)


def _upgraded_from_the_oldest(
    pg_server: PgServer, db: Database, migrations: Path, sql: Path
) -> schema.UpgradeReport:
    """The legacy schema restored into `db` and upgraded. The role belongs to the cluster
    and already has its settings from the other build: they are reset first, so the
    upgrade has to set them itself."""
    with psycopg.connect(pg_server.admin_url, autocommit=True) as admin:
        admin.execute("ALTER ROLE jobharbor_web RESET ALL")
        admin.execute("ALTER ROLE jobharbor_web CONNECTION LIMIT -1")
        try:
            restore_legacy(db.url)
            return schema.apply(db, migrations_dir=migrations, objects_dir=sql)
        finally:  # whatever happened, the role is left as the other tests expect it
            admin.execute(ROLE_FILE.read_text("utf-8"))


def test_built_from_scratch_or_upgraded_from_the_oldest_version_the_catalog_is_one(
    pg_server, new_database
) -> None:
    scratch, legacy = new_database(), new_database()
    released = [m.version for m in schema.migrations()]
    assert schema.upgrade(scratch) == released
    built = snapshot(scratch.url)
    report = _upgraded_from_the_oldest(pg_server, legacy, MIGRATIONS_DIR, OBJECTS_DIR)
    assert report.versions == tuple(released[1:])  # already at the baseline, the first
    assert len(report.objects) == len(schema.objects())  # every file: none was recorded
    assert differences(built, snapshot(legacy.url)) == []
    assert schema.apply(legacy) == schema.UpgradeReport((), ())


def _without_a_drop(migrations: Path, sql: Path) -> str:
    (sql / "functions" / "search_jobs.sql").unlink()
    return "functions search_jobs(query text, max_rows integer): only in the second"


def _index_changed_in_place(migrations: Path, sql: Path) -> str:
    baseline = migrations / "0013_baseline.sql"
    baseline.write_text(
        baseline.read_text("utf-8").replace(
            "CREATE INDEX jobs_source_posted_idx ON serving.jobs (source, posted_at DESC NULLS LAST);",
            "CREATE INDEX jobs_source_posted_idx ON serving.jobs (source, posted_at, id);",
        ),
        "utf-8",
    )
    return "indexes jobs_source_posted_idx indexdef"


@pytest.mark.parametrize("tamper", [_without_a_drop, _index_changed_in_place])
def test_the_comparison_catches_drift(pg_server, new_database, tmp_path, tamper) -> None:
    """A function file deleted without a migration that drops it; a released migration
    edited instead of followed by a new one: the two builds part, and the comparison says
    where."""
    migrations = Path(shutil.copytree(MIGRATIONS_DIR, tmp_path / "migrations"))
    sql = Path(shutil.copytree(OBJECTS_DIR, tmp_path / "sql"))
    expected = tamper(migrations, sql)
    scratch, legacy = new_database(), new_database()
    schema.apply(scratch, migrations_dir=migrations, objects_dir=sql)
    _upgraded_from_the_oldest(pg_server, legacy, migrations, sql)
    found = differences(snapshot(scratch.url), snapshot(legacy.url))
    assert [line for line in found if line.startswith(expected)], found
