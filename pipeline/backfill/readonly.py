"""Read-only access for previews: a connection whose every transaction is READ ONLY
(PostgreSQL refuses any write on it), and raw reads that verify without marking."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator

from pipeline.db.connect import Database, DictConnection
from pipeline.errors import RawIntegrityError
from pipeline.rawstore import RawStore


@contextlib.contextmanager
def read_only(db: Database) -> Iterator[DictConnection]:
    """An autocommit connection with default_transaction_read_only: a stray INSERT in a
    preview fails with `cannot execute INSERT in a read-only transaction`."""
    conn = db.connect(autocommit=True)
    try:
        conn.execute("SET default_transaction_read_only = on")
        yield conn
    finally:
        conn.close()


class PreviewArchive:
    """The two RawArchive reads the parser needs (`describe`, `load`), on a read-only
    connection: a missing or corrupt object raises but is not marked `lost`."""

    def __init__(self, conn: DictConnection, store: RawStore) -> None:
        self.conn = conn
        self.store = store

    def describe(self, sha256: str) -> dict[str, object] | None:
        return self.conn.execute(
            """SELECT sha256, url, content_type, http_status, fetched_at, state, byte_length
               FROM crawl.raw_objects WHERE sha256 = %s""",
            (sha256,),
        ).fetchone()

    def load(self, sha256: str) -> bytes:
        row = self.conn.execute(
            "SELECT object_key, byte_length, state FROM crawl.raw_objects WHERE sha256 = %s",
            (sha256,),
        ).fetchone()
        if row is None or row["state"] != "ready":
            raise RawIntegrityError(
                f"raw object is {row['state'] if row else 'not recorded'}", sha256=sha256
            )
        try:
            data = self.store.get(row["object_key"])
        except KeyError:
            raise RawIntegrityError("object is missing from the store", sha256=sha256) from None
        if len(data) != row["byte_length"] or hashlib.sha256(data).hexdigest() != sha256:
            raise RawIntegrityError("object does not match its length or SHA-256", sha256=sha256)
        return data
