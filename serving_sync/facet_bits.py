"""The facet bitmaps (serving.build_facet_bits): facet counts as AND + bit_count.

The bitmaps are built from one snapshot of serving.jobs, outside any sync's transaction
and its lock (at 1M rows the build takes minutes; the next sync does not wait for it),
and record that snapshot. Every statement that writes serving.jobs records the postings
it wrote (serving.facet_dirty) in its own transaction, and the sync makes a delta of
them before its commit (serving.refresh_facet_delta: bitmaps at slots after the
build's); serving.web_facet_bits takes those the build's snapshot does not see out of
the bitmaps and counts them from the delta (from their rows when no delta holds them
all), so it answers, exactly, at every moment, a sync's writes included from the
instant they commit. Past a share of the slots written since (`dirty_share`, at least
`dirty_min` postings) counting them is no longer cheap and the slower exact functions
answer; a build is due well before that (`REBUILD_SHARE` of it), and takes the written
postings in again."""

from __future__ import annotations

import time
from dataclasses import dataclass

import psycopg

from pipeline.db.connect import Database, DictConnection

# Builds are serialized: two at once would both rewrite the same tables.
_BUILD_LOCK = "jobharbor:serving:facet_bits"
WORD_MIN_SHARE = 0.01  # a word in at least this share of postings gets a bitmap
VALUES_KEPT = 256  # per group, the values with a bitmap (the largest, and 'unknown')
# Postings written since the build that web_facet_bits still counts from their rows: a
# share of the slots, and at least this many (a thousand rows cost milliseconds).
DIRTY_SHARE = 0.02
DIRTY_MIN = 1000
# A build is due once this share of that limit was written since the last: readers keep
# the fast path while it runs, unless the writes meanwhile reach the limit.
REBUILD_SHARE = 0.5


@dataclass(frozen=True)
class BuildReport:
    built: bool  # False: the bitmaps were current enough
    slots: int  # postings counted by them
    elapsed_s: float
    dirty: int = 0  # postings written since the build (before this one, if it built)


@dataclass(frozen=True)
class BuildState:
    slots: int
    dirty: int  # postings written since the build, counted from their rows
    dirty_max: int  # past this many, the bitmaps are not read


def is_current(conn: DictConnection) -> bool:
    """Whether the bitmaps answer: built, and not too much written since."""
    row = conn.execute("SELECT serving.facet_bits_current() AS current").fetchone()
    return bool(row and row["current"])


def state(conn: DictConnection) -> BuildState | None:
    """The last build and what was written since; None without a build."""
    row = conn.execute(
        """SELECT b.slots, b.dirty_max,
                  (SELECT count(*) FROM serving.facet_dirty d
                   WHERE NOT pg_visible_in_snapshot(d.xid, b.snapshot)) AS dirty
           FROM serving.facet_bits_build b"""
    ).fetchone()
    if row is None:
        return None
    return BuildState(int(row["slots"]), int(row["dirty"]), int(row["dirty_max"]))


def due(built: BuildState | None, rebuild_share: float = REBUILD_SHARE) -> bool:
    """Whether a build is owed: none yet, or the postings written since it are past
    `rebuild_share` of what readers count from rows."""
    return built is None or built.dirty > built.dirty_max * rebuild_share


def refresh(
    db: Database,
    *,
    word_min_share: float = WORD_MIN_SHARE,
    values_kept: int = VALUES_KEPT,
    dirty_share: float = DIRTY_SHARE,
    dirty_min: int = DIRTY_MIN,
    rebuild_share: float = REBUILD_SHARE,
    force: bool = False,
) -> BuildReport:
    """Builds the bitmaps when one is due (see `due`), or `force`."""
    started = time.monotonic()
    with db.connect(autocommit=True) as conn:
        # A session lock, taken before the build's snapshot: a build that waited for
        # another must not build from what it saw before waiting.
        conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (_BUILD_LOCK,))
        try:
            before = state(conn)
            dirty = before.dirty if before else 0
            if not force and not due(before, rebuild_share):
                assert before is not None  # due() without a build
                return BuildReport(False, before.slots, time.monotonic() - started, dirty)
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            with conn.transaction():
                row = conn.execute(
                    """SELECT serving.build_facet_bits(%s::real, 2000, %s::integer, %s::real,
                                                       %s::integer) AS slots""",
                    (word_min_share, values_kept, dirty_share, dirty_min),
                ).fetchone()
                assert row is not None  # a function call's SELECT returns one row
            conn.isolation_level = None
            with conn.transaction():
                forget_absorbed(conn)
                # The writes the build did not see, as a delta of the new build.
                conn.execute("SELECT serving.refresh_facet_delta()")
            # The build replaced every row: the old ones go now, not at autovacuum's pace
            # (the build's snapshot held them for its whole length).
            conn.execute(
                "VACUUM serving.facet_slots, serving.facet_bits, serving.facet_companies,"
                " serving.facet_dirty"
            )
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (_BUILD_LOCK,))
    return BuildReport(True, int(row["slots"]), time.monotonic() - started, dirty)


def forget_absorbed(conn: DictConnection) -> int:
    """Deletes the written postings the committed build's snapshot sees (it holds them).
    After the build's commit, in a transaction of its own: a reader still on the old
    build keeps seeing them, and a write racing this one keeps its row (its new xid is
    not in the snapshot). Returns how many went."""
    cur = conn.execute(
        """DELETE FROM serving.facet_dirty d USING serving.facet_bits_build b
           WHERE pg_visible_in_snapshot(d.xid, b.snapshot)"""
    )
    return cur.rowcount
