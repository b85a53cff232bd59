"""Run Alembic migrations of the authoritative database from code and the CLI.

Revisions are named for what they do. They were once numbered (0001, 0002, ...); a
database stamped with such a number is restamped with the revision's name before any
Alembic command runs, so an existing installation upgrades without a manual step.

Alembic is imported inside the functions that use it: with SQLAlchemy's compiler under
it, it costs about 0.6 s, which every `jobharbor` command would otherwise pay at start
(the CLI imports its commands at module level) though only migrations need it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.db.connect import Database, DictConnection
from pipeline.errors import FatalError
from pipeline.settings import REPO_ROOT

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

MIGRATIONS_DIR = REPO_ROOT / "migrations"

# The numbered ids the revisions had before they were named, in chain order. Frozen:
# a database stamped with one of these is somewhere on the same chain.
RENAMED_REVISIONS: dict[str, str] = {
    "0001": "authoritative_schema",
    "0002": "crawl_engine",
    "0003": "lifecycle_identity",
    "0012": "enrichment",
    "0016": "board_change_rate",
    "0011": "serving_change_stamps",
    "0017": "enrichment_change_stamps",
}


class UnknownRevision(FatalError):
    """The database is stamped with a revision this code has never had (a newer
    jobharbor's schema, or a stamp written by hand)."""


def alembic_config(db: Database) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", db.sqlalchemy_url.replace("%", "%%"))
    return config


def stamps(conn: DictConnection) -> list[str]:
    """The revision ids in `alembic_version`, read with psycopg (none when not migrated)."""
    exists = conn.execute("SELECT to_regclass('public.alembic_version') AS t").fetchone()
    if not exists or exists["t"] is None:
        return []
    rows = conn.execute("SELECT version_num FROM public.alembic_version").fetchall()
    return [row["version_num"] for row in rows]


def current_name(revision: str) -> str:
    """A revision id as it is named now (a numbered id becomes its name)."""
    return RENAMED_REVISIONS.get(revision, revision)


def restamp(db: Database) -> None:
    """Rewrite a numbered stamp in `alembic_version` to the revision's name; refuse a
    stamp that names no revision of this code, before Alembic sees it."""
    known = {script.revision for script in scripts().walk_revisions()}
    with db.connect() as conn, conn.transaction():
        for stamped in stamps(conn):  # none on a new database
            if current_name(stamped) not in known:
                raise UnknownRevision(
                    f"the authoritative database {db.redacted()} is stamped with revision "
                    f"{stamped!r}, which this code does not know (known: "
                    f"{', '.join(sorted(known))}); is it from a newer jobharbor?"
                )
            if stamped in RENAMED_REVISIONS:
                conn.execute(
                    "UPDATE public.alembic_version SET version_num = %s WHERE version_num = %s",
                    (current_name(stamped), stamped),
                )


def upgrade(db: Database, revision: str = "head") -> None:
    restamp(db)
    from alembic import command

    command.upgrade(alembic_config(db), revision)


def downgrade(db: Database, revision: str) -> None:
    restamp(db)
    from alembic import command

    command.downgrade(alembic_config(db), revision)


def current_revision(db: Database) -> str | None:
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine, pool

    engine = create_engine(db.sqlalchemy_url, poolclass=pool.NullPool)
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def scripts() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config(Database("postgresql://unused")))


def head_revision() -> str | None:
    return scripts().get_current_head()


def check(db: Database) -> None:
    """Raise if the migrated database differs from pipeline.db.schema (alembic check)."""
    restamp(db)
    from alembic import command

    command.check(alembic_config(db))
