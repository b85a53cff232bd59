"""Run Alembic migrations of the authoritative database from code and the CLI."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, pool

from pipeline.db.connect import Database
from pipeline.settings import REPO_ROOT

MIGRATIONS_DIR = REPO_ROOT / "migrations"


def alembic_config(db: Database) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", db.sqlalchemy_url.replace("%", "%%"))
    return config


def upgrade(db: Database, revision: str = "head") -> None:
    command.upgrade(alembic_config(db), revision)


def downgrade(db: Database, revision: str) -> None:
    command.downgrade(alembic_config(db), revision)


def current_revision(db: Database) -> str | None:
    engine = create_engine(db.sqlalchemy_url, poolclass=pool.NullPool)
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head_revision() -> str | None:
    return ScriptDirectory.from_config(
        alembic_config(Database("postgresql://unused"))
    ).get_current_head()


def check(db: Database) -> None:
    """Raise if the migrated database differs from pipeline.db.schema (alembic check)."""
    command.check(alembic_config(db))
