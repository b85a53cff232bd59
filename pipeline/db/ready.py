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
        stamped = migrate.stamps(conn)
    return stamped[0] if stamped else None


def require_migrated(db: Database) -> None:
    head = migrate.head_revision()
    current = database_revision(db)
    # A numbered stamp of the same revision is the same schema: `db up` renames it.
    if current is None or migrate.current_name(current) != head:
        found = f"at revision {current}" if current else "not migrated"
        raise NotMigrated(
            f"the authoritative database {db.redacted()} is {found}; this code needs {head}: {FIX}"
        )
