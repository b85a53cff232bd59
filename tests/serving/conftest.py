"""Serving sync tests: postings written straight into the real authoritative database
(as the parse and lifecycle phases write them, triggers included), synced into a
real serving database."""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from typing import Any

import pytest

from serving_sync.reconcile import SyncReport, reconcile
from tests.conftest import TestDatabases

_raw = itertools.count(1)


def _sha() -> str:
    return hashlib.sha256(str(next(_raw)).encode()).hexdigest()


DEFAULTS: dict[str, Any] = {
    "title": "Software Engineer",
    "company": "Acme",
    "location_text": "Berlin, Germany",
    "location": '{"countries": ["DE"], "offices": [{"city": "Berlin", "region": "Berlin"}]}',
    "remote": "hybrid",
    "description_text": "Build things that matter.",
    "posted_at": "2026-11-20T08:00:00Z",
    "posted_precision": "day",
}


@dataclass
class Seeder:
    """Writes the authoritative side of a test the way the pipeline does."""

    dbs: TestDatabases
    source: str = "acme"

    def __post_init__(self) -> None:
        with self.dbs.db.connect() as conn:
            conn.execute(
                "INSERT INTO ref.sources (id, platform, display_name, parser, config, config_hash) "
                "VALUES (%s, 'greenhouse', 'Acme', 'greenhouse', '{}', 'h')",
                (self.source,),
            )
            self.board = conn.execute(
                "INSERT INTO crawl.boards (source_id, board_key, url, lane, host) "
                "VALUES (%s, 'b', 'http://x', 'greenhouse', 'x') RETURNING id",
                (self.source,),
            ).fetchone()["id"]
        self._external = itertools.count(1)

    def posting(self, quality: str = "accepted", **fields: Any) -> int:
        external = str(next(self._external))
        with self.dbs.db.connect() as conn:
            posting = conn.execute(
                "INSERT INTO core.postings (source_id, external_id, board_id, url) "
                "VALUES (%s, %s, %s, %s) RETURNING id",
                (self.source, external, self.board, f"http://x/{external}"),
            ).fetchone()["id"]
        self.parse(posting, quality, **fields)
        return posting

    def postings(self, n: int, **fields: Any) -> list[int]:
        return [self.posting(title=f"Engineer {i}", **fields) for i in range(n)]

    def parse(self, posting: int, quality: str = "accepted", **fields: Any) -> int:
        """A new parse result; non-rejected ones become current, as the parse phase does."""
        values = {**DEFAULTS, **fields}
        sha = _sha()
        columns = ", ".join(values)
        placeholders = ", ".join(["%s"] * len(values))
        with self.dbs.db.connect() as conn:
            conn.execute(
                "INSERT INTO crawl.raw_objects (sha256, object_key, byte_length, source_id, url, state) "
                "VALUES (%s, %s, 1, %s, 'http://x', 'ready')",
                (sha, sha, self.source),
            )
            result = conn.execute(
                f"""INSERT INTO core.parse_results
                    (posting_id, raw_sha256, parser_name, parser_version, quality, {columns})
                    VALUES (%s, %s, 'greenhouse', '1', %s, {placeholders}) RETURNING id""",
                (posting, sha, quality, *values.values()),
            ).fetchone()["id"]
            if quality != "rejected":
                conn.execute(
                    "UPDATE core.parse_results SET is_current = false WHERE posting_id = %s AND is_current",
                    (posting,),
                )
                conn.execute(
                    "UPDATE core.parse_results SET is_current = true WHERE id = %s", (result,)
                )
        return result

    def sql(self, query: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        with self.dbs.db.connect() as conn:
            cursor = conn.execute(query, params)
            return cursor.fetchall() if cursor.description else []

    def serving(self, query: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        with self.dbs.serving.connect() as conn:
            cursor = conn.execute(query, params)
            return cursor.fetchall() if cursor.description else []

    def sync(self, **options: Any) -> SyncReport:
        return reconcile(self.dbs.db, self.dbs.serving, **options)

    def jobs(self) -> dict[int, dict[str, Any]]:
        return {r["id"]: r for r in self.serving("SELECT * FROM serving.jobs")}

    def last_run(self) -> dict[str, Any]:
        return self.serving("SELECT * FROM serving.sync_runs ORDER BY id DESC LIMIT 1")[0]


@pytest.fixture
def seed(databases: TestDatabases) -> Seeder:
    return Seeder(databases)
