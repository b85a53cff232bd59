"""The serving schema's versioned DDL, owned here (not by Alembic: the serving
database is a separate, smaller deployment, e.g. a hosted Supabase)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pipeline.db.connect import Database
from serving_sync.text import FOLD_FROM, FOLD_TO, sql_literal

DDL_DIR = Path(__file__).parent / "ddl"
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_LOCK = "jobharbor:serving:ddl"


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    found = []
    for path in sorted(DDL_DIR.glob("*.sql")):
        match = _NAME.match(path.name)
        if not match:
            raise RuntimeError(f"serving DDL file {path.name} is not named NNNN_name.sql")
        sql = path.read_text(encoding="utf-8")
        sql = sql.replace("{{FOLD_FROM}}", sql_literal(FOLD_FROM)).replace(
            "{{FOLD_TO}}", sql_literal(FOLD_TO)
        )
        found.append(Migration(int(match.group(1)), match.group(2), sql))
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"serving DDL versions must be 1..N without gaps, found {versions}")
    return found


def applied_versions(db: Database) -> list[int]:
    with db.connect() as conn:
        exists = conn.execute("SELECT to_regclass('serving.schema_versions') AS t").fetchone()
        if not exists or exists["t"] is None:
            return []
        return [
            r["version"]
            for r in conn.execute("SELECT version FROM serving.schema_versions ORDER BY 1")
        ]


def upgrade(db: Database) -> list[int]:
    """Apply pending DDL versions, each in its own transaction. Returns those applied."""
    applied: list[int] = []
    with db.connect() as conn:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (_LOCK,))
            conn.execute("CREATE SCHEMA IF NOT EXISTS serving")
            conn.execute(
                """CREATE TABLE IF NOT EXISTS serving.schema_versions (
                       version integer PRIMARY KEY, name text NOT NULL,
                       applied_at timestamptz NOT NULL DEFAULT now())"""
            )
        for migration in migrations():
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (_LOCK,))
                done = conn.execute(
                    "SELECT 1 FROM serving.schema_versions WHERE version = %s", (migration.version,)
                ).fetchone()
                if done:
                    continue
                conn.execute(migration.sql)
                conn.execute(
                    "INSERT INTO serving.schema_versions (version, name) VALUES (%s, %s)",
                    (migration.version, migration.name),
                )
                applied.append(migration.version)
    return applied
