"""The discrete-event simulation behind bench/freshness.py.

A virtual clock, one event queue of board polls, and a check tick every 5 minutes
(a DAG run: discover, then check). What the crawler decides is the project's own
code, called the way discover and check call it:

- the next due time, interval, quiet-pass count, backoff and jitter:
  `pipeline.crawl.schedule.next_state` (jitter = a uniform draw, as discover passes
  `random.random()`), with the board state rebuilt from its result as discover
  stores it;
- a board our own limiter (or a host cooldown) could not place goes back in the
  queue without a scan, `max(RETRY_SOON_S, wait)` plus discover's `jitter_up`;
- Retry-After parsed by `pipeline.crawl.pacing.parse_retry_after`;
- absences: only complete listings count, `MISSING_AFTER_SCANS` (2) of them make a
  posting `missing`; a 304 repeats the last complete listing; a posting seen in any
  read is active again with its count reset;
- count-probed boards (Workday, pages of 20): one page when its total is the last
  full read's, nothing pending and the last full read younger than the bound
  (`pipeline.phases.listing.full_pass_due`); every page (each a request) otherwise;
- the direct check: `pipeline.lifecycle.check_rules.judge` on the page the world answers,
  ambiguous verdicts checked again after `RECHECK_AFTER_S` (6 h). `judge` is pure,
  so its verdict per kind of page is computed once and reused.

What the world does (postings opening, closing, hiding; requests failing) is in
bench/_freshness_world.py. A policy only decides when a board is polled next.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import Counter, deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol

from _freshness_world import CLOSE, EDIT, HIDE, OPEN, SHOW, Board, World  # noqa: F401

from pipeline.crawl.pacing import parse_retry_after
from pipeline.crawl.schedule import (
    MIN_INTERVAL_S,
    RETRY_SOON_S,
    BoardState,
    jittered,
    next_state,
)
from pipeline.lifecycle.check_rules import CheckedResponse, judge
from pipeline.lifecycle.rules import MISSING_AFTER_SCANS
from pipeline.phases.check import RECHECK_AFTER_S
from pipeline.phases.discover import jitter_up
from pipeline.phases.listing import full_pass_due
from pipeline.settings import Settings

# discover's bound on a count-probed board's full reads (JOBHARBOR_COUNT_PROBE_FULL_PASS_H)
FULL_PASS_EVERY_S = Settings.model_fields["count_probe_full_pass_h"].default * 3600

EPOCH = datetime(2026, 3, 2, tzinfo=UTC)
CHECK_TICK_S = 300.0  # the DAG wakes every 5 minutes: discover, then check
FIRST_INTERVAL_S = 3600  # crawl.boards.interval_s server default
MAX_WAIT_S = 30.0  # JOBHARBOR_PACING_MAX_WAIT_S: slots further out are refused


# discover's jitter_up spreads requeued boards over the minute after their wait.
JITTER_WINDOW_S = 60.0


class HostQueues:
    """Boards a cooled-down host refused, in the order they were refused, one queue per
    host (the simulation's scale mode). Per board, as discover requeues them, every
    board due while the host cools down comes back within a minute of the end, and all
    but the first few are refused again by the next 429: at 100,000 boards that is
    tens of millions of refusals, each replayed. Here a queue is released one board at
    a time after the cooldown; the next 429 leaves the rest waiting, each counted as
    refused once more."""

    def __init__(self, hosts: int) -> None:
        self._queues: list[deque[int]] = [deque() for _ in range(hosts)]
        self._scheduled = [False] * hosts

    def park(self, host: int, board: int) -> bool:
        """Queue the board; True when the host's queue needs a release event."""
        self._queues[host].append(board)
        if self._scheduled[host]:
            return False
        self._scheduled[host] = True
        return True

    def waiting(self, host: int) -> int:
        return len(self._queues[host])

    def first(self, host: int) -> int:
        return self._queues[host].popleft()

    def done(self, host: int) -> None:
        self._scheduled[host] = False


class Policy(Protocol):
    name: str

    def first_interval(self, board: Board) -> int: ...

    def due(
        self,
        b: BoardSim,
        outcome: str,
        status: int | None,
        t: float,
        jitter: float,
        retry_in_s: float | None,
        elapsed_s: float | None,
    ) -> float:
        """The board's next due time after this poll (its state updated)."""
        ...


@dataclass
class Figures:
    """What one policy's week produced."""

    policy: str
    requests: int = 0
    polls: int = 0
    checks: int = 0
    deferred: int = 0
    outcomes: Counter = field(default_factory=Counter)
    check_verdicts: Counter = field(default_factory=Counter)
    new_delays: list[float] = field(default_factory=list)
    close_delays: list[float] = field(default_factory=list)
    # closes of postings on count-probed boards of several pages (where a probe can hide one)
    probe_close_delays: list[float] = field(default_factory=list)
    # ... and from each such removal to the first complete read without it
    probe_hidden: list[float] = field(default_factory=list)
    # ... of which after the board's first answer since the removal: what the probe added
    probe_delays: list[float] = field(default_factory=list)
    probe_stops: int = 0  # polls a count probe ended after one page
    wrongful_closes: int = 0
    missed: int = 0  # opened and closed between two reads: never seen
    new_censored: int = 0  # opened in the window, still unseen at the end
    close_censored: int = 0  # closed in the window, still open here at the end
    sim_s: float = 0.0
    host_requests: Counter = field(default_factory=Counter)  # host index -> requests sent
    host_cooldown_s: Counter = field(default_factory=Counter)  # host index -> Retry-After total


class BoardSim:
    """One board as the crawler knows it, next to the world's truth of it."""

    __slots__ = (
        "board", "counting", "full_count", "full_t", "full_version", "known", "last_poll_t",
        "open", "ptr", "stale", "state", "status", "undetected", "version", "visible",
    )  # fmt: skip

    def __init__(self, board: Board, interval_s: int) -> None:
        self.board = board
        self.ptr = 0
        self.open = set(board.initial)  # truth: postings open (listed or hidden)
        self.visible = set(board.initial)  # truth: what a full listing shows now
        self.version = 0  # bumps on every listing change
        self.full_version = -1  # the version the stored validators describe
        self.known: dict[int, int] = {}  # postings we hold open -> missing_count
        self.status: dict[int, str] = {}  # active | missing
        self.stale: set[int] = set()  # known, but not in the listing now
        self.counting: set[int] = set()  # known with missing_count > 0
        self.undetected: set[int] = set(board.initial)
        self.state = BoardState(interval_s, 0, 0, "active")
        self.last_poll_t: float | None = None  # crawl.boards.last_polled_at
        self.full_t: float | None = None  # crawl.boards.last_full_pass_at
        self.full_count = 0  # crawl.boards.item_count: what the probe compares with


class Simulation:
    def __init__(
        self,
        world: World,
        policy: Policy,
        *,
        cap: HostCap | None = None,
        full_pass_every_s: float = FULL_PASS_EVERY_S,
        host_queues: bool = False,
    ) -> None:
        self.world = world
        # A cooled-down host's refused boards: each requeued on its own (as discover
        # does), or, at scale, one queue per host released in order once the cooldown
        # ends (HostQueues): the same refusals without replaying each of them.
        self.queues = HostQueues(len(world.hosts)) if host_queues else None
        self.policy = policy
        self.cap = cap
        self.full_pass_every_s = full_pass_every_s
        self.probe_hideable: set[int] = set()  # closed on a board of several pages
        self.answered_at: dict[int, float] = {}  # ... the board's first answer after it
        self.rng = random.Random(world.rng_seed * 7919 + 1)
        self.noise = world.config.noise
        self.horizon = world.duration_s
        edge = min(86400.0, self.horizon / 7)
        self.window = (edge, self.horizon - edge)  # events measured: warm-up and tail cut
        self.cooldown_until = [0.0] * len(world.hosts)
        self.fig = Figures(policy.name)
        self.boards = [BoardSim(b, policy.first_interval(b)) for b in world.boards]
        self.checks: list[tuple[float, int, int]] = []  # (due, posting, board)
        self.verdicts: dict[tuple[str, bool], bool] = {}

    # ------------------------------------------------------------------ the loop

    def run(self) -> Figures:
        random.seed(self.world.rng_seed)  # discover's jitter_up draws from `random`
        queue = [(self.rng.random() * b.state.interval_s, i) for i, b in enumerate(self.boards)]
        heapq.heapify(queue)
        self.queue = queue
        tick = 0.0
        while queue and queue[0][0] < self.horizon:
            t, index = heapq.heappop(queue)
            while tick <= t:
                self._check_tick(tick)
                tick += CHECK_TICK_S
            if index < 0:  # a host's queue: its next refused board, or wait again
                self._release(-1 - index, t)
                continue
            due = self._poll(self.boards[index], t)
            if due is not None:
                heapq.heappush(queue, (due, index))
        while tick < self.horizon:
            self._check_tick(tick)
            tick += CHECK_TICK_S
        self._censor()
        return self.fig

    def _poll(self, b: BoardSim, t: float) -> float | None:
        """Poll the board at t; its next due time (None: it waits in its host's queue)."""
        host = b.board.host
        wait = self.cooldown_until[host] - t
        if wait > 0 and self.queues is not None:
            self.fig.deferred += 1
            if self.queues.park(host, b.board.index):
                heapq.heappush(self.queue, (t + max(RETRY_SOON_S, wait), -1 - host))
            return None
        if wait <= 0 and self.cap is not None:
            wait = self.cap.wait(host, t)
        if wait > 0:
            # Not sent: back in the queue with nothing recorded (discover's requeue).
            self.fig.deferred += 1
            return t + jitter_up(max(RETRY_SOON_S, wait))
        self._advance(b, t)  # the world's events so far: only a request sees them
        self.fig.requests += 1
        self.fig.polls += 1
        self.fig.host_requests[host] += 1
        outcome, status, retry_in = self._read(b, t)
        self.fig.outcomes[outcome] += 1
        # As discover passes it: the time since the board's last recorded poll.
        elapsed = None if b.last_poll_t is None else t - b.last_poll_t
        b.last_poll_t = t
        return self.policy.due(b, outcome, status, t, self.rng.random(), retry_in, elapsed)

    def _release(self, host: int, t: float) -> None:
        """A host's queue at t: still cooling down, every board in it is refused once
        more (counted, not replayed) and the queue waits for the end; else its first
        board is polled and the next follows within discover's jitter minute."""
        assert self.queues is not None
        wait = self.cooldown_until[host] - t
        if wait > 0:
            self.fig.deferred += self.queues.waiting(host)
            heapq.heappush(self.queue, (t + max(RETRY_SOON_S, wait), -1 - host))
            return
        index = self.queues.first(host)
        due = self._poll(self.boards[index], t)
        if due is not None:
            heapq.heappush(self.queue, (due, index))
        if self.queues.waiting(host):
            gap = JITTER_WINDOW_S / max(self.queues.waiting(host), 1)
            heapq.heappush(self.queue, (t + min(gap, 1.0), -1 - host))
        else:
            self.queues.done(host)

    def _advance(self, b: BoardSim, t: float) -> None:
        """Apply the world's events up to t to the board's truth."""
        events, ptr = b.board.events, b.ptr
        while ptr < len(events) and events[ptr][0] <= t:
            _, kind, pid = events[ptr]
            ptr += 1
            b.version += 1
            if kind == OPEN:
                b.open.add(pid)
                b.visible.add(pid)
                b.undetected.add(pid)
            elif kind == CLOSE:
                b.open.discard(pid)
                b.visible.discard(pid)
                self._gone(b, pid)
            elif kind == HIDE:
                b.visible.discard(pid)
                if pid in b.known:
                    b.stale.add(pid)
            elif kind == SHOW:
                b.visible.add(pid)
                b.stale.discard(pid)
        b.ptr = ptr

    def _gone(self, b: BoardSim, pid: int) -> None:
        if b.board.probe_page and len(b.visible) + 1 > b.board.probe_page:
            self.probe_hideable.add(pid)
        if pid in b.known:
            b.stale.add(pid)
        elif pid in b.undetected:
            b.undetected.discard(pid)
            if self._in_window(self.world.opened_at[pid]):
                self.fig.missed += 1

    def _in_window(self, at: float) -> bool:
        return self.window[0] <= at < self.window[1]

    # ------------------------------------------------------------------ one read

    def _read(self, b: BoardSim, t: float) -> tuple[str, int | None, float | None]:
        """What a poll of the board answers now, and what it teaches us."""
        noise, u = self.noise, self.rng.random()
        outage = b.board.outage
        if outage and outage[0] <= t < outage[1]:
            return "failed", 503, None
        if u < noise.rate_limited:
            retry = parse_retry_after(str(self.rng.randint(*noise.retry_after_s)))
            self.cooldown_until[b.board.host] = t + (retry or 0.0)
            self.fig.host_cooldown_s[b.board.host] += retry or 0.0
            return "rate_limited", 429, retry
        u -= noise.rate_limited
        if u < noise.server_error:
            return "failed", 502, None
        u -= noise.server_error
        if u < noise.empty or not b.visible:
            # An empty listing proves nothing. A board whose last posting closed reads
            # as empty too, as in production: that posting stays open (and the board
            # is flagged suspect after three such reads), whatever the policy.
            return "empty", 200, None
        u -= noise.empty
        if u < noise.partial:
            self._seen(b, t, [p for p in b.visible if self.rng.random() < noise.partial_rows])
            return "changed", 200, None  # its rows differ from the stored listing hash
        if b.board.probe_page:
            return self._paged_read(b, t)
        return self._complete_read(b, t)

    def _paged_read(self, b: BoardSim, t: float) -> tuple[str, int | None, float | None]:
        """A count-probed board: the first page, then the rest unless the probe is
        trusted (a page that is the whole listing is a complete read at once)."""
        pages = max(1, math.ceil(len(b.visible) / b.board.probe_page))
        for pid in b.stale:  # the first answer since a removal: from here, the probe's delay
            if pid in self.probe_hideable:
                self.answered_at.setdefault(pid, t)
        if pages > 1 and self._probe_trusted(b, t):
            self.fig.probe_stops += 1
            return "unchanged", 200, None  # no presence confirmed, no absence counted
        self.fig.requests += pages - 1
        self.fig.host_requests[b.board.host] += pages - 1
        b.full_t, b.full_count = t, len(b.visible)
        return self._complete_read(b, t)

    def _probe_trusted(self, b: BoardSim, t: float) -> bool:
        """`listing.probe_says_unchanged`: nothing waits on a complete listing, the
        last full read is within the bound, and the total is the same."""
        if b.counting or b.full_t is None:
            return False
        if full_pass_due(_now(b.full_t), _now(t), self.full_pass_every_s):
            return False
        return len(b.visible) == b.full_count

    def _complete_read(self, b: BoardSim, t: float) -> tuple[str, int | None, float | None]:
        if b.version == b.full_version:
            # Nothing changed since the last complete read: a 304 (or an unchanged body),
            # which repeats that listing: absences count once more.
            if b.stale:
                self._absences(b, t)
            return ("not_modified", 304, None) if b.board.etag else ("unchanged", 200, None)
        self._seen(b, t, [p for p in b.undetected if p in b.visible])
        self._reset_present(b)
        self._absences(b, t)
        b.full_version = b.version
        return "changed", 200, None

    def _seen(self, b: BoardSim, t: float, postings: list[int]) -> None:
        """Postings in a read: new ones detected; known ones active again, count reset."""
        opened = self.world.opened_at
        for pid in postings:
            if pid in b.undetected:
                b.undetected.discard(pid)
                b.known[pid] = 0
                b.status[pid] = "active"
                if self._in_window(opened[pid]):
                    self.fig.new_delays.append(t - opened[pid])
            elif pid in b.counting:
                b.counting.discard(pid)
                b.known[pid] = 0
                b.status[pid] = "active"

    def _reset_present(self, b: BoardSim) -> None:
        for pid in b.counting - b.stale:
            b.counting.discard(pid)
            b.known[pid] = 0
            b.status[pid] = "active"

    def _absences(self, b: BoardSim, t: float) -> None:
        """One more complete listing without each stale posting; the second makes it
        `missing`, and the next check tick checks it directly."""
        for pid in b.stale:
            count = b.known[pid] + 1
            b.known[pid] = count
            b.counting.add(pid)
            if count == 1 and pid in self.probe_hideable:
                self._first_absence(pid, t)
            if count >= MISSING_AFTER_SCANS and b.status[pid] == "active":
                b.status[pid] = "missing"
                heapq.heappush(self.checks, (t, pid, b.board.index))

    def _first_absence(self, pid: int, t: float) -> None:
        """A removal on a count-probed board of several pages, first seen absent: how
        long the board hid it, and how much of that after the board first answered
        (the probe's share; before it the board failed or was not polled yet)."""
        closed = self.world.closed_at.get(pid)
        if closed is not None and self._in_window(closed):
            self.fig.probe_hidden.append(t - closed)
            self.fig.probe_delays.append(t - self.answered_at.get(pid, t))

    # ------------------------------------------------------------------ checks

    def _check_tick(self, tick: float) -> None:
        while self.checks and self.checks[0][0] <= tick:
            _, pid, index = heapq.heappop(self.checks)
            b = self.boards[index]
            if b.status.get(pid) != "missing":
                continue  # seen again (or closed) meanwhile
            if self.cap is not None and self.cap.wait(b.board.host, tick) > 0:
                heapq.heappush(self.checks, (tick + CHECK_TICK_S, pid, index))
                continue
            self._advance(b, tick)
            self.fig.requests += 1
            self.fig.host_requests[b.board.host] += 1
            self.fig.checks += 1
            live = pid in b.open
            kind = self._page(pid, live)
            closes = self._verdict(kind, live)
            self.fig.check_verdicts[f"{'live' if live else 'closed'}:{kind}"] += 1
            if not closes:
                heapq.heappush(self.checks, (tick + RECHECK_AFTER_S, pid, index))
                continue
            self._close(b, pid, tick, live)

    def _page(self, pid: int, live: bool) -> str:
        if self.rng.random() < self.noise.check_unavailable:
            return "http_503"
        if not live:
            return self.world.page_kind[pid]
        options = self.noise.live_pages
        pick, acc = self.rng.random(), 0.0
        for kind, weight in options:
            acc += weight
            if pick < acc:
                return kind
        return options[-1][0]

    def _verdict(self, kind: str, live: bool) -> bool:
        key = (kind, live)
        if key not in self.verdicts:
            self.verdicts[key] = judge(
                PAGES[kind](), external_id=EXTERNAL_ID, title=TITLE
            ).conclusive
        return self.verdicts[key]

    def _close(self, b: BoardSim, pid: int, t: float, live: bool) -> None:
        del b.known[pid]
        del b.status[pid]
        b.stale.discard(pid)
        b.counting.discard(pid)
        if live:
            self.fig.wrongful_closes += 1
        closed = self.world.closed_at.get(pid)
        if closed is not None and self._in_window(closed):
            self.fig.close_delays.append(t - closed)
            if pid in self.probe_hideable:
                self.fig.probe_close_delays.append(t - closed)

    def _censor(self) -> None:
        opened, closed = self.world.opened_at, self.world.closed_at
        for b in self.boards:
            self.fig.new_censored += sum(1 for p in b.undetected if self._in_window(opened[p]))
            self.fig.close_censored += sum(
                1 for p in b.known if p in closed and self._in_window(closed[p])
            )


# ---------------------------------------------------------------------- pages

EXTERNAL_ID = "4012345"
TITLE = "Senior Data Engineer"
_URL = f"https://jobs.example.com/acme/{EXTERNAL_ID}"


def _page(
    status: int | None, body: bytes = b"", final: str = _URL, redirects=()
) -> CheckedResponse:
    return CheckedResponse(_URL, final, status, body, tuple(redirects))


PAGES = {
    "http_404": lambda: _page(404, b"Not found"),
    "redirect_to_board": lambda: _page(
        200, b"<html><h1>Open roles at Acme</h1></html>", "https://jobs.example.com/acme", [_URL]
    ),
    "closed_banner": lambda: _page(
        200,
        b"<html><h1>Senior Data Engineer</h1><p>This job is no longer accepting applications.</p></html>",
    ),
    "http_503": lambda: _page(503, b"Service unavailable"),
    "login_wall": lambda: _page(403, b"<html>Please sign in to continue</html>"),
    "search_page": lambda: _page(200, b"<html><h1>Search jobs</h1><p>42 results</p></html>"),
    "posting_page": lambda: _page(
        200, b"<html><h1>Senior Data Engineer</h1><p>Apply now. We are hiring.</p></html>"
    ),
}


# ---------------------------------------------------------------------- policies


def _as_due(nxt, board: BoardSim) -> float:
    board.state = BoardState(
        nxt.interval_s,
        nxt.consecutive_failures,
        nxt.consecutive_404s,
        nxt.state,
        nxt.quiet_passes,
        nxt.state_reason,
        nxt.rate_polls,
        nxt.rate_changes,
        nxt.rate_seen_s,
    )
    return (nxt.due_at - EPOCH).total_seconds()


def _now(t: float) -> datetime:
    return EPOCH + timedelta(seconds=t)


class Adaptive:
    """The project's schedule, exactly as discover drives it."""

    name = "adaptive"

    def first_interval(self, board: Board) -> int:
        return FIRST_INTERVAL_S

    def due(
        self,
        b: BoardSim,
        outcome: str,
        status: int | None,
        t: float,
        jitter: float,
        retry_in_s: float | None,
        elapsed_s: float | None,
    ) -> float:
        nxt = next_state(
            b.state, outcome, status, _now(t), jitter=jitter, retry_in_s=retry_in_s,
            elapsed_s=elapsed_s,
        )  # fmt: skip
        return _as_due(nxt, b)


SUCCESS = frozenset({"changed", "unchanged", "not_modified", "empty"})


class Fixed:
    """Every board on one interval; failures, backoff and waits as in production."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.name = "fixed"

    def first_interval(self, board: Board) -> int:
        return int(self.interval_s)

    def due(
        self,
        b: BoardSim,
        outcome: str,
        status: int | None,
        t: float,
        jitter: float,
        retry_in_s: float | None,
        elapsed_s: float | None,
    ) -> float:
        if outcome in SUCCESS and not b.state.consecutive_failures and b.state.state == "active":
            return t + jittered(self.interval_s, jitter)
        nxt = next_state(b.state, outcome, status, _now(t), jitter=jitter, retry_in_s=retry_in_s)
        due = _as_due(nxt, b)  # failures, backoff and waits (and the reset after them)
        return t + jittered(self.interval_s, jitter) if outcome in SUCCESS else due


class HostCap:
    """A per-host budget: a token bucket per host (rate = the host's share of the
    budget times `factor`), slots within MAX_WAIT_S taken, later ones refused."""

    def __init__(self, world: World, budget: float, factor: float, burst: float = 10.0) -> None:
        counts = Counter(b.host for b in world.boards)
        per_s = budget / world.duration_s
        n = len(world.boards)
        self.rate = [factor * per_s * counts.get(h, 0) / n for h in range(len(world.hosts))]
        self.burst = burst
        self.tokens = [burst] * len(world.hosts)
        self.last = [0.0] * len(world.hosts)

    def wait(self, host: int, t: float) -> float:
        rate = self.rate[host]
        if rate <= 0:
            return 86400.0
        tokens = min(self.burst, self.tokens[host] + (t - self.last[host]) * rate)
        self.last[host] = t
        wait = (1.0 - tokens) / rate if tokens < 1.0 else 0.0
        if wait > MAX_WAIT_S:
            self.tokens[host] = tokens
            return wait
        self.tokens[host] = tokens - 1.0  # the slot is ours (the bucket may go into debt)
        return 0.0


class ConfirmSoon(Adaptive):
    """The proposal: the adaptive schedule, but a board with postings absent from one
    complete listing (discover reads it as `pending_absences > 0`) comes back at the
    minimum interval, so the second miss and the direct check follow sooner."""

    name = "confirm-soon"

    def due(
        self,
        b: BoardSim,
        outcome: str,
        status: int | None,
        t: float,
        jitter: float,
        retry_in_s: float | None,
        elapsed_s: float | None,
    ) -> float:
        due = super().due(b, outcome, status, t, jitter, retry_in_s, elapsed_s)
        pending = any(b.status[p] == "active" for p in b.counting)
        if pending and outcome in SUCCESS:
            return min(due, t + jittered(MIN_INTERVAL_S, jitter))
        return due
