from __future__ import annotations

from serving_sync import schema as serving_schema


def test_app_fixture_has_migrated_databases(app) -> None:
    with app.db.connect() as conn:
        boards = conn.execute(
            "SELECT source_id, board_key FROM crawl.boards ORDER BY 1, 2"
        ).fetchall()
    assert ("greenhouse", "acme-robotics") in [(b["source_id"], b["board_key"]) for b in boards]
    with app.serving_db.connect() as conn:
        versions = [
            r["version"] for r in conn.execute("SELECT version FROM serving.schema_versions")
        ]
    assert versions == [m.version for m in serving_schema.migrations()]
