"""The serving schema's DDL step, owned here (not by Alembic: the serving database is a
separate, smaller deployment, e.g. a hosted Supabase).

One transaction under one advisory lock: the pending numbered migrations, then every
object file whose checksum changed (serving_sync.definitions decides which, and in what
order), recorded in serving.schema_versions and serving.schema_objects; and the file of
the database's own privileges whenever a copy of the database lost them. A file that
fails rolls all of it back: the database keeps every definition it had.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import psycopg

from pipeline.db.connect import Database, DictConnection
from serving_sync.definitions import (
    MIGRATIONS_DIR,
    OBJECTS_DIR,
    Migration,
    SchemaError,
    SqlObject,
    migrations,
    objects,
    pending_migrations,
    plan,
)

__all__ = ["Migration", "SchemaError", "UpgradeReport", "apply", "migrations", "upgrade"]

log = logging.getLogger("jobharbor")
_LOCK = "jobharbor:serving:ddl"
# The file that sets the serving database's own privileges. They belong to the database,
# not to its contents: a copy of it (CREATE DATABASE ... TEMPLATE, a restore into a new
# database) carries the file's checksum without them. So the file is applied again when
# PUBLIC may create temporary tables here and this role can change that (it is the
# database's owner, a member of the owner or a superuser), whatever its checksum says.
DATABASE_GRANTS = "grants/serving_database.sql"
_DATABASE_GRANTS_UNDONE = """
SELECT has_database_privilege('public', d.oid, 'TEMPORARY') AND pg_has_role(d.datdba, 'USAGE')
    AS undone
FROM pg_database AS d WHERE d.datname = current_database()
"""


@dataclass(frozen=True)
class UpgradeReport:
    versions: tuple[int, ...]  # migrations applied
    objects: tuple[str, ...]  # object files applied, in order


def upgrade(db: Database) -> list[int]:
    """Bring the serving schema up to date. Returns the migration versions applied."""
    return list(apply(db).versions)


def apply(
    db: Database, *, migrations_dir: Path = MIGRATIONS_DIR, objects_dir: Path = OBJECTS_DIR
) -> UpgradeReport:
    """The DDL step, from the given folders (tests point them at copies)."""
    found = migrations(migrations_dir)
    definitions = objects(objects_dir)  # a cycle is an error before anything is touched
    with db.connect() as conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (_LOCK,))
        _bookkeeping(conn)
        recorded = [
            r["version"]
            for r in conn.execute("SELECT version FROM serving.schema_versions ORDER BY 1")
        ]
        pending = pending_migrations(found, recorded)
        for migration in pending:
            _run(conn, f"migration {migration.version:04d}_{migration.name}", migration.sql)
            conn.execute(
                "INSERT INTO serving.schema_versions (version, name) VALUES (%s, %s)",
                (migration.version, migration.name),
            )
        checksums = {
            r["file"]: r["checksum"]
            for r in conn.execute("SELECT file, checksum FROM serving.schema_objects")
        }
        undone = conn.execute(_DATABASE_GRANTS_UNDONE).fetchone()
        if undone is not None and undone["undone"]:
            checksums.pop(DATABASE_GRANTS, None)
        todo = plan(definitions, checksums, migrated=bool(pending))
        for definition in todo:
            _apply_object(conn, definition)
        # A deleted file's object is dropped by a migration; its checksum goes with it.
        if gone := sorted(set(checksums) - {d.path for d in definitions}):
            conn.execute("DELETE FROM serving.schema_objects WHERE file = ANY (%s)", (gone,))
    report = UpgradeReport(tuple(m.version for m in pending), tuple(d.path for d in todo))
    if report.versions or report.objects:
        log.info(
            "serving schema: migrations %s, %d object files applied",
            list(report.versions) or "none",
            len(report.objects),
        )
    return report


def _bookkeeping(conn: DictConnection) -> None:
    conn.execute("CREATE SCHEMA IF NOT EXISTS serving")
    conn.execute(
        """CREATE TABLE IF NOT EXISTS serving.schema_versions (
               version integer PRIMARY KEY, name text NOT NULL,
               applied_at timestamptz NOT NULL DEFAULT now())"""
    )
    exists = conn.execute("SELECT to_regclass('serving.schema_objects') AS t").fetchone()
    if exists is None or exists["t"] is None:
        conn.execute(
            """CREATE TABLE serving.schema_objects (
                   file text PRIMARY KEY,  -- relative to serving_sync/sql: functions/web_search.sql
                   checksum text NOT NULL,  -- sha256 of the text applied
                   applied_at timestamptz NOT NULL DEFAULT now())"""
        )
        conn.execute("ALTER TABLE serving.schema_objects ENABLE ROW LEVEL SECURITY")


def _apply_object(conn: DictConnection, definition: SqlObject) -> None:
    _run(conn, definition.path, definition.sql)
    conn.execute(
        """INSERT INTO serving.schema_objects (file, checksum) VALUES (%s, %s)
           ON CONFLICT (file) DO UPDATE SET checksum = excluded.checksum, applied_at = now()""",
        (definition.path, definition.checksum),
    )


def _run(conn: DictConnection, what: str, sql: str) -> None:
    try:
        conn.execute(sql)
    except psycopg.Error as exc:
        raise SchemaError(f"serving {what} failed: {exc}".strip()) from exc


def applied_versions(db: Database) -> list[int]:
    with db.connect() as conn:
        exists = conn.execute("SELECT to_regclass('serving.schema_versions') AS t").fetchone()
        if not exists or exists["t"] is None:
            return []
        return [
            r["version"]
            for r in conn.execute("SELECT version FROM serving.schema_versions ORDER BY 1")
        ]
