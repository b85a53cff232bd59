"""Judgments of a crawl spread over several worker processes, from what the host saw
(the sandbox's request log) and what the database recorded. Pure functions over plain
rows: `make up-check EXECUTOR=celery` (scripts/up_check_celery.py) feeds them a real
run with a worker killed; tests/chaos/test_across_workers.py feeds them crafted rows
where each violation exists.

- `over_budget`: requests beyond the host's token bucket (rate + burst), whoever sent
  them: in no window [t_i, t_j] may more than burst + rate * (t_j - t_i) arrive (with
  the tolerances below for the host's own stamping).
- `inside_cooldowns`: requests that arrived while a Retry-After the host gave was
  running (after an in-flight grace: requests already sent when it was answered).
- `double_claims`: one thing (a board, a posting, a source's phase) held by two
  holders over overlapping times.
- `lost_postings`: jobs a completely read board listed with no posting stored.
- `stranded_runs`: crawl runs of the killed worker's processes still `running` once
  every DAG run is over (a dead run must end `failed`, pipeline.crawl.runs).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

# One request of scheduling noise (a slot used a little late next to the next one), as
# tests/crawl/test_pacing.py allows two worker processes.
BUDGET_SLACK = 1
# The sandbox stamps a request when its thread gets to it, never early but, on a loaded
# machine, late: a few tenths of a second (0.24 s measured at a load average of 21 on
# 2 cores), so requests sent at their slots can be stamped closer together.
ARRIVAL_LATE_S = 0.5
# Requests in flight when a 429 was answered, stamped late as above, are not inside it.
IN_FLIGHT_GRACE_S = ARRIVAL_LATE_S


@dataclass(frozen=True)
class Arrival:
    """A request as the host logged it (sandbox /_sandbox/log)."""

    at: float  # the host's monotonic clock on arrival
    path: str
    status: int | None = None
    cooldown_until: float | None = None  # the end of the wait its Retry-After asked for


@dataclass(frozen=True)
class Claim:
    thing: str  # what is held: "board 12", "posting 7", "discover lever"
    holder: str  # who holds it: a run, a worker
    start: datetime
    end: datetime


@dataclass(frozen=True)
class RunRow:
    """A crawl run as crawl.runs recorded it."""

    id: int
    worker: str  # host:pid of the process that ran it
    status: str
    error: str | None = None

    @property
    def pid(self) -> int:
        return int(self.worker.rsplit(":", 1)[1])


def over_budget(
    arrivals: Sequence[float],
    rate_per_s: float,
    burst: int,
    slack: int = BUDGET_SLACK,
    late_s: float = ARRIVAL_LATE_S,
) -> list[int]:
    """Indexes (in arrival order) of the requests that arrived beyond the bucket. A
    window's first request may have arrived up to `late_s` before its stamp."""
    times = sorted(arrivals)
    over = []
    for j, last in enumerate(times):
        for i in range(j, -1, -1):
            allowed = burst + rate_per_s * (last - times[i] + late_s) + slack
            if j - i + 1 > allowed:
                over.append(j)
                break
            # Earlier windows are longer: even all j + 1 requests cannot exceed them.
            if j + 1 <= allowed:
                break
    return over


def inside_cooldowns(
    arrivals: Sequence[Arrival], grace_s: float = IN_FLIGHT_GRACE_S
) -> list[tuple[Arrival, Arrival]]:
    """(request, the answer whose Retry-After it broke) for every request that arrived
    in [answer + grace, end of the wait asked)."""
    asked = [a for a in arrivals if a.cooldown_until is not None]
    found = []
    for request in arrivals:
        for cause in asked:
            assert cause.cooldown_until is not None
            if cause.at + grace_s <= request.at < cause.cooldown_until:
                found.append((request, cause))
                break
    return found


def double_claims(claims: Iterable[Claim]) -> list[tuple[Claim, Claim]]:
    """Pairs of claims on one thing by different holders whose times overlap."""
    by_thing: dict[str, list[Claim]] = defaultdict(list)
    for claim in claims:
        by_thing[claim.thing].append(claim)
    pairs = []
    for held in by_thing.values():
        held.sort(key=lambda c: c.start)
        for n, first in enumerate(held):
            for second in held[n + 1 :]:
                if second.start >= first.end:
                    break
                if second.holder != first.holder:
                    pairs.append((first, second))
    return pairs


def lost_postings(
    listed: Mapping[int, Mapping[int, set[str]]], stored: set[tuple[int, str]]
) -> list[tuple[int, int]]:
    """(board id, job id) of each job a board listed (job id -> every id the platform
    may give it) with no stored posting of that board under any of those ids."""
    return [
        (board_id, job_id)
        for board_id, jobs in listed.items()
        for job_id, keys in jobs.items()
        if not any((board_id, key) in stored for key in keys)
    ]


def stranded_runs(runs: Iterable[RunRow], killed_pids: Iterable[int]) -> list[RunRow]:
    """The runs of the killed processes still recorded as `running`: their process is
    gone, so nothing else may show them alive."""
    killed = set(killed_pids)
    return [run for run in runs if run.pid in killed and run.status == "running"]
