"""Whether a sync may build on the last one (incremental) or must reconcile everything.

Pure: the caller reads the sync history; this decides. An incremental sync is only
as good as its base, so anything that puts the base in doubt means a full run.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

FULL = "full"
INCREMENTAL = "incremental"


@dataclass(frozen=True)
class History:
    """What serving.sync_runs says about the syncs before this one."""

    base_snapshot: str | None  # source snapshot of the last applied sync
    base_identity: str | None  # which source database that snapshot was taken in
    last_full_at: datetime | None  # when the last applied full reconcile finished
    failed_since_base: bool  # a (non-dry) sync failed after the last applied one
    # A serving migration ran after the last applied sync: the published columns may
    # mean something new (0015 maps employment types at publish time), so every row is
    # staged again, not only those changed since the base.
    migrated_since_base: bool = False


@dataclass(frozen=True)
class Mode:
    name: str
    reason: str | None = None  # why a full reconcile, when it is one

    @property
    def full(self) -> bool:
        return self.name == FULL


def choose_mode(
    history: History,
    *,
    identity: str,
    now: datetime,
    full_requested: bool = False,
    full_every: timedelta | None = None,
) -> Mode:
    if full_requested:
        return Mode(FULL, "asked for")
    if history.base_snapshot is None:
        return Mode(FULL, "no applied sync to build on")
    if history.base_identity != identity:
        return Mode(FULL, "the last applied sync read another source database")
    if history.failed_since_base:
        # A failed verification means serving may not be what the base says it is.
        return Mode(FULL, "a sync failed since the last applied one")
    if history.migrated_since_base:
        return Mode(FULL, "the serving schema was migrated since the last applied sync")
    if full_every is not None:
        if history.last_full_at is None:
            return Mode(FULL, "periodic: no full reconcile on record")
        if now - history.last_full_at >= full_every:
            hours = (now - history.last_full_at).total_seconds() / 3600
            return Mode(FULL, f"periodic: the last full reconcile was {hours:.1f}h ago")
    return Mode(INCREMENTAL)
