"""The ingest gate (real advisory locks): the lanes' tasks run together, a whole-pool
task (sync, sync backfill apply, raw cleanup) never overlaps them, and phases that keep
starting cannot starve a waiting sync."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from pipeline.airflow.ingest_gate import ingest_gate
from pipeline.db.connect import Database


class Timeline:
    """Who held the gate when, from threads."""

    def __init__(self) -> None:
        self.events: list[tuple[float, str, str]] = []
        self.lock = threading.Lock()

    def mark(self, who: str, what: str) -> None:
        with self.lock:
            self.events.append((time.monotonic(), who, what))

    def order(self) -> list[str]:
        return [f"{what} {who}" for _, who, what in sorted(self.events)]


def hold(
    db: Database, timeline: Timeline, who: str, exclusive: bool, seconds: float
) -> Callable[[], None]:
    def run() -> None:
        with ingest_gate(db, exclusive=exclusive):
            timeline.mark(who, "in")
            time.sleep(seconds)
            timeline.mark(who, "out")

    return run


def start(target: Callable[[], None]) -> threading.Thread:
    thread = threading.Thread(target=target)
    thread.start()
    return thread


def test_tasks_of_different_lanes_hold_the_gate_together(databases) -> None:
    db, timeline = databases.db, Timeline()
    threads = [start(hold(db, timeline, lane, False, 0.6)) for lane in ("ats", "workday")]
    for t in threads:
        t.join(timeout=30)
    # Both entered before either left: shared holders do not wait for each other.
    assert {event.split()[0] for event in timeline.order()[:2]} == {"in"}


def test_a_sync_waits_for_running_phases_and_phases_wait_for_a_running_sync(databases) -> None:
    db, timeline = databases.db, Timeline()
    phase = start(hold(db, timeline, "phase", False, 1.0))
    time.sleep(0.3)
    sync = start(hold(db, timeline, "sync", True, 1.0))
    phase.join(timeout=30)
    time.sleep(0.2)
    late = start(hold(db, timeline, "late-phase", False, 0.1))
    for t in (sync, late):
        t.join(timeout=30)
    assert timeline.order() == [
        "in phase",
        "out phase",
        "in sync",
        "out sync",
        "in late-phase",
        "out late-phase",
    ]


def test_phases_that_keep_starting_do_not_starve_a_waiting_sync(databases) -> None:
    """A new phase queues behind the waiting sync instead of joining the running ones."""
    db, timeline = databases.db, Timeline()
    first = start(hold(db, timeline, "phase-1", False, 1.0))
    time.sleep(0.3)
    sync = start(hold(db, timeline, "sync", True, 0.2))
    time.sleep(0.3)  # the sync is waiting now
    second = start(hold(db, timeline, "phase-2", False, 0.2))
    for t in (first, sync, second):
        t.join(timeout=30)
    order = timeline.order()
    assert order.index("in sync") < order.index("in phase-2")
    assert order.index("out phase-1") < order.index("in sync")


def test_a_killed_holder_releases_the_gate(databases) -> None:
    """The gate is a session lock: a task process that dies lets the sync through."""
    db = databases.db
    gate = ingest_gate(db, exclusive=False)
    gate.__enter__()
    # What a killed process leaves: its session ended without the context's exit.
    with db.connect(autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
            " AND mode = 'ShareLock' AND pid <> pg_backend_pid()"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
    timeline = Timeline()
    sync = start(hold(db, timeline, "sync", True, 0.0))
    sync.join(timeout=30)
    assert timeline.order() == ["in sync", "out sync"]
    gate.__exit__(None, None, None)  # closing a connection the server ended is quiet
