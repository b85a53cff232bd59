"""crawl.runs: one row per phase run, so an operator can see what ran, when, and how it ended."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping

from pipeline.db.connect import Database
from pipeline.db.rows import Json, fetch_value


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def start_run(db: Database, phase: str, source_id: str | None) -> int:
    with db.connect(autocommit=True) as conn:
        run_id = fetch_value(
            conn,
            "INSERT INTO crawl.runs (phase, source_id, worker) VALUES (%s, %s, %s) RETURNING id",
            (phase, source_id, worker_name()),
        )
    assert run_id is not None
    return int(run_id)


def finish_run(
    db: Database, run_id: int, status: str, stats: Mapping[str, Json], error: str | None = None
) -> None:
    with db.connect(autocommit=True) as conn:
        conn.execute(
            """UPDATE crawl.runs SET status = %s, stats = %s::jsonb, error = %s, finished_at = now()
               WHERE id = %s""",
            (status, json.dumps(dict(stats), default=str), error, run_id),
        )
