"""A small, bounded pool of read-only connections as the web role."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

log = logging.getLogger(__name__)


class Unavailable(Exception):
    """The serving database cannot answer now (down, overloaded, timed out)."""


class ReaderPool:
    def __init__(self, url: str, *, size: int, timeout_s: float) -> None:
        self._timeout_s = timeout_s
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=size,
            kwargs={
                "autocommit": True,
                "row_factory": dict_row,
                "application_name": "jobharbor-web",
            },
            open=False,
            timeout=timeout_s,
            reconnect_timeout=60,
        )

    def open(self) -> None:
        self._pool.open(wait=False)  # an outage at start-up must not stop the app

    def close(self) -> None:
        self._pool.close()

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A connection, or Unavailable: a page must say "search unavailable", not crash."""
        try:
            with self._pool.connection(timeout=self._timeout_s) as conn:
                yield conn
        except (PoolTimeout, psycopg.OperationalError) as exc:
            log.warning("serving database unavailable: %s", exc)
            raise Unavailable(str(exc)) from exc
