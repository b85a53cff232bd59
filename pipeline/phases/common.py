"""What every phase shares: the per-source advisory lock, the run record, the report."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pipeline.crawl.runs import finish_run, reap_abandoned_runs, start_run
from pipeline.db.connect import Database, advisory_lock
from pipeline.db.rows import Json
from pipeline.errors import LockNotAcquired

log = logging.getLogger("jobharbor")


def utc_clock(at: datetime, now: datetime) -> str:
    """`09:14 UTC` today, `2026-01-02 09:14 UTC` on another day."""
    at = at.astimezone(UTC)
    return at.strftime("%H:%M UTC" if at.date() == now.date() else "%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True)
class PhaseReport:
    phase: str
    source: str | None
    status: str  # succeeded, skipped, failed
    stats: Mapping[str, Any] = field(default_factory=dict)
    run_id: int | None = None
    elapsed_s: float = 0.0
    message: str | None = None

    def summary(self) -> str:
        where = f" {self.source}" if self.source else ""
        details = ", ".join(f"{k}={v}" for k, v in self.stats.items() if not isinstance(v, dict))
        extra = f" ({self.message})" if self.message else ""
        return (
            f"{self.phase}{where}: {self.status} in {self.elapsed_s:.2f}s{extra} {details}".rstrip()
        )


def run_phase(
    db: Database,
    phase: str,
    source: str | None,
    work: Callable[[int], Mapping[str, Json]],
    *,
    wait_s: float = 0.0,
    exclusive: bool = True,
) -> PhaseReport:
    """Run `work(run_id)` under the (phase, source) advisory lock, recorded in crawl.runs
    (after marking failed any run whose process died: pipeline.crawl.runs).

    If another run holds the lock for longer than `wait_s`, this run is recorded
    as skipped and says so, instead of overlapping it. Phases whose work items are
    leased from a queue (discover) pass `exclusive=False`: concurrent runs are safe.
    """
    started = time.monotonic()
    # A run killed with its worker never wrote its ending: say so before starting anew.
    reap_abandoned_runs(db)
    try:
        lock = (
            advisory_lock(db, phase, source or "*", wait_s=wait_s)
            if exclusive
            else contextlib.nullcontext()
        )
        with lock:
            run_id = start_run(db, phase, source)
            try:
                stats = dict(work(run_id))
            except Exception as exc:
                finish_run(db, run_id, "failed", {}, f"{type(exc).__name__}: {exc}")
                raise
            finish_run(db, run_id, "succeeded", stats)
            return PhaseReport(
                phase, source, "succeeded", stats, run_id, time.monotonic() - started
            )
    except LockNotAcquired as exc:
        waited = f"waited {wait_s:.0f}s, " if wait_s else ""
        message = f"skipped: {waited}another {phase} run of {source or 'all sources'} holds {exc.context['lock']}"
        run_id = start_run(db, phase, source)
        finish_run(db, run_id, "skipped", {}, message)
        log.warning(message)
        return PhaseReport(
            phase, source, "skipped", {}, run_id, time.monotonic() - started, message
        )
