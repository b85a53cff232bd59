"""Connections, transactions and advisory locks over psycopg 3.

Queries are plain named SQL next to the code that uses them; SQLAlchemy is only
used by Alembic and the schema check.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
from psycopg.rows import dict_row

from pipeline.errors import LockNotAcquired

DictConnection = psycopg.Connection[dict]


@dataclass(frozen=True)
class Database:
    """Where a database is. Holds the URL; hands out connections."""

    url: str
    application_name: str = "jobharbor"

    def connect(self, *, autocommit: bool = False) -> DictConnection:
        return psycopg.connect(
            self.url,
            autocommit=autocommit,
            row_factory=dict_row,
            application_name=self.application_name,
        )

    @property
    def sqlalchemy_url(self) -> str:
        return sqlalchemy_url(self.url)

    def redacted(self) -> str:
        return redact_url(self.url)


def sqlalchemy_url(url: str) -> str:
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def redact_url(url: str) -> str:
    """The URL without its password, for logs and reports."""
    info = psycopg.conninfo.conninfo_to_dict(url)
    if "password" in info:
        info["password"] = "***"
    host = info.get("host", "")
    port = info.get("port", "")
    return f"postgresql://{info.get('user', '')}@{host}{':' + str(port) if port else ''}/{info.get('dbname', '')}"


def lock_key(*parts: str) -> str:
    return "jobharbor:" + ":".join(parts)


@contextlib.contextmanager
def advisory_lock(
    db: Database, *parts: str, wait_s: float = 0.0, poll_s: float = 0.5
) -> Iterator[DictConnection]:
    """Hold a session advisory lock for the block, on a dedicated connection.

    Waits up to `wait_s` seconds, then raises LockNotAcquired naming the lock, so
    the caller can say whether it waited or skipped.
    """
    key = lock_key(*parts)
    conn = db.connect(autocommit=True)
    try:
        deadline = time.monotonic() + wait_s
        while True:
            row = conn.execute(
                "SELECT pg_try_advisory_lock(hashtextextended(%s, 0)) AS ok", (key,)
            ).fetchone()
            if row and row["ok"]:
                break
            if time.monotonic() >= deadline:
                raise LockNotAcquired("another run holds the lock", lock=key, waited_s=wait_s)
            time.sleep(poll_s)
        try:
            yield conn
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (key,))
    finally:
        conn.close()
