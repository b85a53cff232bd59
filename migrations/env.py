"""Alembic environment for the authoritative database (ref, crawl, core schemas)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool

from pipeline.db.schema import SCHEMAS, metadata

config = context.config


def include_name(name: str | None, type_: str, parent_names: dict) -> bool:
    # Only our schemas: the serving schema and Airflow's tables are not ours to diff.
    if type_ == "schema":
        return name in SCHEMAS
    return True


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        engine = create_engine(config.get_main_option("sqlalchemy.url"), poolclass=pool.NullPool)
        with engine.connect() as connection:
            _run(connection)
    else:
        _run(connection)


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(
        connection=connection,
        target_metadata=metadata,
        include_schemas=True,
        include_name=include_name,
        compare_type=True,
        compare_server_default=False,
        transaction_per_migration=True,
    )
    with context.begin_transaction():
        context.run_migrations()
    connection.commit()


if context.is_offline_mode():
    raise SystemExit("offline SQL generation is not supported; run against a database")
run_migrations_online()
