"""crawl.runs: one row per phase run, so an operator can see what ran, when, and how it ended.

A run's process holds a session advisory lock on its run id for as long as the run
lasts, on a connection of its own (`start_run` takes it, `finish_run` lets it go). A
process killed mid-run (SIGKILL, OOM, a Celery worker killed) cannot write its
ending, but its connection closes and PostgreSQL drops the lock with it: a `running`
row whose lock can be taken has no live holder. `reap_abandoned_runs` (every phase run
calls it first) marks such rows `failed`, saying so; a live run's lock is held, so it
is never touched, and two reapers cannot both mark one row (the update requires
`running`, under the lock).
"""

from __future__ import annotations

import json
import logging
import os
import socket
from collections.abc import Mapping

from pipeline.db.connect import Database, DictConnection
from pipeline.db.rows import Json, fetch_value

log = logging.getLogger("jobharbor")

# The two-key advisory lock space of run ids (classid, run id): apart from the one-key
# (hashed name) locks of pipeline.db.connect.advisory_lock, which PostgreSQL keeps in
# another key space.
RUN_LOCK_CLASS = 0x6A6F62  # "job"
# The lock's second key is an int4: ids beyond it wrap (two runs 2**32 ids apart never
# run at the same time).
_INT4 = 2**32

# The connection holding each of this process's live runs, by run id.
_HOLDERS: dict[int, DictConnection] = {}


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def run_lock_key(run_id: int) -> int:
    """The run id as the lock's signed int4 second key."""
    wrapped = run_id % _INT4
    return wrapped - _INT4 if wrapped >= 2**31 else wrapped


def start_run(db: Database, phase: str, source_id: str | None) -> int:
    """Record a run as `running` and hold its lock until `finish_run`. The lock is taken
    before the row commits: no reaper can ever see the row without its holder."""
    conn = db.connect()
    try:
        run_id = fetch_value(
            conn,
            "INSERT INTO crawl.runs (phase, source_id, worker) VALUES (%s, %s, %s) RETURNING id",
            (phase, source_id, worker_name()),
        )
        assert run_id is not None
        conn.execute(
            "SELECT pg_advisory_lock(%s::int, %s::int)", (RUN_LOCK_CLASS, run_lock_key(run_id))
        )
        conn.commit()
        conn.autocommit = True
    except BaseException:
        conn.close()
        raise
    _HOLDERS[int(run_id)] = conn
    return int(run_id)


def finish_run(
    db: Database, run_id: int, status: str, stats: Mapping[str, Json], error: str | None = None
) -> None:
    try:
        with db.connect(autocommit=True) as conn:
            conn.execute(
                """UPDATE crawl.runs SET status = %s, stats = %s::jsonb, error = %s, finished_at = now()
                   WHERE id = %s""",
                (status, json.dumps(dict(stats), default=str), error, run_id),
            )
    finally:
        holder = _HOLDERS.pop(run_id, None)
        if holder is not None:
            holder.close()  # closing the session releases the run's lock


def run_is_held(db: Database, run_id: int) -> bool:
    """Whether some session holds the run's lock (its process is alive)."""
    with db.connect(autocommit=True) as conn:
        held = fetch_value(
            conn,
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2"
            " AND classid = %s::oid AND objid = %s::oid AND granted",
            (RUN_LOCK_CLASS, run_lock_key(run_id) % _INT4),
        )
    return bool(held)


ABANDONED_SQL = """UPDATE crawl.runs SET status = 'failed', finished_at = now(),
    error = format('abandoned: the process running it (%%s) ended without finishing it'
                   ' (worker killed?); started %%s, found without a holder %%s',
                   worker, to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"'),
                   to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"'))
WHERE id = %s AND status = 'running' RETURNING id"""


def reap_abandoned_runs(db: Database) -> list[int]:
    """Mark `failed` every `running` run whose lock no session holds; the ids marked.

    Each candidate's lock is tried (never waited for): taken, its holder is gone, and
    the row is marked while this session holds the lock, then the lock is let go. A
    concurrent reaper either fails to take the lock or finds the row no longer running.
    """
    reaped = []
    with db.connect(autocommit=True) as conn:
        running = fetch_value(
            conn,
            "SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM crawl.runs"
            " WHERE status = 'running'",
        )
        for run_id in running:
            key = (RUN_LOCK_CLASS, run_lock_key(run_id))
            if not fetch_value(conn, "SELECT pg_try_advisory_lock(%s::int, %s::int)", key):
                continue
            try:
                if fetch_value(conn, ABANDONED_SQL, (run_id,)) is not None:
                    reaped.append(run_id)
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s::int, %s::int)", key)
    if reaped:
        log.warning("marked %d abandoned run(s) failed: %s", len(reaped), reaped)
    return reaped
