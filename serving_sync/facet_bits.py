"""The facet bitmaps (serving.build_facet_bits): facet counts as AND + bit_count.

The bitmaps are built from one snapshot of serving.jobs, after a sync that changed it,
outside that sync's transaction and its lock (at 1M rows the build takes minutes; the
next sync does not wait for it). They record the write count of serving.jobs they were
built at, and serving.web_facet_bits answers only while no statement has changed
serving.jobs since: until the next build, counts are taken by the slower exact functions."""

from __future__ import annotations

import time
from dataclasses import dataclass

import psycopg

from pipeline.db.connect import Database, DictConnection

# Builds are serialized: two at once would both rewrite the same tables.
_BUILD_LOCK = "jobharbor:serving:facet_bits"
WORD_MIN_SHARE = 0.01  # a word in at least this share of postings gets a bitmap
VALUES_KEPT = 256  # per group, the values with a bitmap (the largest, and 'unknown')


@dataclass(frozen=True)
class BuildReport:
    built: bool  # False: the bitmaps were already current
    slots: int  # postings counted by them
    elapsed_s: float


def is_current(conn: DictConnection) -> bool:
    """Whether the bitmaps were built from what serving.jobs holds now."""
    row = conn.execute("SELECT serving.facet_bits_current() AS current").fetchone()
    return bool(row and row["current"])


def refresh(
    db: Database,
    *,
    word_min_share: float = WORD_MIN_SHARE,
    values_kept: int = VALUES_KEPT,
    force: bool = False,
) -> BuildReport:
    """Builds the bitmaps when serving.jobs changed since the last build (or `force`)."""
    started = time.monotonic()
    with db.connect(autocommit=True) as conn:
        # A session lock, taken before the build's snapshot: a build that waited for
        # another must not build from what it saw before waiting.
        conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (_BUILD_LOCK,))
        try:
            if not force and is_current(conn):
                slots = conn.execute("SELECT slots FROM serving.facet_bits_build").fetchone()
                assert slots is not None  # is_current read the same one-row table
                return BuildReport(False, int(slots["slots"]), time.monotonic() - started)
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            with conn.transaction():
                row = conn.execute(
                    "SELECT serving.build_facet_bits(%s::real, 2000, %s::integer) AS slots",
                    (word_min_share, values_kept),
                ).fetchone()
                assert row is not None  # a function call's SELECT returns one row
            conn.isolation_level = None
            # The build replaced every row: the old ones go now, not at autovacuum's pace
            # (the build's snapshot held them for its whole length).
            conn.execute("VACUUM serving.facet_slots, serving.facet_bits, serving.facet_companies")
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (_BUILD_LOCK,))
    return BuildReport(True, int(row["slots"]), time.monotonic() - started)
