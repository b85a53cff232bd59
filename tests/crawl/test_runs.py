"""Crawl runs whose process died: marked failed with the evidence, never a live one,
never twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from pipeline.crawl.runs import finish_run, reap_abandoned_runs, run_is_held, start_run
from pipeline.db.connect import Database
from pipeline.phases.common import run_phase

REPO_ROOT = Path(__file__).resolve().parents[2]
HOLDER = """
import sys, time
from pipeline.crawl.runs import start_run
from pipeline.db.connect import Database
print(start_run(Database(sys.argv[1]), "parse", "lever"), flush=True)
time.sleep(600)
"""


def _run(db: Database, run_id: int) -> tuple[str, str | None, object]:
    with db.connect() as conn:
        row = conn.execute(
            "SELECT status, error, finished_at FROM crawl.runs WHERE id = %s", (run_id,)
        ).fetchone()
    assert row is not None
    return row["status"], row["error"], row["finished_at"]


def _killed_run(db: Database) -> int:
    """A run started by a process then killed with SIGKILL, as a Celery worker is."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, db.url],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        run_id = int(process.stdout.readline())
        assert run_is_held(db, run_id)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    return run_id


def _wait_released(db: Database, run_id: int) -> None:
    """PostgreSQL ends the killed process's session (and its locks) when it sees the
    socket close: at once on loopback, but not synchronously with the kill."""
    for _ in range(200):
        if not run_is_held(db, run_id):
            return
        threading.Event().wait(0.05)
    raise AssertionError(f"run {run_id}'s lock outlived its process")


def test_a_run_whose_process_was_killed_is_marked_failed_with_the_evidence(databases) -> None:
    db = databases.db
    run_id = _killed_run(db)
    assert _run(db, run_id)[0] == "running"
    _wait_released(db, run_id)
    assert reap_abandoned_runs(db) == [run_id]
    status, error, finished_at = _run(db, run_id)
    assert status == "failed"
    assert finished_at is not None
    assert error is not None
    assert error.startswith("abandoned: the process running it (")
    assert "(worker killed?)" in error
    assert "found without a holder" in error


def test_the_next_phase_run_marks_the_killed_run_failed(databases) -> None:
    db = databases.db
    run_id = _killed_run(db)
    _wait_released(db, run_id)
    report = run_phase(db, "parse", "lever", lambda _run_id: {"parsed": 0})
    assert report.status == "succeeded"
    assert _run(db, run_id)[0] == "failed"


def test_a_live_run_is_left_alone(databases) -> None:
    db = databases.db
    run_id = start_run(db, "parse", "lever")
    try:
        assert reap_abandoned_runs(db) == []
        assert _run(db, run_id)[0] == "running"
    finally:
        finish_run(db, run_id, "succeeded", {})
    assert _run(db, run_id)[0] == "succeeded"
    assert not run_is_held(db, run_id)  # finishing lets the lock go


def test_runs_starting_while_reapers_sweep_are_never_marked(databases) -> None:
    """The lock is taken before the row commits: no sweep sees a run without holder."""
    db = databases.db
    stop = threading.Event()
    reaped: list[int] = []

    def sweep() -> None:
        while not stop.is_set():
            reaped.extend(reap_abandoned_runs(db))

    sweeper = threading.Thread(target=sweep)
    sweeper.start()
    try:
        ids = []
        for _ in range(40):
            run_id = start_run(db, "fetch", "lever")
            ids.append(run_id)
            finish_run(db, run_id, "succeeded", {})
    finally:
        stop.set()
        sweeper.join(timeout=60)
    assert reaped == []
    assert {_run(db, run_id)[0] for run_id in ids} == {"succeeded"}


def test_concurrent_reapers_mark_a_dead_run_once(databases) -> None:
    db = databases.db
    dead = [_killed_run(db) for _ in range(3)]
    for run_id in dead:
        _wait_released(db, run_id)
    results: list[list[int]] = []
    barrier = threading.Barrier(4)

    def reap() -> None:
        barrier.wait()
        results.append(reap_abandoned_runs(db))

    threads = [threading.Thread(target=reap) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    marked = sorted(run_id for found in results for run_id in found)
    assert marked == sorted(dead)  # each dead run reported by exactly one reaper
    assert {_run(db, run_id)[0] for run_id in dead} == {"failed"}
