"""The web app's database role (`jobharbor_web`, serving_sync/sql/roles/): its password
comes from the environment (or, for the embedded cluster, is generated once into a
0600 file), is set by `jobharbor db up` / `jobharbor web`, and is never typed by hand."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import psycopg
from psycopg import conninfo, sql

from pipeline.db.connect import Database
from pipeline.settings import load_settings

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
