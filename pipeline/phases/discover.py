"""discover: poll due boards' listings, store them raw, upsert their postings.

One `discover` call is one worker. It claims due boards from the queue
(pipeline.crawl.queue) for a source and/or a lane and polls many at once:

  claim (SKIP LOCKED + lease) -> robots.txt (HTML sites) -> paced conditional GET
  -> validate -> raw object -> [body unchanged after stripping volatile fields? stop]
  -> parse -> [count probe: total as on the last full pass? stop] -> next page ...
  -> record

This module is the claim loop. Reading one board's pages is the listing reader
(pipeline.phases.listing); writing what a poll read is the recorder
(pipeline.phases.recorder): one transaction per board with postings, many quiet
boards per statement. A board our own rate limiter could not place goes back in
the queue with nothing recorded at all.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from parsers.types import Issue
from pipeline.app import App
from pipeline.crawl import scan_store
from pipeline.crawl.board_choice import named_board_ids
from pipeline.crawl.http.fetcher import FetchRequest, FetchResult, ResultStream
from pipeline.crawl.http.transports import Transports
from pipeline.crawl.pacing import cooling_down, slowed
from pipeline.crawl.queue import (
    ClaimFilter,
    LeaseKeeper,
    NextDue,
    any_claimable,
    claim,
    count_not_claimed,
    new_owner,
    next_due,
    requeue,
)
from pipeline.crawl.schedule import RETRY_SOON_S
from pipeline.db.connect import DictConnection
from pipeline.db.rows import BoardRow, Json
from pipeline.errors import FatalError
from pipeline.lifecycle import store as lifecycle
from pipeline.phases import fallback
from pipeline.phases.common import PhaseReport, run_phase, utc_clock
from pipeline.phases.forced import Deferral, forced_summary
from pipeline.phases.listing import (
    FormatTry,
    ListingRead,
    Poll,
    Refusal,
    SourceContext,
    complete_read,
    early_outcome,
    first_request,
    read_page,
    source_context,
)
from pipeline.phases.recorder import FLUSH_S, DiscoverStats, Recorder
from pipeline.progress import Progress
from pipeline.rawstore.recovery import recover_and_requeue

CLAIM_BATCH = 200
LOW_WATER = CLAIM_BATCH // 2  # claim again when fewer boards than this are in flight
MAX_IDLE_S = 60.0  # wait at most this long for a spent host budget before ending the run


def discover(
    app: App,
    source_name: str | None = None,
    *,
    lane: str | None = None,
    force: bool = False,
    boards: Sequence[str] = (),
    limit: int | None = None,
    wait_s: float = 0.0,
    lease_s: float | None = None,
    max_seconds: float | None = None,
    shared: bool = False,
) -> PhaseReport:
    """Poll due boards of a source and/or a lane (all enabled boards once with `force`).

    `boards` names boards of the source (keys or ids): only those are polled, each now,
    due or not; a name the source does not know fails the run before anything is polled.
    A forced run still claims through the queue and sends through the host budgets,
    cooldowns and robots.txt: a board whose host must wait is deferred, and the run's
    message says which and until when.

    By default a run holds the source's advisory lock, so two runs of one source (two
    DAG runs, say) never overlap: the second waits `wait_s`, then skips and says so.
    `shared=True` (and lane-only runs) are cooperating workers instead: many may run
    at once and the queue's leases keep them apart. `limit` caps the boards claimed,
    `max_seconds` the time spent claiming new ones (work in flight finishes).
    `lease_s` is how long a claim lasts unrenewed (JOBHARBOR_LEASE_S unless given).
    """
    if source_name is not None:
        app.sources.get(source_name)  # a clear error for an unknown name
    where = claim_filter(app, source_name, lane, force=force, boards=boards)
    forced_said: list[str] = []

    def work(run_id: int) -> Mapping[str, Json]:
        with app.db.connect() as conn, conn.transaction():
            orphans = lifecycle.strand_orphans(conn, source_name, run_id=run_id)
        worker = _Worker(app, run_id, where, lease_s=lease_s or app.settings.lease_s)
        try:
            stats = worker.run(limit=limit, max_seconds=max_seconds)
            if where.since is not None:
                forced_said.append(worker.forced_message())
        finally:
            worker.close()
        stats.postings_missing += orphans
        result = stats.as_dict()
        if lane:
            result["lane"] = lane
        return result

    label = source_name if source_name or not lane else None
    exclusive = not shared and source_name is not None
    report = run_phase(app.db, "discover", label, work, wait_s=wait_s, exclusive=exclusive)
    if report.status == "succeeded" and forced_said:
        return replace(report, message=forced_said[0])
    if report.status == "succeeded" and polled_nothing(report.stats):
        with app.db.connect() as conn:
            waiting_for = next_due(conn, where)
        report = replace(report, message=why_nothing_polled(waiting_for, datetime.now(UTC)))
    return report


def claim_filter(
    app: App, source_name: str | None, lane: str | None, *, force: bool, boards: Sequence[str]
) -> ClaimFilter:
    """What the run claims. Forced (`force`, or boards named) means due times are
    ignored for this run; named boards are resolved to ids here, before any request."""
    named: tuple[int, ...] = ()
    if boards:
        if source_name is None:
            raise FatalError("boards are named within one source: give the source as well")
        with app.db.connect() as conn:
            named = named_board_ids(conn, source_name, boards)
    forced_since = datetime.now(UTC) if force or named else None
    return ClaimFilter(source_name, lane, forced_since, named)


def polled_nothing(stats: Mapping[str, Json]) -> bool:
    """No board polled and none put back by our own limiter (`deferred` says why then)."""
    return stats.get("boards") == 0 and not stats.get("deferred")


def why_nothing_polled(waiting_for: NextDue | None, now: datetime) -> str:
    """A run's summary when it polled no board: what it is waiting for."""
    if waiting_for is None:
        return "0 boards polled: no enabled board"
    board = f"{waiting_for.source_id}/{waiting_for.board_key}"
    when = utc_clock(waiting_for.due_at, now)
    if waiting_for.due_at > now:
        hours = (waiting_for.due_at - now) / timedelta(hours=1)
        return f"0 boards due; next due {when}, in {hours:.1f} h ({board})"
    held = (
        "is leased by another worker"
        if waiting_for.leased
        else "was not claimed (its host's request budget was spent)"
    )
    return f"0 boards polled; {board} has been due since {when} but {held}"


class _Worker:
    """The I/O shell around one discover run: claims, transports, recording."""

    def __init__(self, app: App, run_id: int, where: ClaimFilter, *, lease_s: float) -> None:
        self.app = app
        self.run_id = run_id
        self.where = where
        self.lease_s = lease_s
        self.owner = new_owner()
        self.stats = DiscoverStats()
        self.conn: DictConnection = app.db.connect()
        # Crawl bookkeeping (scans, attempts, board schedule) is re-derivable: if the
        # database crashes and loses the last few hundred milliseconds of commits,
        # those boards are simply polled again once their lease expires. Not waiting
        # for a WAL flush per board is worth several times the throughput. Raw-object
        # bookkeeping keeps full durability (the archive has its own connection).
        self.conn.execute("SET synchronous_commit = off")
        self.conn.commit()
        self.archive = app.archive()
        self.transports = Transports(app, run_id)
        self.keeper = LeaseKeeper(app.db, self.owner, lease_s)
        self.stream = ResultStream()
        self.recorder = Recorder(self.conn, run_id, self.owner, self.keeper, self.stats)
        self.contexts: dict[str, SourceContext | None] = {}
        self.saturated: dict[str, float] = {}  # host -> monotonic time its budget frees up
        self.claimed: set[int] = set()
        # Boards put back unpolled and not polled since: what a forced run reports.
        self.deferrals: dict[int, Deferral] = {}
        self.next_claim_at = 0.0  # no claim before then: only spent hosts have due boards
        self.progress = Progress(f"discover {where.describe()}", None)

    def close(self) -> None:
        self.progress.finish()
        self.keeper.close()
        self.transports.close()
        self.archive.close()
        self.conn.close()

    # ------------------------------------------------------------ the loop

    def run(self, *, limit: int | None, max_seconds: float | None) -> DiscoverStats:
        report = recover_and_requeue(self.archive, self.conn)
        self.stats.raw_recovered, self.stats.raw_lost = report.ready, report.lost
        deadline = time.monotonic() + max_seconds if max_seconds is not None else None
        claimed, exhausted = 0, False
        while True:
            if (
                not exhausted
                and self.stream.pending < LOW_WATER
                and time.monotonic() >= self.next_claim_at
            ):
                want = CLAIM_BATCH if limit is None else min(CLAIM_BATCH, limit - claimed)
                boards = self._claim(want) if want > 0 else []
                claimed += len(boards)
                if boards:
                    self._start(boards)
                elif not self._wait_for_saturated(deadline):
                    exhausted = True
                if (limit is not None and claimed >= limit) or (
                    deadline is not None and time.monotonic() >= deadline
                ):
                    exhausted = True
            if self.stream.pending == 0:
                if exhausted:
                    break
                self._sleep_until_claim()
                continue
            result = self.stream.next(timeout=FLUSH_S)
            if result is not None:
                self._on_result(result)
            self.recorder.flush(force=False)
        self.recorder.flush(force=True)
        return self.stats

    def _claim(self, want: int) -> list[BoardRow]:
        now = time.monotonic()
        skip = {host for host, until in self.saturated.items() if until > now}
        boards = claim(
            self.conn, self.owner, self.where, want, lease_s=self.lease_s, skip_hosts=skip
        )
        self.keeper.hold(b.id for b in boards)
        self.claimed.update(b.id for b in boards)
        return boards

    def _wait_for_saturated(self, deadline: float | None) -> bool:
        """Nothing else is due: if some hosts were only skipped because their budget is
        spent, wait for the first to free up (when nothing is in flight) and go on."""
        now = time.monotonic()
        self.saturated = {h: u for h, u in self.saturated.items() if u > now}
        if not self.saturated or not any_claimable(self.conn, self.where, self.saturated):
            return False
        until = min(self.saturated.values())
        # Checked before anything else: with polls still in flight, a host that frees up
        # only after a long cooldown would otherwise hold the run open until it does.
        if until - now > MAX_IDLE_S or (deadline is not None and until >= deadline):
            return False  # a later run will find them due; a worker does not idle for long
        if self.stream.pending:
            self.next_claim_at = until
            return True
        self.recorder.flush(force=True)
        time.sleep(max(0.0, until - time.monotonic()))
        self.saturated = {h: u for h, u in self.saturated.items() if u > time.monotonic()}
        return True

    def _sleep_until_claim(self) -> None:
        """Nothing in flight and the next claim waits for a host's budget: sleep until
        then instead of spinning, with what is finished recorded first."""
        wait = self.next_claim_at - time.monotonic()
        if wait > 0:
            self.recorder.flush(force=True)
            time.sleep(wait)

    # ------------------------------------------------------------ starting polls

    def _context(self, source_id: str) -> SourceContext | None:
        if source_id not in self.contexts:
            self.contexts[source_id] = source_context(self.app, source_id)
        return self.contexts[source_id]

    def _start(self, boards: list[BoardRow]) -> None:
        requests: list[FetchRequest] = []
        unpolled: dict[int, float] = {}
        for board in boards:
            ctx = self._context(board.source_id)
            if ctx is None:  # the source left sources.yaml or was disabled since the claim
                unpolled[board.id] = RETRY_SOON_S
                self.deferrals[board.id] = Deferral(board.host, "its source was disabled")
                continue
            request = self._open(self._first_poll(board, ctx), unpolled)
            if request is not None:
                requests.append(request)
        self._requeue(unpolled)
        self.transports.submit(self.stream, requests)

    def _open(self, poll: Poll, unpolled: dict[int, float]) -> FetchRequest | None:
        """The poll's first request with its host's budget; None when robots.txt refuses
        it (recorded now) or cannot be read yet (the board goes in `unpolled`)."""
        ctx, board = poll.ctx, poll.board
        prepared = self._prepare(poll, first_request(ctx, board))
        if isinstance(prepared, FetchRequest):
            return prepared
        if poll.probing:
            # The better format may not be asked (robots.txt) or not yet: the board's own
            # format is read as usual; only a refusal counts as the probe's answer.
            refused = None if prepared.deferred else f"robots.txt: {prepared.reason}"
            return self._open(self._stay(poll, refused), unpolled)
        if prepared.deferred:
            # robots.txt could not be read yet (its host's budget or cooldown): the
            # host's other boards would wait the same, and a forced run, whose
            # deferred boards stay claimable, would otherwise claim them again at once.
            wait = max(RETRY_SOON_S, prepared.retry_in_s or 0.0)
            unpolled[board.id] = wait
            self._hold_host(board.host, wait)
            self.deferrals[board.id] = Deferral(ctx.platform.pacing_key(board.url))
        else:
            self._finish(poll, poll.read("disallowed", prepared.reason))
        return None

    def _send(self, poll: Poll) -> None:
        """Start a poll from within the run: the board's own format after a return probe."""
        unpolled: dict[int, float] = {}
        request = self._open(poll, unpolled)
        self._requeue(unpolled)
        if request is not None:
            self.transports.submit(self.stream, [request])

    def _prepare(self, poll: Poll, request: FetchRequest) -> FetchRequest | Refusal:
        """The request with its host's budget, or why it may not be sent (robots.txt)."""
        ctx = poll.ctx
        budget, key = ctx.budget, ctx.platform.pacing_key(request.url)
        if ctx.obey_robots:
            verdict = self.transports.robots.check(request.url, budget, key)
            if verdict.deferred_s is not None:
                return Refusal(deferred=True, retry_in_s=verdict.deferred_s)
            if not verdict.allowed:
                return Refusal(reason=verdict.reason)
            budget = slowed(budget, verdict.crawl_delay_s)
        poll.adapter_request = request
        return replace(
            request,
            tag=poll,
            budget=budget,
            host_key=key,
            transport=ctx.transport,
            wait_for=ctx.source.validation.required_selectors,
        )

    def _requeue(self, waits: Mapping[int, float]) -> None:
        if waits:
            requeue(self.conn, self.owner, {k: jitter_up(v) for k, v in waits.items()})
            self.keeper.release(waits)
            self.stats.deferred += len(waits)

    # ------------------------------------------------------------ reading a listing

    def _on_result(self, result: FetchResult) -> None:
        poll: Poll = result.request.tag
        if result.deferred:
            self._hold_host(poll.board.host, result.deferred_s or RETRY_SOON_S)
            if poll.probing and not poll.attempts:
                self._send(self._stay(poll, None))  # the probe waits; the board's read does not
                return
            if not poll.attempts:
                # Nothing was sent: the board goes back in the queue as if never claimed.
                self._requeue({poll.board.id: max(RETRY_SOON_S, result.deferred_s or 0.0)})
                self.deferrals[poll.board.id] = Deferral(result.request.pacing_key)
                return
            # Pages already read stand: they may add postings, never retire any.
            self._finish(poll, complete_read(poll, truncated=True))
            return
        poll.attempts.append(result)
        self.stats.requests += 1
        early = early_outcome(poll, result)
        if early is not None:
            self._finish(poll, early)
            return
        self._read_page(poll, result)

    def _hold_host(self, host: str, seconds: float) -> None:
        """Claim nothing more on `host` for `seconds`: its budget cannot place it."""
        until = time.monotonic() + seconds
        self.saturated[host] = max(self.saturated.get(host, 0.0), until)

    def _finish(self, poll: Poll, read: ListingRead) -> None:
        if poll.probing:
            if not read.has_listing:
                self._send(self._stay(poll, read))  # its own format is read next
                return
            read = self._returned(poll, read)
        elif self._fall_back(poll, read):
            return  # the next format's request is in flight; its poll finishes the board
        if poll.tries:
            read = self._after_fallback(poll, read)
        if poll.probed:
            read = self._after_probe(poll, read)
        self.deferrals.pop(poll.board.id, None)  # deferred earlier in the run, polled now
        self.recorder.finish(poll, read)
        self.progress.advance()  # one board polled

    # ------------------------------------------------------------ format fallback

    def _fall_back(self, poll: Poll, read: ListingRead) -> bool:
        """When the read shows its format is unavailable for this board, ask the board's
        next format in the same run (pipeline.phases.fallback); True if it was sent."""
        ctx = poll.ctx
        if len(ctx.platform.listing_formats()) < 2:
            return False
        reason = fallback.unavailable(read)
        if reason is None:
            return False
        api_base = ctx.platform.api_base_for(ctx.source)
        current = self._format_name(ctx, poll.board)
        tries = [*poll.tries, FormatTry(current, poll.board.url, reason, read.attempts, read.raws)]
        asked = [t.format for t in (*poll.probed, *tries)]  # a probe's format is not asked twice
        found = fallback.next_format(ctx.platform, poll.board, api_base, asked)
        if found is None:
            return False
        fmt, url = found
        original = poll.original or poll.board
        board = fallback.at_format(original, fmt.name, url)
        following = Poll(board, ctx, original=original, tries=tries, probed=poll.probed)
        prepared = self._prepare(following, first_request(ctx, board))
        if not isinstance(prepared, FetchRequest):
            return False  # robots.txt: record what the old format answered
        self.transports.submit(self.stream, [prepared])
        return True

    def _after_fallback(self, poll: Poll, read: ListingRead) -> ListingRead:
        """A fallback's read: the board moves to the new format only when it answered with
        a listing; either way the scan names the formats given up on and the fetch log
        keeps their requests."""
        assert poll.original is not None
        adopted = read.has_listing
        board = poll.board
        if adopted:
            self.stats.format_switches += self._switch_format(poll)
        else:
            poll.board = poll.original  # it stays where it was, validators and all
        issues = fallback.switch_issues(poll.tries, board.format or "", adopted)
        earlier = tuple(row for tried in poll.tries for row in tried.logged())
        return replace(read, issues=(*issues, *read.issues), earlier=earlier)

    def _switch_format(self, poll: Poll) -> int:
        """Move the board to the format its poll read (1), unless its lease was lost (0)."""
        board = poll.board
        lane = poll.ctx.platform.lane(poll.ctx.source, board.url)
        values = {"id": board.id, "owner": self.owner, "url": board.url}
        values |= {"host": board.host, "lane": lane, "format": board.format}
        with self.conn.transaction():
            return int(self.conn.execute(scan_store.SWITCH_FORMAT, values).rowcount)

    # ------------------------------------------------------------ the way back

    def _first_poll(self, board: BoardRow, ctx: SourceContext) -> Poll:
        """The board's poll: a return probe when one is due (a board read in a fallback
        asks its best format first; pipeline.phases.fallback), else its own format."""
        if len(ctx.platform.listing_formats()) < 2:
            return Poll(board, ctx)
        api_base = ctx.platform.api_base_for(ctx.source)
        found = fallback.return_probe(ctx.platform, board, api_base, datetime.now(UTC))
        if found is None:
            return Poll(board, ctx)
        fmt, url = found
        return Poll(fallback.at_format(board, fmt.name, url), ctx, original=board, probing=True)

    def _returned(self, poll: Poll, read: ListingRead) -> ListingRead:
        """A probe that answered with a listing: the board is read in the better format
        again from now on, this read being its first (a new scope, so a new baseline)."""
        assert poll.original is not None
        self.stats.format_returns += self._switch_format(poll)
        left = self._format_name(poll.ctx, poll.original)
        issue = fallback.return_issue(poll.board.format or "", left, poll.board.url)
        return replace(read, issues=(issue, *read.issues))

    def _stay(self, probe: Poll, answer: ListingRead | str | None) -> Poll:
        """The poll of the board's own format after a return probe that found no listing
        (`answer`: its read, or robots.txt's refusal) or was not sent (None). An answer
        puts the next probe a week away; nothing from it counts against any posting."""
        assert probe.original is not None
        if answer is None:
            return Poll(probe.original, probe.ctx)
        fmt, url = probe.board.format or "", probe.board.url
        if isinstance(answer, str):
            tried = FormatTry(fmt, url, answer, (), ())
        else:
            tried = fallback.probe_try(fmt, url, answer)
        with self.conn.transaction():
            self.conn.execute(scan_store.KEEP_FORMAT, {"id": probe.board.id, "owner": self.owner})
        return Poll(probe.original, probe.ctx, probed=[tried])

    def _after_probe(self, poll: Poll, read: ListingRead) -> ListingRead:
        """The board's own read after a probe that found no listing: its scan says which
        better format was asked and why it was not taken, and the fetch log keeps it."""
        issues = fallback.stayed_issues(poll.probed, self._format_name(poll.ctx, poll.board))
        probed = tuple(row for tried in poll.probed for row in tried.logged())
        return replace(read, issues=(*issues, *read.issues), earlier=(*probed, *read.earlier))

    @staticmethod
    def _format_name(ctx: SourceContext, board: BoardRow) -> str:
        api_base = ctx.platform.api_base_for(ctx.source)
        return fallback.format_of(ctx.platform, board, api_base) or "listing"

    def forced_message(self) -> str:
        """The forced run's message, once its work is done."""
        hosts = {d.host for d in self.deferrals.values()}
        return forced_summary(
            polled=self.stats.boards,
            deferrals=self.deferrals,
            not_claimed=count_not_claimed(self.conn, self.where, self.claimed),
            cooling=cooling_down(self.conn, hosts) if hosts else {},
            now=datetime.now(UTC),
        )

    def _read_page(self, poll: Poll, result: FetchResult) -> None:
        raw = self.archive.save(
            source_id=poll.ctx.name,
            body=result.body,
            url=result.final_url,
            content_type=result.content_type,
            http_status=result.status,
        )
        step = read_page(poll, result, raw)
        if not isinstance(step, FetchRequest):
            self._finish(poll, step)
            return
        prepared = self._prepare(poll, step)
        if isinstance(prepared, Refusal):
            # A page we may not (or cannot yet) read: what was read may add postings,
            # but never retire any.
            why = prepared.reason or "robots.txt not fetched yet"
            poll.issues.append(Issue("robots", f"page {len(poll.raws) + 1}: {why}"))
            self._finish(poll, complete_read(poll, truncated=True))
            return
        self.transports.submit(self.stream, [prepared])


def jitter_up(seconds: float) -> float:
    """Requeued boards spread out over the next minute instead of returning at once."""
    return seconds + random.uniform(0, 60)
