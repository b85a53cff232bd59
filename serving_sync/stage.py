"""The serving side of a sync: staging tables, the diff, the writes, the dry-run plan.

Staging tables are temporary (dropped at commit or rollback). The staged content
gets its fingerprint from the same generated-column function as serving.jobs, so
the diff compares what the source says with what serving holds, column by column.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pipeline.db.connect import DictConnection

# serving.jobs content, in COPY order (the fingerprint is generated from these).
CONTENT = (
    "id", "source", "external_id", "status", "title", "company", "department", "location_text",
    "countries", "regions", "cities", "location_unresolved", "employment_type",
    "employment_type_raw", "job_type", "posted_at", "posted_precision", "first_seen_at",
    "salary_min", "salary_max", "salary_currency", "salary_period", "url", "apply_url",
    "description", "openings_12m", "duplicate_group", "experience_min", "experience_max",
    "seniority", "work_mode", "work_mode_source", "education", "extracted_employment_type",
    "skills_required", "skills_preferred", "enrichment", "enriched_at", "company_source",
    "legal_entity", "age_known", "salary_year_min", "salary_year_max", "salary_year_basis",
    "salary_year_top_eur", "description_layout", "language",
)  # fmt: skip
FINGERPRINTED = CONTENT[1:]
# The searchable text without diacritics (serving_sync.text.unaccent), staged only: the
# writes build search_tsv from it (serving.search_tsv_of) and the filter columns.
UNACCENTED = ("u_title", "u_company", "u_location_text", "u_description")
STAGED = (*CONTENT, "retained", *UNACCENTED)
# The words, their stems in the posting's language (serving.stem_lexemes), then the filter
# lexemes (serving.filter_lexemes): one GIN scan answers a query and its filters.
_SEARCH_TSV = (
    "serving.search_tsv_of(s.u_title, s.u_company, s.u_location_text, s.u_description)"
    " || serving.stem_lexemes(s.language, s.u_title, s.u_description)"
    " || serving.filter_lexemes(s.countries, s.regions, s.cities, s.work_mode, s.job_type,"
    " s.employment_type, s.source, s.company, s.salary_min, s.salary_max)"
)
CLOSED = ("id", "source", "title", "company", "closed_at", "reason")


def fingerprint_sql(alias: str = "") -> str:
    """serving.job_fingerprint over `alias`'s columns (what the generated column computes)."""
    prefix = f"{alias}." if alias else ""
    return f"serving.job_fingerprint({', '.join(prefix + c for c in FINGERPRINTED)})"


def create_staging(conn: DictConnection) -> None:
    columns = ", ".join(CONTENT)
    conn.execute(
        f"CREATE TEMP TABLE staging ON COMMIT DROP AS SELECT {columns} FROM serving.jobs WITH NO DATA"
    )
    conn.execute(
        "ALTER TABLE staging ADD COLUMN retained boolean NOT NULL DEFAULT false, "
        + "".join(f"ADD COLUMN {c} text, " for c in UNACCENTED)
        + "ADD COLUMN fingerprint text GENERATED ALWAYS AS ("
        + fingerprint_sql()
        + ") STORED"
    )
    conn.execute("CREATE TEMP TABLE staging_gone (id bigint PRIMARY KEY) ON COMMIT DROP")
    conn.execute(
        "CREATE TEMP TABLE staging_live (id bigint, last_seen_on date NOT NULL) ON COMMIT DROP"
    )
    conn.execute(
        f"CREATE TEMP TABLE staging_closed ON COMMIT DROP AS SELECT {', '.join(CLOSED)} "
        "FROM serving.closed_jobs WITH NO DATA"
    )


def copy_rows(
    conn: DictConnection, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
) -> int:
    """COPY rows as they come (psycopg flushes its buffer in batches): returns how many."""
    count = 0
    with conn.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def duplicate_ids(conn: DictConnection) -> list[int]:
    return [
        r["id"]
        for r in conn.execute(
            "SELECT id FROM staging GROUP BY id HAVING count(*) > 1 ORDER BY id LIMIT 5"
        )
    ]


def index_staging(conn: DictConnection) -> None:
    conn.execute("ALTER TABLE staging ADD PRIMARY KEY (id)")
    conn.execute("CREATE INDEX ON staging_live (id)")
    conn.execute("ANALYZE staging")
    conn.execute("ANALYZE staging_gone")
    conn.execute("ANALYZE staging_live")


def removed_sql(full: bool) -> str:
    """serving.jobs rows (alias j) this sync removes."""
    if full:
        return "NOT EXISTS (SELECT 1 FROM staging AS s WHERE s.id = j.id)"
    return "EXISTS (SELECT 1 FROM staging_gone AS g WHERE g.id = j.id)"


def classify(conn: DictConnection) -> None:
    """Which staged rows are new and which changed, into small id tables. Written once,
    before serving.jobs is touched: a write never re-reads the table it is growing."""
    conn.execute(
        """CREATE TEMP TABLE staging_new ON COMMIT DROP AS
           SELECT s.id FROM staging AS s
           WHERE NOT EXISTS (SELECT 1 FROM serving.jobs AS j WHERE j.id = s.id)"""
    )
    # A row also counts as changed when it no longer matches what it was written from
    # (a hand edit, or a migration that changed the fingerprint's columns while the
    # staged values equal the stored ones): writing it again repairs it.
    conn.execute(
        """CREATE TEMP TABLE staging_changed ON COMMIT DROP AS
           SELECT s.id FROM staging AS s JOIN serving.jobs AS j ON j.id = s.id
           WHERE j.fingerprint IS DISTINCT FROM s.fingerprint
              OR j.fingerprint IS DISTINCT FROM j.source_fingerprint"""
    )
    conn.execute("ANALYZE staging_new")
    conn.execute("ANALYZE staging_changed")


def diff_counts(conn: DictConnection, full: bool) -> dict[str, int]:
    row = conn.execute(
        f"""SELECT
             (SELECT count(*) FROM staging_new) AS inserted,
             (SELECT count(*) FROM staging_changed) AS updated,
             (SELECT count(*) FROM serving.jobs AS j WHERE {removed_sql(full)}) AS removed,
             (SELECT count(*) FROM serving.jobs) AS published,
             (SELECT count(*) FROM staging WHERE retained) AS retained"""
    ).fetchone()
    assert row is not None
    counts = dict(row)
    counts["unchanged"] = counts["published"] - counts["updated"] - counts["removed"]
    return counts


def apply_content(conn: DictConnection, full: bool) -> None:
    """Write only rows whose fingerprint differs; insert new ones; delete removals."""
    columns = ", ".join(CONTENT)
    assignments = ", ".join(f"{c} = s.{c}" for c in FINGERPRINTED)
    conn.execute(
        f"""UPDATE serving.jobs AS j
            SET {assignments}, search_tsv = {_SEARCH_TSV}, source_fingerprint = s.fingerprint,
                synced_at = now()
            FROM staging_changed AS c JOIN staging AS s ON s.id = c.id
            WHERE j.id = c.id"""
    )
    conn.execute(
        f"""INSERT INTO serving.jobs ({columns}, search_tsv, source_fingerprint)
            SELECT {", ".join(f"s.{c}" for c in CONTENT)}, {_SEARCH_TSV}, s.fingerprint
            FROM staging_new AS n JOIN staging AS s ON s.id = n.id"""
    )
    conn.execute(f"DELETE FROM serving.jobs AS j WHERE {removed_sql(full)}")
    # The facet bitmaps' delta for what this wrote, committed with it: facet counts
    # stay on the bitmaps, and current, from the sync's commit (serving_sync.facet_bits).
    conn.execute("SELECT serving.refresh_facet_delta()")


def apply_liveness(conn: DictConnection) -> int:
    """Refresh last_seen_on in the narrow table; content rows are not touched."""
    cursor = conn.execute(
        """INSERT INTO serving.job_liveness AS l (id, last_seen_on)
           SELECT v.id, v.last_seen_on FROM staging_live AS v
           WHERE EXISTS (SELECT 1 FROM serving.jobs AS j WHERE j.id = v.id)
           ON CONFLICT (id) DO UPDATE SET last_seen_on = excluded.last_seen_on
           WHERE l.last_seen_on IS DISTINCT FROM excluded.last_seen_on"""
    )
    return cursor.rowcount


def apply_closures(conn: DictConnection, full: bool, retention_days: int) -> tuple[int, int]:
    """Record closures; forget those published again and those past retention."""
    columns = ", ".join(CLOSED)
    assignments = ", ".join(f"{c} = excluded.{c}" for c in CLOSED[1:])
    written = conn.execute(
        f"""INSERT INTO serving.closed_jobs AS c ({columns})
            SELECT {columns} FROM staging_closed
            ON CONFLICT (id) DO UPDATE SET {assignments}
            WHERE (c.source, c.title, c.company, c.closed_at, c.reason)
                  IS DISTINCT FROM (excluded.source, excluded.title, excluded.company,
                                    excluded.closed_at, excluded.reason)"""
    ).rowcount
    conn.execute(
        "DELETE FROM serving.closed_jobs AS c WHERE EXISTS (SELECT 1 FROM staging s WHERE s.id = c.id)"
    )
    if full:  # a full read staged every recent closure: anything else is no longer closed
        conn.execute(
            "DELETE FROM serving.closed_jobs AS c "
            "WHERE NOT EXISTS (SELECT 1 FROM staging_closed s WHERE s.id = c.id)"
        )
    pruned = conn.execute(
        "DELETE FROM serving.closed_jobs WHERE closed_at < now() - make_interval(days => %s)",
        (retention_days,),
    ).rowcount
    return written, pruned


def _changed_fields_sql() -> str:
    cases = ", ".join(
        f"CASE WHEN s.{c} IS DISTINCT FROM j.{c} THEN '{c}' END" for c in FINGERPRINTED
    )
    return f"array_remove(ARRAY[{cases}]::text[], NULL)"


def sample(conn: DictConnection, full: bool, size: int) -> dict[str, list[dict[str, Any]]]:
    """A few rows of each kind of change, with the fields an update changes."""
    inserts = conn.execute(
        """SELECT s.id, s.source, s.title, s.company
           FROM staging_new AS n JOIN staging AS s ON s.id = n.id
           ORDER BY s.id LIMIT %s""",
        (size,),
    ).fetchall()
    updates = conn.execute(
        f"""SELECT s.id, s.title, s.retained, {_changed_fields_sql()} AS changed
            FROM staging_changed AS c JOIN staging AS s ON s.id = c.id
            JOIN serving.jobs AS j ON j.id = c.id ORDER BY s.id LIMIT %s""",
        (size,),
    ).fetchall()
    removals = conn.execute(
        f"""SELECT j.id, j.source, j.title FROM serving.jobs AS j
            WHERE {removed_sql(full)} ORDER BY j.id LIMIT %s""",
        (size,),
    ).fetchall()
    return {"insert": inserts, "update": updates, "remove": removals}


def liveness_pending(conn: DictConnection) -> int:
    row = conn.execute(
        """SELECT count(*) AS n FROM staging_live AS v
           LEFT JOIN serving.job_liveness AS l ON l.id = v.id
           WHERE l.last_seen_on IS DISTINCT FROM v.last_seen_on"""
    ).fetchone()
    assert row is not None
    return int(row["n"])
