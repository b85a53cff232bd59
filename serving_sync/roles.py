"""The web app's database role (`jobharbor_web`, serving_sync/sql/roles/): its password
comes from the environment (or, for the embedded cluster, is generated once into a
0600 file), is set by `jobharbor db up` / `jobharbor web`, and is never typed by hand."""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path

import psycopg
from psycopg import conninfo, sql

from pipeline.db.connect import Database, DictConnection
from pipeline.settings import load_settings
from serving_sync.source import IDENTITY

log = logging.getLogger("jobharbor")

WEB_ROLE = "jobharbor_web"
PASSWORD_ENV = "JOBHARBOR_WEB_DB_PASSWORD"
READER_URL_ENV = "JOBHARBOR_SERVING_READER_URL"


def provision_web_role(serving_db: Database, password: str) -> None:
    """Give the web role its password (run as the serving schema's owner)."""
    if not password:
        raise ValueError(f"{PASSWORD_ENV} is empty")
    with psycopg.connect(serving_db.url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("ALTER ROLE {} PASSWORD {}").format(
                sql.Identifier(WEB_ROLE), sql.Literal(password)
            )
        )


def close_authoritative_database(db: Database, serving_db: Database) -> bool:
    """Keep the web role out of the authoritative database: CONNECT there is taken from
    PUBLIC (PostgreSQL grants it on every database) and from the web role, and granted
    by name to the role running this, the platform's own (the same URL), whose
    connections keep working. Left alone when the authoritative database is the serving
    one too (both schemas in one database): the web role connects there, and the schema
    grants keep it out of `core`. Returns False when it left them alone.

    Only the database's owner, a member of it or a superuser can take PUBLIC's CONNECT;
    for any other role PostgreSQL changes nothing, and that is logged."""
    with serving_db.connect() as conn:
        serving = conn.execute(IDENTITY).fetchone()
    with db.connect() as conn, conn.transaction():
        if conn.execute(IDENTITY).fetchone() == serving:
            return False
        name = sql.Identifier(str(_one(conn, "SELECT current_database()")))
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO CURRENT_USER").format(name))
        conn.execute(sql.SQL("REVOKE CONNECT ON DATABASE {} FROM PUBLIC").format(name))
        if _one(conn, "SELECT to_regrole(%s) IS NOT NULL", WEB_ROLE):
            conn.execute(
                sql.SQL("REVOKE CONNECT, TEMPORARY ON DATABASE {} FROM {}").format(
                    name, sql.Identifier(WEB_ROLE)
                )
            )
        public = _one(
            conn, "SELECT has_database_privilege('public', current_database(), 'CONNECT')"
        )
    if public:
        log.warning(
            "PUBLIC can still connect to the authoritative database %s: only its owner (or a "
            "member of it) or a superuser can revoke that (REVOKE CONNECT ON DATABASE ... "
            "FROM PUBLIC)",
            db.redacted(),
        )
    return True


def _one(conn: DictConnection, query: str, *params: object) -> object:
    row = conn.execute(query, params).fetchone()
    return None if row is None else next(iter(row.values()))


def reader_url(serving_url: str, password: str) -> str:
    """The serving database's address, logged in as the web role."""
    return conninfo.make_conninfo(serving_url, user=WEB_ROLE, password=password)


def generated_password(directory: Path) -> str:
    """A password generated once and kept readable by its owner only."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "web_password"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(24))
    return path.read_text().strip()


def password_from_environment() -> str | None:
    """JOBHARBOR_WEB_DB_PASSWORD (PASSWORD_ENV), through the settings."""
    secret = load_settings().web_db_password
    return (secret.get_secret_value() or None) if secret else None
