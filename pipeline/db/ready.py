"""Migrations run once, at setup (`jobharbor db up`, compose's airflow-init, `make up`),
not in every task. A task on a database that is not at the code's schema fails at once
saying what to run, instead of running against the wrong tables."""

from __future__ import annotations

from pipeline.db import migrate
from pipeline.db.connect import Database
from pipeline.errors import FatalError

FIX = "run `jobharbor db up` (compose: the airflow-init service; locally: make up)"


class NotMigrated(FatalError):
    """The database is not at the schema this code needs."""


def database_revision(db: Database) -> str | None:
    with db.connect() as conn:
        exists = conn.execute("SELECT to_regclass('public.alembic_version') AS t").fetchone()
        if not exists or exists["t"] is None:
            return None
        row = conn.execute("SELECT version_num FROM public.alembic_version").fetchone()
        return row["version_num"] if row else None


def require_migrated(db: Database) -> None:
    head = migrate.head_revision()
    current = database_revision(db)
    if current != head:
        found = f"at revision {current}" if current else "not migrated"
        raise NotMigrated(
            f"the authoritative database {db.redacted()} is {found}; this code needs {head}: {FIX}"
        )
