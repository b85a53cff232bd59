"""Bring both databases to the current schema (idempotent)."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.db import migrate
from pipeline.db.connect import Database
from serving_sync import schema as serving_schema
from serving_sync.roles import (
    close_authoritative_database,
    password_from_environment,
    provision_web_role,
)


@dataclass(frozen=True)
class SetupReport:
    revision: str | None
    serving_applied: list[int]


def setup_databases(db: Database, serving_db: Database) -> SetupReport:
    migrate.upgrade(db)
    applied = serving_schema.upgrade(serving_db)
    # The web role connects to the serving database only (both, when they are one).
    close_authoritative_database(db, serving_db)
    # The web role's password is provisioned from the environment, never by hand.
    if password := password_from_environment():
        provision_web_role(serving_db, password)
    return SetupReport(migrate.current_revision(db), applied)
