"""The write protocol that makes raw storage crash-safe.

1. Record the expected key, length and SHA-256 as `pending` (committed).
2. Upload the bytes.
3. Mark the row `ready`.
A crash between 1 and 3 leaves a `pending` row that `recover_pending` resolves:
the object is there with the right length and hash -> `ready`, otherwise `lost`.
Reads verify length and SHA-256, so a corrupted object is never parsed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from pipeline.db.connect import Database, DictConnection
from pipeline.errors import RawIntegrityError
from pipeline.rawstore.base import RawStore, object_key
from pipeline.testhooks import kill_point


@dataclass(frozen=True)
class RawRef:
    sha256: str
    object_key: str
    byte_length: int
    reused: bool  # the same bytes were already stored: nothing uploaded


@dataclass(frozen=True)
class RecoveryReport:
    ready: int
    lost: int
    lost_sha256: tuple[str, ...] = ()


_CLAIM = """
INSERT INTO crawl.raw_objects
    (sha256, object_key, byte_length, content_type, source_id, url, http_status, fetched_at, state)
VALUES (%(sha256)s, %(key)s, %(length)s, %(content_type)s, %(source_id)s, %(url)s,
        %(status)s, %(fetched_at)s, 'pending')
ON CONFLICT (sha256) DO UPDATE SET updated_at = now()
RETURNING object_key, state, byte_length
"""

_MARK = """
UPDATE crawl.raw_objects SET state = %(state)s, state_reason = %(reason)s, updated_at = now()
WHERE sha256 = %(sha256)s
"""


class RawArchive:
    """Raw storage with its Postgres bookkeeping. Keeps one autocommit connection
    of its own, so the `pending` and `ready` marks commit independently of the
    caller's transaction (that independence is the point of the protocol)."""

    def __init__(self, db: Database, store: RawStore) -> None:
        self.db = db
        self.store = store
        self._conn: DictConnection | None = None

    def _connection(self) -> DictConnection:
        if self._conn is None or self._conn.closed:
            self._conn = self.db.connect(autocommit=True)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> RawArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def save(
        self,
        *,
        source_id: str,
        body: bytes,
        url: str,
        content_type: str | None,
        http_status: int | None,
        fetched_at: datetime | None = None,
    ) -> RawRef:
        sha256 = hashlib.sha256(body).hexdigest()
        fetched_at = fetched_at or datetime.now(UTC)
        key = object_key(source_id, fetched_at.date(), sha256, content_type)
        conn = self._connection()
        row = conn.execute(
            _CLAIM,
            {
                "sha256": sha256,
                "key": key,
                "length": len(body),
                "content_type": content_type,
                "source_id": source_id,
                "url": url,
                "status": http_status,
                "fetched_at": fetched_at,
            },
        ).fetchone()
        assert row is not None
        if row["state"] == "ready":
            return RawRef(sha256, row["object_key"], row["byte_length"], reused=True)
        # pending (ours, or a crashed writer's) or lost: (re)upload to the recorded key.
        kill_point("raw:after_intent")
        self.store.put(row["object_key"], body, content_type)
        kill_point("raw:after_upload")
        conn.execute(_MARK, {"state": "ready", "reason": None, "sha256": sha256})
        return RawRef(sha256, row["object_key"], len(body), reused=False)

    def load(self, sha256: str) -> bytes:
        conn = self._connection()
        row = conn.execute(
            "SELECT object_key, byte_length, state FROM crawl.raw_objects WHERE sha256 = %s",
            (sha256,),
        ).fetchone()
        if row is None:
            raise RawIntegrityError("no raw object recorded", sha256=sha256)
        if row["state"] != "ready":
            raise RawIntegrityError(f"raw object is {row['state']}", sha256=sha256)
        verified = self._verify(row["object_key"], row["byte_length"], sha256)
        if isinstance(verified, str):
            conn.execute(_MARK, {"state": "lost", "reason": verified, "sha256": sha256})
            raise RawIntegrityError(verified, sha256=sha256, key=row["object_key"])
        return verified

    def describe(self, sha256: str) -> dict[str, object] | None:
        """What was recorded when the object was fetched (URL, type, status, time)."""
        return (
            self._connection()
            .execute(
                """SELECT sha256, url, content_type, http_status, fetched_at, state, byte_length
               FROM crawl.raw_objects WHERE sha256 = %s""",
                (sha256,),
            )
            .fetchone()
        )

    def _verify(self, key: str, length: int, sha256: str) -> bytes | str:
        """The verified bytes, or a sentence saying what is wrong with them."""
        try:
            data = self.store.get(key)
        except KeyError:
            return "object is missing from the store"
        if len(data) != length:
            return f"object has {len(data)} bytes, expected {length}"
        if hashlib.sha256(data).hexdigest() != sha256:
            return "object content does not match its SHA-256"
        return data

    def recover_pending(self, older_than_s: float = 300) -> RecoveryReport:
        """Resolve uploads a crash left `pending` (older than `older_than_s`, so live
        uploads of other workers are not judged mid-flight)."""
        ready = 0
        lost: list[str] = []
        conn = self._connection()
        rows = conn.execute(
            """SELECT sha256, object_key, byte_length FROM crawl.raw_objects
               WHERE state = 'pending' AND updated_at < now() - make_interval(secs => %s)""",
            (older_than_s,),
        ).fetchall()
        for row in rows:
            outcome = self._verify(row["object_key"], row["byte_length"], row["sha256"])
            if isinstance(outcome, str):
                lost.append(row["sha256"])
                conn.execute(_MARK, {"state": "lost", "reason": outcome, "sha256": row["sha256"]})
            else:
                ready += 1
                conn.execute(_MARK, {"state": "ready", "reason": None, "sha256": row["sha256"]})
        return RecoveryReport(ready=ready, lost=len(lost), lost_sha256=tuple(lost))
