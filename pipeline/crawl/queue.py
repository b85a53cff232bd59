"""crawl.boards is the queue: claims, leases and lanes.

Workers claim due boards in batches with `FOR UPDATE SKIP LOCKED`, stamping each
with a lease (owner + expiry): two workers never hold the same board, and a
worker that dies simply stops renewing, so its boards are claimed again once the
lease runs out. Finishing a board clears the lease in the same transaction that
records the board's results (see pipeline.phases.discover).

A lane is a claim filter (one per platform; Workday one per data center; one per
HTML site), so a slow vendor only slows the workers of its own lane. Any number
of workers (Airflow tasks, `jobharbor discover --lane ...`) may share or split lanes.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import datetime

from psycopg.rows import args_row

from pipeline.crawl.runs import worker_name
from pipeline.db.connect import Database, DictConnection
from pipeline.db.rows import BoardRow, fetch_value

LEASE_S = 600

# The claim: the oldest due boards of the filter, skipping rows another worker has
# locked this instant, and boards whose lease has not run out (held by a live worker).
_CLAIMABLE = """
    b.enabled AND b.state <> 'retired'
      AND (b.lease_expires_at IS NULL OR b.lease_expires_at < now())
      AND {due}
      {filters}
      AND EXISTS (SELECT 1 FROM ref.sources AS s WHERE s.id = b.source_id AND s.enabled)"""
_CLAIM = """
WITH due AS (
    SELECT b.id FROM crawl.boards AS b
    WHERE {claimable}
    ORDER BY b.due_at, b.id
    LIMIT %(limit)s
    FOR UPDATE OF b SKIP LOCKED
)
UPDATE crawl.boards AS b
SET lease_owner = %(owner)s, lease_expires_at = now() + make_interval(secs => %(lease_s)s)
FROM due WHERE b.id = due.id
RETURNING {columns}
"""
# Only what a claimed board's reader takes (BoardRow): every other column of a
# claimed row would be decoded by the driver and thrown away, hundreds per claim.
_BOARD_COLUMNS = ", ".join(f"b.{f.name}" for f in fields(BoardRow))
_DUE_NOW = "b.due_at <= now()"
# A forced run: every board not yet polled by this run, due or not.
_DUE_OR_UNPOLLED = "(b.due_at <= now() OR b.last_polled_at IS NULL OR b.last_polled_at < %(since)s)"
_BY_SOURCE = "AND b.source_id = %(source)s"
_BY_LANE = "AND b.lane = %(lane)s"
_BY_BOARDS = "AND b.id = ANY(%(boards)s)"
_SKIP_HOSTS = "AND b.host <> ALL(%(skip_hosts)s)"
_ON_HOSTS = "AND b.host = ANY(%(on_hosts)s)"
_ANY_CLAIMABLE = "SELECT EXISTS (SELECT 1 FROM crawl.boards AS b WHERE {claimable}) AS found"
# The filter's board that is due first, leased or not: what a run that claimed nothing
# tells the operator it is waiting for.
_NEXT_DUE = """
SELECT b.source_id, b.board_key, b.due_at,
       coalesce(b.lease_expires_at >= now(), false) AS leased
FROM crawl.boards AS b
WHERE b.enabled AND b.state <> 'retired'
  {filters}
  AND EXISTS (SELECT 1 FROM ref.sources AS s WHERE s.id = b.source_id AND s.enabled)
ORDER BY b.due_at, b.id
LIMIT 1
"""
# The filter's boards a run never claimed (leased by another worker, or behind a host
# budget that stayed spent): what a forced run reports it did not reach.
_NOT_CLAIMED = """
SELECT count(*) AS n FROM crawl.boards AS b
WHERE b.enabled AND b.state <> 'retired'
  {filters}
  AND NOT (b.id = ANY(%(claimed)s))
  AND EXISTS (SELECT 1 FROM ref.sources AS s WHERE s.id = b.source_id AND s.enabled)
"""

_RENEW = """
UPDATE crawl.boards SET lease_expires_at = now() + make_interval(secs => %(lease_s)s)
WHERE lease_owner = %(owner)s AND id = ANY(%(ids)s)
"""

# Back in the queue after `wait` seconds with nothing recorded: no scan, no counter.
_REQUEUE = """
UPDATE crawl.boards AS b
SET lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
    due_at = now() + make_interval(secs => t.wait)
FROM unnest(%(ids)s::bigint[], %(waits)s::float8[]) AS t(id, wait)
WHERE b.id = t.id AND b.lease_owner = %(owner)s
"""


def new_owner() -> str:
    """A lease owner unique to one worker (several may share a process)."""
    return f"{worker_name()}:{uuid.uuid4().hex[:8]}"


@dataclass(frozen=True)
class ClaimFilter:
    source: str | None = None
    lane: str | None = None
    since: datetime | None = None  # set: also boards not polled since then (a forced run)
    boards: tuple[int, ...] = ()  # set: only these boards (ids the operator named)

    def describe(self) -> str:
        parts = [
            f"source {self.source}" if self.source else "",
            f"lane {self.lane}" if self.lane else "",
        ]
        return " and ".join(p for p in parts if p) or "every source"


def claim(
    conn: DictConnection,
    owner: str,
    where: ClaimFilter,
    limit: int,
    *,
    lease_s: float = LEASE_S,
    skip_hosts: Iterable[str] = (),
) -> list[BoardRow]:
    """Lease up to `limit` due boards to `owner` (one short transaction)."""
    skip = sorted(set(skip_hosts))
    sql = _CLAIM.format(
        claimable=_claimable(where, _SKIP_HOSTS if skip else ""), columns=_BOARD_COLUMNS
    )
    params = {
        "owner": owner,
        "limit": limit,
        "lease_s": lease_s,
        "skip_hosts": skip,
        **_filter_params(where),
    }
    # The query selects BoardRow's fields in their order (_BOARD_COLUMNS): each row is
    # the arguments of its BoardRow, built without a dict on the way (a claim is
    # hundreds of rows, on every pass of the queue).
    with conn.transaction(), conn.cursor(row_factory=args_row(BoardRow)) as cur:
        return cur.execute(sql, params).fetchall()


def any_claimable(conn: DictConnection, where: ClaimFilter, hosts: Iterable[str]) -> bool:
    """Whether boards on these hosts are waiting to be claimed."""
    sql = _ANY_CLAIMABLE.format(claimable=_claimable(where, _ON_HOSTS))
    params = {"on_hosts": sorted(set(hosts)), **_filter_params(where)}
    with conn.transaction():
        return bool(fetch_value(conn, sql, params))


@dataclass(frozen=True)
class NextDue:
    source_id: str
    board_key: str
    due_at: datetime
    leased: bool  # held by a worker's live lease


def next_due(conn: DictConnection, where: ClaimFilter) -> NextDue | None:
    """The board of the filter due first (None: the filter has no enabled board)."""
    sql = _NEXT_DUE.format(filters="\n  ".join(_filters(where)))
    with conn.transaction():
        row = conn.execute(sql, _filter_params(where)).fetchone()
    return NextDue(**row) if row else None


def count_not_claimed(conn: DictConnection, where: ClaimFilter, claimed: Iterable[int]) -> int:
    """How many enabled boards of the filter are not among `claimed`."""
    sql = _NOT_CLAIMED.format(filters="\n  ".join(_filters(where)))
    params = {"claimed": sorted(set(claimed)), **_filter_params(where)}
    with conn.transaction():
        return int(fetch_value(conn, sql, params))


def _filters(where: ClaimFilter) -> list[str]:
    wanted = [
        _BY_SOURCE if where.source else "",
        _BY_LANE if where.lane else "",
        _BY_BOARDS if where.boards else "",
    ]
    return [f for f in wanted if f]


def _claimable(where: ClaimFilter, extra: str) -> str:
    return _CLAIMABLE.format(
        due=_DUE_OR_UNPOLLED if where.since else _DUE_NOW,
        filters="\n      ".join(_filters(where) + ([extra] if extra else [])),
    )


def _filter_params(where: ClaimFilter) -> dict[str, str | datetime | list[int] | None]:
    return {
        "source": where.source,
        "lane": where.lane,
        "since": where.since,
        "boards": list(where.boards),
    }


def requeue(conn: DictConnection, owner: str, waits: Mapping[int, float]) -> int:
    """Release boards unpolled, due again after their wait; nothing is recorded."""
    if not waits:
        return 0
    with conn.transaction():
        return conn.execute(
            _REQUEUE, {"owner": owner, "ids": list(waits), "waits": list(waits.values())}
        ).rowcount


class LeaseKeeper:
    """Renews the leases this worker still holds every third of the lease, so a long
    poll (a slow host, many pages, a wait for the rate budget) never loses its board,
    while a killed worker renews nothing and its boards come back after the lease."""

    def __init__(self, db: Database, owner: str, lease_s: float = LEASE_S) -> None:
        self.db = db
        self.owner = owner
        self.lease_s = lease_s
        self._held: set[int] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lease-keeper", daemon=True)
        self._thread.start()

    def hold(self, ids: Iterable[int]) -> None:
        with self._lock:
            self._held.update(ids)

    def release(self, ids: Iterable[int]) -> None:
        with self._lock:
            self._held.difference_update(ids)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        conn: DictConnection | None = None
        try:
            while not self._stop.wait(self.lease_s / 3):
                with self._lock:
                    ids = sorted(self._held)
                if not ids:
                    continue
                if conn is None or conn.closed:
                    conn = self.db.connect(autocommit=True)
                conn.execute(_RENEW, {"owner": self.owner, "ids": ids, "lease_s": self.lease_s})
        finally:
            if conn is not None:
                conn.close()
