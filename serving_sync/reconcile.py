"""Publish open postings into the serving schema as one transactional diff.

1. Read a repeatable-read snapshot of open postings with their current parse.
2. Stage those rows in the serving database (COPY into a temp table).
3. Upsert rows whose fingerprint changed, insert new ones, remove rows no longer
   open, verify the result equals the staging table, then commit. A dry run does
   all of it and rolls back, reporting what would have changed.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pipeline.db.connect import Database, DictConnection
from pipeline.errors import FatalError
from pipeline.testhooks import kill_point
from serving_sync import schema

PUBLISHED_STATUSES = ("active", "missing")  # missing is not a verdict: it stays listed
_SYNC_LOCK = "jobharbor:serving:sync"

COLUMNS = (
    "id", "source", "external_id", "status", "title", "company", "department", "location_text",
    "countries", "regions", "cities", "location_unresolved", "remote", "employment_type", "job_type",
    "posted_at", "posted_precision", "first_seen_at", "last_seen_on", "salary_min", "salary_max",
    "salary_currency", "salary_period", "url", "apply_url", "description", "openings_12m",
    "duplicate_group", "fingerprint",
)  # fmt: skip

_SNAPSHOT = """
WITH openings AS (
    -- How often each role was posted: distinct openings first seen in the last year.
    SELECT repost_key, count(DISTINCT opening_key) AS openings_12m
    FROM core.postings
    WHERE repost_key IS NOT NULL AND first_seen_at > now() - interval '365 days'
    GROUP BY repost_key
)
SELECT p.id, p.source_id AS source, p.external_id, p.status, r.title, r.company, r.department,
       r.location_text, r.location, r.remote, r.employment_type, r.job_type, r.posted_at,
       r.posted_precision, p.first_seen_at, (p.last_seen_at AT TIME ZONE 'UTC')::date AS last_seen_on,
       r.salary_min, r.salary_max, r.salary_currency, r.salary_period, COALESCE(r.url, p.url) AS url,
       r.apply_url, r.description_text AS description,
       COALESCE(o.openings_12m, 1) AS openings_12m, p.duplicate_group
FROM core.postings AS p
JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current
-- A disabled source is no longer followed: its postings are not vouched for in serving.
JOIN ref.sources AS s ON s.id = p.source_id AND s.enabled
LEFT JOIN openings AS o ON o.repost_key = p.repost_key
WHERE p.status = ANY(%s)
ORDER BY p.id
"""


@dataclass(frozen=True)
class SyncReport:
    dry_run: bool
    source_rows: int
    inserted: int
    updated: int
    removed: int
    unchanged: int
    elapsed_s: float

    @property
    def changed(self) -> int:
        return self.inserted + self.updated + self.removed

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "source_rows": self.source_rows,
            "inserted": self.inserted,
            "updated": self.updated,
            "removed": self.removed,
            "unchanged": self.unchanged,
        }


def _location_columns(location: Mapping[str, Any] | None) -> dict[str, Any]:
    if not location:
        return {"countries": [], "regions": [], "cities": [], "location_unresolved": True}
    offices = location.get("offices") or []
    return {
        "countries": sorted(set(location.get("countries") or [])),
        "regions": sorted({o["region"] for o in offices if o.get("region")}),
        "cities": sorted({o["city"] for o in offices if o.get("city")}),
        # Unknown stays unknown: unresolved parts (or nothing resolved) mean "could be anywhere".
        "location_unresolved": bool(location.get("unresolved")) or not location.get("countries"),
    }


def serving_row(record: Mapping[str, Any]) -> dict[str, Any]:
    row = {k: v for k, v in record.items() if k != "location"}
    row.update(_location_columns(record.get("location")))
    row["remote"] = row.get("remote") or "unknown"
    row["posted_precision"] = row.get("posted_precision") or "unknown"
    row["fingerprint"] = fingerprint(row)
    return {column: row.get(column) for column in COLUMNS}


def fingerprint(row: Mapping[str, Any]) -> str:
    def plain(value: Any) -> Any:
        if isinstance(value, (datetime, date)):
            return value.isoformat()
        if isinstance(value, Decimal):
            return str(value.normalize())
        return value

    blob = json.dumps(
        {k: plain(v) for k, v in sorted(row.items()) if k != "fingerprint"},
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.md5(blob.encode(), usedforsecurity=False).hexdigest()


def read_snapshot(db: Database) -> list[dict[str, Any]]:
    with db.connect() as conn:
        conn.isolation_level = 3  # REPEATABLE READ: one consistent view of every table read
        with conn.transaction():
            return [serving_row(r) for r in conn.execute(_SNAPSHOT, (list(PUBLISHED_STATUSES),))]


def _stage(conn: DictConnection, rows: list[dict[str, Any]]) -> None:
    conn.execute(
        """CREATE TEMP TABLE staging ON COMMIT DROP AS
           SELECT """
        + ", ".join(COLUMNS)
        + " FROM serving.jobs WITH NO DATA"
    )
    with conn.cursor().copy(f"COPY staging ({', '.join(COLUMNS)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([row[c] for c in COLUMNS])
    conn.execute("ALTER TABLE staging ADD PRIMARY KEY (id)")


def _diff_counts(conn: DictConnection) -> dict[str, int]:
    row = conn.execute(
        """SELECT
             count(*) FILTER (WHERE j.id IS NULL) AS inserted,
             count(*) FILTER (WHERE j.id IS NOT NULL AND j.fingerprint <> s.fingerprint) AS updated,
             count(*) FILTER (WHERE j.id IS NOT NULL AND j.fingerprint = s.fingerprint) AS unchanged
           FROM staging AS s LEFT JOIN serving.jobs AS j ON j.id = s.id"""
    ).fetchone()
    removed = conn.execute(
        "SELECT count(*) AS n FROM serving.jobs AS j WHERE NOT EXISTS (SELECT 1 FROM staging s WHERE s.id = j.id)"
    ).fetchone()
    assert row is not None
    assert removed is not None
    return {**row, "removed": removed["n"]}


def _apply(conn: DictConnection) -> None:
    columns = ", ".join(COLUMNS)
    updates = ", ".join(f"{c} = excluded.{c}" for c in COLUMNS if c != "id")
    conn.execute(
        f"""INSERT INTO serving.jobs ({columns})
            SELECT {columns} FROM staging
            ON CONFLICT (id) DO UPDATE SET {updates}, synced_at = now()
            WHERE serving.jobs.fingerprint IS DISTINCT FROM excluded.fingerprint"""
    )
    conn.execute(
        "DELETE FROM serving.jobs AS j WHERE NOT EXISTS (SELECT 1 FROM staging s WHERE s.id = j.id)"
    )


def _verify(conn: DictConnection) -> None:
    row = conn.execute(
        """SELECT
             (SELECT count(*) FROM serving.jobs) AS published,
             (SELECT count(*) FROM staging) AS staged,
             (SELECT count(*) FROM staging s LEFT JOIN serving.jobs j ON j.id = s.id
               WHERE j.fingerprint IS DISTINCT FROM s.fingerprint) AS mismatched"""
    ).fetchone()
    assert row is not None
    if row["published"] != row["staged"] or row["mismatched"]:
        raise FatalError("serving verification failed; rolled back", **row)


# Removing more than this share of what is published (and more than a handful of rows),
# or everything, is far likelier a misconfiguration (the wrong source database, an
# empty cluster) than the market: refused unless asked for explicitly.
MASS_REMOVAL_SHARE = 0.5
MASS_REMOVAL_MIN_ROWS = 50


def check_removal(counts: Mapping[str, int], source_rows: int) -> str | None:
    """Why this diff removes too much to apply unasked, or None."""
    removed = counts["removed"]
    published = removed + counts["updated"] + counts["unchanged"]
    if not removed:
        return None
    if source_rows == 0:
        return (
            f"the source has no open postings: the sync would remove all {removed} published rows"
        )
    if removed > MASS_REMOVAL_MIN_ROWS and removed / published > MASS_REMOVAL_SHARE:
        return f"the sync would remove {removed} of {published} published rows ({removed / published:.0%})"
    return None


def reconcile(
    source_db: Database,
    serving_db: Database,
    *,
    dry_run: bool = False,
    allow_mass_removal: bool = False,
) -> SyncReport:
    started = time.monotonic()
    schema.upgrade(serving_db)
    rows = read_snapshot(source_db)
    with serving_db.connect() as conn:
        try:
            with conn.transaction(force_rollback=dry_run):
                conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (_SYNC_LOCK,))
                _stage(conn, rows)
                counts = _diff_counts(conn)
                too_much = check_removal(counts, len(rows))
                if too_much and not allow_mass_removal and not dry_run:
                    raise FatalError(
                        f"{too_much}; refusing (check which databases this run uses, or pass "
                        "--allow-mass-removal if this is intended)"
                    )
                _apply(conn)
                kill_point("sync:before_verify")
                _verify(conn)
                kill_point("sync:after_verify")
                report = SyncReport(
                    dry_run,
                    len(rows),
                    counts["inserted"],
                    counts["updated"],
                    counts["removed"],
                    counts["unchanged"],
                    time.monotonic() - started,
                )
                if not dry_run:
                    _record(conn, report, "applied")
        except Exception as exc:
            _record_failure(conn, dry_run, len(rows), exc)
            raise
        if dry_run:
            with conn.transaction():
                _record(conn, report, "previewed")
    return report


_RECORD = """
INSERT INTO serving.sync_runs (dry_run, status, source_rows, inserted, updated, removed, unchanged,
                               error, finished_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, now())
"""


def _record(conn: DictConnection, report: SyncReport, status: str) -> None:
    conn.execute(
        _RECORD,
        (
            report.dry_run,
            status,
            report.source_rows,
            report.inserted,
            report.updated,
            report.removed,
            report.unchanged,
            None,
        ),
    )


def _record_failure(conn: DictConnection, dry_run: bool, rows: int, exc: Exception) -> None:
    if conn.closed:
        return
    with conn.transaction():
        conn.execute(_RECORD, (dry_run, "failed", rows, 0, 0, 0, 0, f"{type(exc).__name__}: {exc}"))


def search(serving_db: Database, query: str, limit: int = 5) -> Iterator[dict[str, Any]]:
    with serving_db.connect() as conn:
        yield from conn.execute(
            "SELECT * FROM serving.search_jobs(%s, %s)", (query, limit)
        ).fetchall()
