"""Row counts and checksums of every table of a database: equal snapshots mean nothing
was written (a read-only preview's proof)."""

from __future__ import annotations

from pipeline.db.connect import Database


def table_snapshot(db: Database) -> dict[str, tuple[int, str]]:
    with db.connect() as conn:
        tables = conn.execute(
            """SELECT table_schema, table_name FROM information_schema.tables
               WHERE table_type = 'BASE TABLE'
                 AND table_schema NOT IN ('pg_catalog', 'information_schema')
               ORDER BY 1, 2"""
        ).fetchall()
        snapshot = {}
        for t in tables:
            name = f'"{t["table_schema"]}"."{t["table_name"]}"'
            row = conn.execute(
                f"SELECT count(*) AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM {name} AS x"
            ).fetchone()
            snapshot[name] = (row["n"], row["h"])
    return snapshot
