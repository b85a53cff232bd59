"""The ingest gate: what keeps the sync, the sync backfill's apply and the raw cleanup
apart from ingestion now that each lane has its own Airflow pool.

An Airflow task takes slots of one pool only, so "take all of the shared pool" no
longer excludes the lanes' tasks. The exclusion lives in PostgreSQL instead: every
source-DAG task holds one session advisory lock in shared mode while it runs; the
whole-pool tasks hold it exclusively. PostgreSQL queues a lock request behind any
waiting request it conflicts with, so a waiting sync is not starved by phases that
keep starting: they wait behind it, and it runs once the phases already running end.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from pipeline.db.connect import Database, lock_key
from pipeline.db.rows import fetch_value

log = logging.getLogger("jobharbor.airflow")
GATE = lock_key("ingest-gate")


@contextlib.contextmanager
def ingest_gate(db: Database, *, exclusive: bool) -> Iterator[None]:
    """Hold the gate for the block (shared: a lane's task; exclusive: a whole-pool
    task), on a connection of its own, waiting as long as it takes (and saying so)."""
    mode = "" if exclusive else "_shared"
    conn = db.connect(autocommit=True)
    try:
        if not fetch_value(
            conn, f"SELECT pg_try_advisory_lock{mode}(hashtextextended(%s, 0))", (GATE,)
        ):
            held_by = "ingestion" if exclusive else "a sync, sync backfill or raw cleanup"
            log.info("waiting for the ingest gate (%s holds it)", held_by)
            conn.execute(f"SELECT pg_advisory_lock{mode}(hashtextextended(%s, 0))", (GATE,))
        yield
    finally:
        conn.close()  # ends the session: the lock goes with it, whatever happened
