"""Verification before commit: what serving now holds must be what the snapshot says.

Every check reads serving.jobs itself (fingerprints are recomputed from its columns,
never read back from the column the sync wrote), so a hand-edited, dropped or extra
row fails the sync. Each check returns a problem, or None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pipeline.db.connect import DictConnection
from pipeline.errors import FatalError
from serving_sync.stage import fingerprint_sql, removed_sql


class VerificationFailed(FatalError):
    """Serving does not match the snapshot after the diff: the sync is rolled back."""


@dataclass(frozen=True)
class Expected:
    published_total: int  # published postings in the source snapshot
    full: bool


def _ids(conn: DictConnection, sql: str) -> list[int]:
    return [r["id"] for r in conn.execute(sql + " ORDER BY 1 LIMIT 5")]


def _count(conn: DictConnection, sql: str) -> int:
    row = conn.execute(sql).fetchone()
    assert row is not None
    return int(row["n"])


def check_count(conn: DictConnection, expected: Expected) -> str | None:
    held = _count(conn, "SELECT count(*) AS n FROM serving.jobs")
    if held != expected.published_total:
        return f"serving holds {held} rows, the source publishes {expected.published_total}"
    return None


def check_missing(conn: DictConnection, expected: Expected) -> str | None:
    ids = _ids(
        conn,
        "SELECT s.id FROM staging AS s "
        "WHERE NOT EXISTS (SELECT 1 FROM serving.jobs AS j WHERE j.id = s.id)",
    )
    return f"open postings missing from serving: ids {ids}" if ids else None


def check_remaining(conn: DictConnection, expected: Expected) -> str | None:
    ids = _ids(conn, f"SELECT j.id FROM serving.jobs AS j WHERE {removed_sql(expected.full)}")
    return f"postings no longer open remain in serving: ids {ids}" if ids else None


def check_fingerprints(conn: DictConnection, expected: Expected) -> str | None:
    ids = _ids(
        conn,
        f"""SELECT s.id FROM staging AS s JOIN serving.jobs AS j ON j.id = s.id
            WHERE {fingerprint_sql("j")} IS DISTINCT FROM s.fingerprint""",
    )
    return f"rows differ from the snapshot: ids {ids}" if ids else None


def check_edited_outside(conn: DictConnection, expected: Expected) -> str | None:
    """Rows not staged this time must still be what an earlier sync wrote."""
    ids = _ids(
        conn,
        "SELECT j.id FROM serving.jobs AS j WHERE j.fingerprint IS DISTINCT FROM j.source_fingerprint",
    )
    return f"rows differ from the snapshot they were written from: ids {ids}" if ids else None


def check_liveness(conn: DictConnection, expected: Expected) -> str | None:
    ids = _ids(
        conn,
        """SELECT v.id FROM staging_live AS v
           LEFT JOIN serving.job_liveness AS l ON l.id = v.id
           WHERE l.last_seen_on IS DISTINCT FROM v.last_seen_on""",
    )
    if ids:
        return f"liveness differs from the snapshot: ids {ids}"
    if expected.full:
        unlive = _ids(
            conn,
            "SELECT j.id FROM serving.jobs AS j "
            "WHERE NOT EXISTS (SELECT 1 FROM serving.job_liveness AS l WHERE l.id = j.id)",
        )
        if unlive:
            return f"rows without liveness: ids {unlive}"
    return None


CHECKS: tuple[Callable[[DictConnection, Expected], str | None], ...] = (
    check_count,
    check_missing,
    check_remaining,
    check_fingerprints,
    check_edited_outside,
    check_liveness,
)


def verify(conn: DictConnection, expected: Expected) -> None:
    """Raise VerificationFailed naming every check that failed."""
    problems = [p for check in CHECKS if (p := check(conn, expected))]
    if problems:
        raise VerificationFailed("serving verification failed: " + "; ".join(problems))
