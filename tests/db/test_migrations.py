"""Migrations tested by their effect on a real database (and `alembic check`): from
empty, twice, down and up again, the crawl-engine migration's data move, and the constraints they create."""

from __future__ import annotations

import psycopg
import pytest

from pipeline.db import migrate
from pipeline.db.connect import Database
from pipeline.db.schema import SCHEMAS, metadata

EXPECTED_TABLES = {
    "ref.sources",
    "crawl.boards",
    "crawl.hosts",
    "crawl.runs",
    "crawl.backfill_approvals",
    "crawl.scans",
    "crawl.raw_objects",
    "crawl.fetch_attempts",
    "crawl.robots",
    "core.postings",
    "core.parse_results",
    "core.posting_events",
    "enrich.queue",
    "enrich.results",
    "enrich.budgets",
    "enrich.spend",
}


def tables(db: Database) -> set[str]:
    with db.connect() as conn:
        rows = conn.execute(
            "SELECT table_schema || '.' || table_name AS t FROM information_schema.tables "
            "WHERE table_schema = ANY(%s) AND table_type = 'BASE TABLE'",
            (list(SCHEMAS),),
        ).fetchall()
    return {r["t"] for r in rows}


def catalog_snapshot(db: Database) -> list[tuple]:
    """Every column, index and constraint of our schemas: what a no-op must not change."""
    with db.connect() as conn:
        columns = conn.execute(
            "SELECT table_schema, table_name, column_name, data_type, is_nullable, column_default "
            "FROM information_schema.columns WHERE table_schema = ANY(%s) ORDER BY 1, 2, 3",
            (list(SCHEMAS),),
        ).fetchall()
        indexes = conn.execute(
            "SELECT schemaname, indexname, indexdef FROM pg_indexes WHERE schemaname = ANY(%s) ORDER BY 1, 2",
            (list(SCHEMAS),),
        ).fetchall()
    return [tuple(r.values()) for r in columns + indexes]


def test_upgrade_from_empty_creates_the_authoritative_schema(empty_database: Database) -> None:
    assert tables(empty_database) == set()
    migrate.upgrade(empty_database)
    assert tables(empty_database) == EXPECTED_TABLES
    assert migrate.current_revision(empty_database) == migrate.head_revision()
    # The migrated database matches the models: `alembic check` finds nothing to generate.
    migrate.check(empty_database)


def test_models_cover_every_table() -> None:
    assert {f"{t.schema}.{t.name}" for t in metadata.sorted_tables} == EXPECTED_TABLES


def test_upgrade_twice_is_a_no_op(empty_database: Database) -> None:
    migrate.upgrade(empty_database)
    before = catalog_snapshot(empty_database)
    migrate.upgrade(empty_database)
    assert catalog_snapshot(empty_database) == before
    assert migrate.current_revision(empty_database) == migrate.head_revision()


def test_downgrade_then_upgrade_round_trip(empty_database: Database) -> None:
    migrate.upgrade(empty_database)
    migrated = catalog_snapshot(empty_database)
    migrate.downgrade(empty_database, "base")
    assert tables(empty_database) == set()
    with empty_database.connect() as conn:
        left = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname = ANY(%s)", (list(SCHEMAS),)
        ).fetchall()
    assert left == []
    migrate.upgrade(empty_database)
    assert catalog_snapshot(empty_database) == migrated


def test_one_current_parse_result_per_posting_is_enforced(databases) -> None:
    """The partial unique index is real: a second current row for a posting fails."""
    db = databases.db
    with db.connect() as conn:
        conn.execute(
            "INSERT INTO ref.sources (id, platform, display_name, parser, config, config_hash) "
            "VALUES ('s', 'greenhouse', 'S', 'greenhouse', '{}', 'h')"
        )
        board = conn.execute(
            "INSERT INTO crawl.boards (source_id, board_key, url, lane, host) "
            "VALUES ('s', 'b', 'http://x', 'greenhouse', 'x') RETURNING id"
        ).fetchone()["id"]
        for sha in ("a" * 64, "b" * 64):
            conn.execute(
                "INSERT INTO crawl.raw_objects (sha256, object_key, byte_length, source_id, url, state) "
                "VALUES (%s, %s, 1, 's', 'http://x', 'ready')",
                (sha, sha),
            )
        posting = conn.execute(
            "INSERT INTO core.postings (source_id, external_id, board_id, url) "
            "VALUES ('s', '1', %s, 'http://x/1') RETURNING id",
            (board,),
        ).fetchone()["id"]
        insert = (
            "INSERT INTO core.parse_results (posting_id, raw_sha256, parser_name, parser_version, quality, is_current) "
            "VALUES (%s, %s, 'greenhouse', '1', 'accepted', true)"
        )
        conn.execute(insert, (posting, "a" * 64))
        conn.commit()
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(insert, (posting, "b" * 64))
        conn.rollback()
        # And the same (posting, raw, parser, version) twice is refused too: writes are idempotent upserts.
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute(insert.replace("true)", "false)"), (posting, "a" * 64))


def test_migrated_schema_matches_the_models(empty_database: Database) -> None:
    migrate.upgrade(empty_database)
    migrate.check(empty_database)  # raises if schema.py and the migrations disagree
    assert migrate.current_revision(empty_database) == migrate.head_revision()


def test_crawl_engine_downgrades_and_upgrades_again(empty_database: Database) -> None:
    migrate.upgrade(empty_database, "authoritative_schema")
    with empty_database.connect() as conn, conn.transaction():
        conn.execute(
            "INSERT INTO ref.sources (id, platform, display_name, parser, config, config_hash)"
            " VALUES ('s', 'greenhouse', 's', 'greenhouse', '{}', 'h')"
        )
        conn.execute(
            "INSERT INTO crawl.boards (source_id, board_key, url, lane, host, body_hash)"
            " VALUES ('s', 'b', 'http://x/b', 'greenhouse', 'x', 'listing-hash')"
        )
    migrate.upgrade(empty_database)
    with empty_database.connect() as conn:
        row = conn.execute("SELECT body_hash, listing_hash FROM crawl.boards").fetchone()
        # The old column held the order-free listing hash: it moves, it is not lost.
        assert row == {"body_hash": None, "listing_hash": "listing-hash"}
        conn.execute(
            "INSERT INTO crawl.robots (origin, verdict, expires_at) VALUES ('o', 'allow_all', now())"
        )
        conn.commit()
    migrate.downgrade(empty_database, "authoritative_schema")
    with empty_database.connect() as conn:
        row = conn.execute("SELECT body_hash FROM crawl.boards").fetchone()
        assert row == {"body_hash": "listing-hash"}
        assert conn.execute("SELECT to_regclass('crawl.robots') AS t").fetchone() == {"t": None}
    migrate.upgrade(empty_database)
    migrate.check(empty_database)
