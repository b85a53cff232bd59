"""The 0002 migration: upgrades, matches the models, and downgrades cleanly."""

from __future__ import annotations

from pipeline.db import migrate
from pipeline.db.connect import Database


def test_migrated_schema_matches_the_models(empty_database: Database) -> None:
    migrate.upgrade(empty_database)
    migrate.check(empty_database)  # raises if schema.py and the migrations disagree
    assert migrate.current_revision(empty_database) == migrate.head_revision()


def test_0002_downgrades_and_upgrades_again(empty_database: Database) -> None:
    migrate.upgrade(empty_database, "0001")
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
    migrate.downgrade(empty_database, "0001")
    with empty_database.connect() as conn:
        row = conn.execute("SELECT body_hash FROM crawl.boards").fetchone()
        assert row == {"body_hash": "listing-hash"}
        assert conn.execute("SELECT to_regclass('crawl.robots') AS t").fetchone() == {"t": None}
    migrate.upgrade(empty_database)
    migrate.check(empty_database)
