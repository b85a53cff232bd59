"""discover: poll due boards' listings, store them raw, upsert their postings.

One `discover` call is one worker. It claims due boards from the queue
(pipeline.queue) for a source and/or a lane and polls many at once:

  claim (SKIP LOCKED + lease) -> robots.txt (HTML sites) -> paced conditional GET
  -> validate -> raw object -> [body unchanged after stripping volatile fields? stop]
  -> parse -> [count probe: total as on the last full pass? stop] -> next page ...
  -> record

Recording a board is one transaction: its scan, fetch attempts, postings,
lifecycle evidence and next due time, which also releases its lease. Boards whose
poll wrote no postings (304, unchanged, failures, ...) are recorded many per
statement: the same per-board atomicity with a fraction of the round trips.
A board our own rate limiter could not place goes back in the queue with nothing
recorded at all.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from parsers.registry import Parser
from parsers.types import (
    DocumentKind,
    Issue,
    PageSignal,
    ParseOutcome,
    Posting,
    Quality,
    RawDocument,
)
from pipeline import lifecycle
from pipeline.app import App
from pipeline.config import SourceConfig
from pipeline.db.connect import DictConnection
from pipeline.http.fetcher import FetchRequest, FetchResult, ResultStream
from pipeline.http.transports import Transports, attempt_rows
from pipeline.pacing import Budget, parse_retry_after, slowed
from pipeline.phases.common import PhaseReport, run_phase
from pipeline.platforms import Platform, host_of, platform_of
from pipeline.queue import (
    LEASE_S,
    ClaimFilter,
    LeaseKeeper,
    any_claimable,
    claim,
    new_owner,
    requeue,
)
from pipeline.rawstore import RawRef
from pipeline.rawstore.recovery import recover_and_requeue
from pipeline.schedule import RETRY_SOON_S, BoardState, next_state
from pipeline.testhooks import kill_point
from pipeline.validation import validate_body
from pipeline.volatile import body_hash, row_hash

CLAIM_BATCH = 200
LOW_WATER = CLAIM_BATCH // 2  # claim again when fewer boards than this are in flight
MAX_ISSUES_KEPT = 50
FLUSH_ROWS = 200  # quiet boards recorded per statement
FLUSH_S = 0.5  # ... or after this long, so leases are released promptly
FULL_PASS_EVERY_S = 24 * 3600  # count-probe platforms: a full read at least this often
MAX_IDLE_S = 60.0  # wait at most this long for a spent host budget before ending the run
POSTINGS_WRITTEN = frozenset({"changed"})
CONFIRMS_MEMBERSHIP = frozenset({"not_modified", "unchanged"})


@dataclass(frozen=True)
class SourceContext:
    """What polling one source's boards needs, resolved once per worker."""

    name: str
    source: SourceConfig
    parser: Parser
    platform: Platform
    budget: Budget
    obey_robots: bool
    transport: str


@dataclass(frozen=True)
class ListingRead:
    """Everything one poll of a board learned, before anything is written."""

    outcome: str
    http_status: int | None = None  # the first page's status (404s retire a board)
    attempts: tuple[FetchResult, ...] = ()
    raws: tuple[RawRef, ...] = ()
    postings: tuple[Posting, ...] = ()
    total: int | None = None
    complete: bool = False
    truncated: bool = False
    listing_hash: str | None = None
    body_hash: str | None = None
    error: str | None = None
    issues: tuple[Issue, ...] = ()
    etag: str | None = None
    last_modified: str | None = None
    posting_raws: Mapping[str, str] = field(default_factory=dict)  # external id -> its page's raw
    row_hashes: Mapping[str, str] = field(default_factory=dict)  # external id -> its row's hash
    probe: bool = False  # the count probe ended the poll after the first page
    retry_in_s: float | None = None  # the host (or our limiter) asked us to wait this long
    scope_hash: str | None = None  # what this read covered (URL, page cap, facets)

    @property
    def has_listing(self) -> bool:
        """A full listing was read and is the board as it is now."""
        return self.outcome in ("changed", "unchanged") and not self.probe


@dataclass
class Poll:
    """One board's poll in progress (a listing may take several pages)."""

    board: Mapping[str, Any]
    ctx: SourceContext
    attempts: list[FetchResult] = field(default_factory=list)
    raws: list[RawRef] = field(default_factory=list)
    pages: list[tuple[bytes, str | None]] = field(default_factory=list)
    postings: dict[str, Posting] = field(default_factory=dict)
    posting_raws: dict[str, str] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    total: int | None = None
    dropped: int = 0  # listed items that did not become postings (see ParseOutcome.dropped)
    # The adapter's own request for the page in flight: its tag carries the adapter's
    # paging state (Workday's cursor and facet slices); the engine tags what it sends
    # with this Poll instead.
    adapter_request: FetchRequest | None = None

    def validators(self) -> dict[str, str | None]:
        """The first page's validators, for the next conditional request."""
        headers = self.attempts[0].headers
        return {"etag": headers.get("etag"), "last_modified": headers.get("last-modified")}

    def read(self, outcome: str, error: str | None = None, **values: Any) -> ListingRead:
        first = self.attempts[0] if self.attempts else None
        return ListingRead(
            outcome,
            http_status=first.status if first else None,
            attempts=tuple(self.attempts),
            raws=tuple(self.raws),
            error=error,
            issues=tuple(self.issues),
            **values,
        )


@dataclass
class DiscoverStats:
    boards: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    postings_seen: int = 0
    postings_new: int = 0
    postings_changed: int = 0
    postings_reopened: int = 0
    postings_missing: int = 0
    postings_filtered: int = 0
    new_baselines: int = 0
    suspect_boards: int = 0
    pages: int = 0
    requests: int = 0
    deferred: int = 0  # put back in the queue unpolled by our own limiter
    lease_lost: int = 0  # finished after another worker had taken the board over
    raw_recovered: int = 0
    raw_lost: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "boards": self.boards,
            "pages": self.pages,
            "requests": self.requests,
            "postings_seen": self.postings_seen,
            "postings_new": self.postings_new,
            "postings_changed": self.postings_changed,
            "postings_reopened": self.postings_reopened,
            "postings_missing": self.postings_missing,
            "postings_filtered": self.postings_filtered,
            "new_baselines": self.new_baselines,
            "suspect_boards": self.suspect_boards,
            "deferred": self.deferred,
            "lease_lost": self.lease_lost,
            "raw_recovered": self.raw_recovered,
            "raw_lost": self.raw_lost,
            "outcomes": dict(self.outcomes),
        }


def discover(
    app: App,
    source_name: str | None = None,
    *,
    lane: str | None = None,
    force: bool = False,
    limit: int | None = None,
    wait_s: float = 0.0,
    lease_s: float = LEASE_S,
    max_seconds: float | None = None,
    shared: bool = False,
) -> PhaseReport:
    """Poll due boards of a source and/or a lane (all enabled boards once with `force`).

    By default a run holds the source's advisory lock, so two runs of one source (two
    DAG runs, say) never overlap: the second waits `wait_s`, then skips and says so.
    `shared=True` (and lane-only runs) are cooperating workers instead: many may run
    at once and the queue's leases keep them apart. `limit` caps the boards claimed,
    `max_seconds` the time spent claiming new ones (work in flight finishes).
    """
    if source_name is not None:
        app.sources.get(source_name)  # a clear error for an unknown name
    where = ClaimFilter(source_name, lane, datetime.now(UTC) if force else None)

    def work(run_id: int) -> Mapping[str, Any]:
        with app.db.connect() as conn, conn.transaction():
            orphans = lifecycle.strand_orphans(conn, source_name, run_id=run_id)
        worker = _Worker(app, run_id, where, lease_s=lease_s)
        try:
            stats = worker.run(limit=limit, max_seconds=max_seconds)
        finally:
            worker.close()
        stats.postings_missing += orphans
        result = stats.as_dict()
        if lane:
            result["lane"] = lane
        return result

    label = source_name if source_name or not lane else None
    exclusive = not shared and source_name is not None
    return run_phase(app.db, "discover", label, work, wait_s=wait_s, exclusive=exclusive)


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
        self.contexts: dict[str, SourceContext | None] = {}
        self.quiet: list[tuple[Mapping[str, Any], ListingRead, str]] = []
        self.quiet_since = time.monotonic()
        self.saturated: dict[str, float] = {}  # host -> monotonic time its budget frees up
        self.next_claim_at = 0.0  # no claim before then: only spent hosts have due boards

    def close(self) -> None:
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
                continue
            result = self.stream.next(timeout=FLUSH_S)
            if result is not None:
                self._on_result(result)
            self._flush(force=False)
        self._flush(force=True)
        return self.stats

    def _claim(self, want: int) -> list[dict[str, Any]]:
        now = time.monotonic()
        skip = {host for host, until in self.saturated.items() if until > now}
        boards = claim(
            self.conn, self.owner, self.where, want, lease_s=self.lease_s, skip_hosts=skip
        )
        self.keeper.hold(b["id"] for b in boards)
        return boards

    def _wait_for_saturated(self, deadline: float | None) -> bool:
        """Nothing else is due: if some hosts were only skipped because their budget is
        spent, wait for the first to free up (when nothing is in flight) and go on."""
        now = time.monotonic()
        self.saturated = {h: u for h, u in self.saturated.items() if u > now}
        if not self.saturated or not any_claimable(self.conn, self.where, self.saturated):
            return False
        until = min(self.saturated.values())
        if self.stream.pending:
            self.next_claim_at = until
            return True
        if until - now > MAX_IDLE_S or (deadline is not None and until >= deadline):
            return False  # a later run will find them due; a worker does not idle for long
        self._flush(force=True)
        time.sleep(max(0.0, until - time.monotonic()))
        self.saturated = {h: u for h, u in self.saturated.items() if u > time.monotonic()}
        return True

    # ------------------------------------------------------------ starting polls

    def _context(self, source_id: str) -> SourceContext | None:
        if source_id not in self.contexts:
            self.contexts[source_id] = _source_context(self.app, source_id)
        return self.contexts[source_id]

    def _start(self, boards: list[dict[str, Any]]) -> None:
        requests: list[FetchRequest] = []
        unpolled: dict[int, float] = {}
        for board in boards:
            ctx = self._context(board["source_id"])
            if ctx is None:  # the source left sources.yaml or was disabled since the claim
                unpolled[board["id"]] = RETRY_SOON_S
                continue
            poll = Poll(board, ctx)
            prepared = self._prepare(poll, _first_request(ctx, board))
            if isinstance(prepared, FetchRequest):
                requests.append(prepared)
            elif prepared.deferred:
                unpolled[board["id"]] = max(RETRY_SOON_S, prepared.retry_in_s or 0.0)
            else:
                self._finish(poll, poll.read("disallowed", prepared.reason))
        self._requeue(unpolled)
        self.transports.submit(self.stream, requests)

    def _prepare(self, poll: Poll, request: FetchRequest) -> FetchRequest | _Refusal:
        """The request with its host's budget, or why it may not be sent (robots.txt)."""
        ctx = poll.ctx
        budget, key = ctx.budget, ctx.platform.pacing_key(request.url)
        if ctx.obey_robots:
            verdict = self.transports.robots.check(request.url, budget, key)
            if verdict.deferred_s is not None:
                return _Refusal(deferred=True, retry_in_s=verdict.deferred_s)
            if not verdict.allowed:
                return _Refusal(reason=verdict.reason)
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
            requeue(self.conn, self.owner, {k: _jitter_up(v) for k, v in waits.items()})
            self.keeper.release(waits)
            self.stats.deferred += len(waits)

    # ------------------------------------------------------------ reading a listing

    def _on_result(self, result: FetchResult) -> None:
        poll: Poll = result.request.tag
        if result.deferred:
            self._note_saturated(poll, result)
            if not poll.attempts:
                # Nothing was sent: the board goes back in the queue as if never claimed.
                self._requeue({poll.board["id"]: max(RETRY_SOON_S, result.deferred_s or 0.0)})
                return
            # Pages already read stand: they may add postings, never retire any.
            self._finish(poll, _complete_read(poll, truncated=True))
            return
        poll.attempts.append(result)
        self.stats.requests += 1
        early = _early_outcome(poll, result)
        if early is not None:
            self._finish(poll, early)
            return
        self._read_page(poll, result)

    def _note_saturated(self, poll: Poll, result: FetchResult) -> None:
        host = poll.board["host"]
        until = time.monotonic() + (result.deferred_s or RETRY_SOON_S)
        self.saturated[host] = max(self.saturated.get(host, 0.0), until)

    def _read_page(self, poll: Poll, result: FetchResult) -> None:
        ctx, board = poll.ctx, poll.board
        raw = self.archive.save(
            source_id=ctx.name,
            body=result.body,
            url=result.final_url,
            content_type=result.content_type,
            http_status=result.status,
        )
        poll.raws.append(raw)
        kill_point("discover:mid_listing")
        poll.pages.append((result.body, result.content_type))
        first_page = len(poll.raws) == 1
        if first_page and _single_page(ctx, board) and board["body_hash"]:
            stripped = body_hash(ctx.platform.volatile, poll.pages)
            if stripped == board["body_hash"]:
                # Same bytes but for nonces, clocks and relative dates: nothing to parse.
                same = poll.read(
                    "unchanged", body_hash=stripped, complete=True, **poll.validators()
                )
                self._finish(poll, same)
                return
        parsed = _parse_page(ctx, result)
        poll.issues.extend(parsed.issues)
        if parsed.quality is Quality.REJECTED:
            outcome = "blocked" if parsed.signal is PageSignal.BLOCKED else "rejected"
            error = f"page {len(poll.raws)} rejected by {ctx.parser.ref}"
            self._finish(poll, poll.read(outcome, error))
            return
        poll.total = ctx.platform.listing_total(poll.total, parsed, len(poll.raws))
        poll.dropped += parsed.dropped
        if first_page and _probe_says_unchanged(ctx, board, parsed):
            self._finish(poll, poll.read("unchanged", total=parsed.total, probe=True))
            return
        for posting in parsed.postings:
            if posting.external_id not in poll.postings:
                poll.postings[posting.external_id] = posting
                poll.posting_raws[posting.external_id] = raw.sha256
        asked = poll.adapter_request or result.request
        following = ctx.platform.next_request(board, asked, parsed, len(poll.raws))
        if following is None:
            # The adapter stops either because the listing ended or because a cap was
            # hit (page cap, Workday's 2,000); only the latter leaves postings unread.
            truncated = ctx.platform.truncated(board, asked, parsed, len(poll.raws))
            self._finish(poll, _complete_read(poll, truncated=truncated))
            return
        prepared = self._prepare(poll, following)
        if isinstance(prepared, _Refusal):
            # A page we may not (or cannot yet) read: what was read may add postings,
            # but never retire any.
            why = prepared.reason or "robots.txt not fetched yet"
            poll.issues.append(Issue("robots", f"page {len(poll.raws) + 1}: {why}"))
            self._finish(poll, _complete_read(poll, truncated=True))
            return
        self.transports.submit(self.stream, [prepared])

    # ------------------------------------------------------------ recording

    def _finish(self, poll: Poll, read: ListingRead) -> None:
        board = poll.board
        read = replace(read, scope_hash=poll.ctx.platform.scope_hash(board))
        outcome = read.outcome
        if outcome == "changed" and read.listing_hash == board["listing_hash"]:
            # Same postings and rows in another order (or with volatile fields changed).
            outcome = "unchanged"
        self.stats.boards += 1
        self.stats.outcomes[outcome] += 1
        self.stats.pages += len(read.raws)
        # Validators cleared (a lost raw object, a migration) ask for the listing to be
        # written again even when it is unchanged: postings then point at live objects.
        rewrite = bool(read.postings) and board["body_hash"] is None
        # A repeat of the last complete listing (304, or unchanged) is one more scan
        # without the postings it lacked: those boards take the per-board path.
        absences = (
            outcome in CONFIRMS_MEMBERSHIP
            and read.complete
            and not read.probe
            and board["pending_absences"] > 0
        )
        if outcome in POSTINGS_WRITTEN or rewrite or absences:
            self._record_postings(poll, read, outcome)
        else:
            self.quiet.append((board, read, outcome))
        self._flush(force=False)

    def _flush(self, *, force: bool) -> None:
        if not self.quiet:
            self.quiet_since = time.monotonic()
            return
        if (
            not force
            and len(self.quiet) < FLUSH_ROWS
            and time.monotonic() - self.quiet_since < FLUSH_S
        ):
            return
        rows, self.quiet = self.quiet, []
        self.quiet_since = time.monotonic()
        now = datetime.now(UTC)
        boards = [_board_values(board, read, outcome, now) for board, read, outcome in rows]
        attempts = [_attempt_values(board, read, outcome) for board, read, outcome in rows]
        with self.conn.transaction():
            row = self.conn.execute(
                _RECORD_QUIET,
                {
                    "run_id": self.run_id,
                    "owner": self.owner,
                    **_columns(boards, _QUIET_COLUMNS),
                    **_attempt_columns([a for per in attempts for a in per]),
                },
            ).fetchone()
        assert row is not None
        self.stats.lease_lost += len(rows) - row["released"]
        self.stats.suspect_boards += row["suspect"]
        self.keeper.release(board["id"] for board, _, _ in rows)

    def _record_postings(self, poll: Poll, read: ListingRead, outcome: str) -> None:
        board, ctx = poll.board, poll.ctx
        values = _board_values(board, read, outcome, datetime.now(UTC))
        attempts = _attempt_values(board, read, outcome)
        with self.conn.transaction():
            done = self.conn.execute(_RELEASE_BOARD, {**values, "owner": self.owner}).fetchone()
            released = done is not None
            if released:
                self.stats.suspect_boards += bool(done["suspect_since"])
                scan_id = self._insert_scan(board, read, outcome)
                _insert_attempts(self.conn, self.run_id, attempts)
                if read.postings:
                    self._apply_postings(ctx, board, read, scan_id)
                else:
                    self._confirm_absences(board, read, scan_id)
        if not released:
            # Another worker owns the board now (our lease ran out): its poll counts,
            # ours does not; only the requests we made are recorded.
            self.stats.lease_lost += 1
            with self.conn.transaction():
                _insert_attempts(self.conn, self.run_id, attempts)
        self.keeper.release([board["id"]])

    def _insert_scan(self, board: Mapping[str, Any], read: ListingRead, outcome: str) -> int:
        row = self.conn.execute(
            _INSERT_SCAN, {"run_id": self.run_id, **_scan_values(board, read, outcome)}
        ).fetchone()
        assert row is not None
        return int(row["id"])

    def _apply_postings(
        self, ctx: SourceContext, board: Mapping[str, Any], read: ListingRead, scan_id: int
    ) -> None:
        conn, stats = self.conn, self.stats
        items = {p.external_id: p for p in read.postings}
        existing = {
            row["external_id"]: row
            for row in conn.execute(
                _EXISTING, {"source": ctx.name, "board": board["id"], "ids": list(items)}
            ).fetchall()
        }
        new_rows, changed_rows, seen = [], [], []
        for external_id, posting in items.items():
            detail_url = ctx.platform.detail_url(ctx.source, posting)
            values = {
                "source": ctx.name,
                "external_id": external_id,
                "board": board["id"],
                "url": posting.url,
                "title": posting.title,
                "row_hash": read.row_hashes[external_id],
                "listing_raw": read.posting_raws[external_id],
                # Listings with full content are the content; otherwise the posting's own page is.
                "content_raw": None if detail_url else read.posting_raws[external_id],
                "detail_url": detail_url,
                "detail_state": "needed" if detail_url else "not_needed",
                "scan": scan_id,
            }
            row = existing.get(external_id)
            if row is None:
                new_rows.append(values)
            elif row["row_hash"] != values["row_hash"]:
                changed_rows.append({**values, "id": row["id"]})
            else:
                seen.append({"id": row["id"], "raw": values["listing_raw"]})
        with conn.cursor() as cur:
            if new_rows:
                cur.executemany(_INSERT_POSTING, new_rows)
            if changed_rows:
                cur.executemany(_UPDATE_CHANGED, changed_rows)
            if seen:
                # Point unchanged rows at the newest page that holds them, so a lost old
                # raw object never strands a posting that is still listed.
                cur.execute(_UPDATE_SEEN, _columns(seen, ("id", "raw")) | {"scan": scan_id})
        stats.postings_seen += len(items)
        stats.postings_new += len(new_rows)
        stats.postings_changed += len(changed_rows)
        counts = lifecycle.apply_listing(
            conn,
            lifecycle.ScanFacts(
                source_id=ctx.name,
                board_id=board["id"],
                scan_id=scan_id,
                run_id=self.run_id,
                present={ext: posting.title for ext, posting in items.items()},
                complete=read.complete,
                truncated=read.truncated,
                board_scope_hash=board["scope_hash"],
                scan_scope_hash=read.scope_hash,
                exclude_titles=ctx.source.exclude_titles,
            ),
        )
        stats.postings_reopened += counts.reopened
        stats.postings_missing += counts.missing
        stats.postings_filtered += counts.filtered
        stats.new_baselines += counts.new_baseline

    def _confirm_absences(self, board: Mapping[str, Any], read: ListingRead, scan_id: int) -> None:
        """A 304 (or an unchanged listing) repeats the last complete read: what was there
        is still there, and what was absent is still absent (one more complete scan)."""
        if read.outcome not in CONFIRMS_MEMBERSHIP or not read.complete:
            return
        same_scope = board["scope_hash"] in (None, read.scope_hash)
        self.stats.postings_missing += lifecycle.apply_not_modified(
            self.conn, board["id"], scan_id=scan_id, run_id=self.run_id, count_absences=same_scope
        )


@dataclass(frozen=True)
class _Refusal:
    """A board not fetched: robots.txt said no (`reason`), or we must ask later."""

    reason: str = ""
    deferred: bool = False
    retry_in_s: float | None = None


# ---------------------------------------------------------------- pure helpers


def _source_context(app: App, source_id: str) -> SourceContext | None:
    source = app.sources.sources.get(source_id)
    if source is None or not source.enabled:
        return None
    platform = platform_of(source)
    obey = (source.robots or platform.robots) == "obey"
    return SourceContext(
        name=source_id,
        source=source,
        parser=app.parser_for(source_id),
        platform=platform,
        budget=platform.budget_for(source),
        obey_robots=obey,
        transport=source.transport,
    )


def _first_request(ctx: SourceContext, board: Mapping[str, Any]) -> FetchRequest:
    headers: dict[str, str] = {}
    if ctx.platform.conditional:
        if board["etag"]:
            headers["If-None-Match"] = board["etag"]
        elif board["last_modified"]:
            headers["If-Modified-Since"] = board["last_modified"]
    return ctx.platform.first_request(board, headers)


def _single_page(ctx: SourceContext, board: Mapping[str, Any]) -> bool:
    return ctx.platform.max_pages_for(board) == 1 and not ctx.platform.count_probe


def _probe_says_unchanged(
    ctx: SourceContext, board: Mapping[str, Any], first_page: ParseOutcome
) -> bool:
    """Platforms without validators: the listing's total, as on the last full pass
    (read within the last day), is taken as "nothing changed" after one page."""
    if not ctx.platform.count_probe or first_page.total is None:
        return False
    if board["pending_absences"] > 0:
        return False  # postings wait on a complete listing (an absence to count, a reopen)
    last_full = board["last_full_pass_at"]
    if last_full is None or datetime.now(UTC) - last_full > timedelta(seconds=FULL_PASS_EVERY_S):
        return False
    return first_page.total == board["item_count"]


def _early_outcome(poll: Poll, result: FetchResult) -> ListingRead | None:
    """The outcome of a response that carries no listing to read, or None if it does."""
    first = len(poll.attempts) == 1
    page = "" if first else f"page {len(poll.attempts)}: "
    if result.status is None:
        return poll.read("failed", page + (result.error or "no response"))
    if result.status == 304 and first and _is_conditional(result.request):
        return poll.read("not_modified", complete=True)
    rules = poll.ctx.source.validation
    verdict = validate_body(result, rules, frozenset({host_of(result.request.url)}))
    if verdict.outcome == "blocked":
        # A challenge page is a block whatever its status (Cloudflare answers 403/503).
        return poll.read("blocked", page + (verdict.reason or "blocked"))
    if result.status in (429, 503):
        retry_after = result.headers.get("retry-after")
        return poll.read(
            "rate_limited",
            f"{page}HTTP {result.status}, Retry-After: {retry_after}",
            retry_in_s=parse_retry_after(retry_after),
        )
    if not verdict.ok:
        return poll.read("failed", page + (verdict.reason or "invalid"))
    return None


def _is_conditional(request: FetchRequest) -> bool:
    return any(h.lower() in ("if-none-match", "if-modified-since") for h in request.headers)


def _parse_page(ctx: SourceContext, result: FetchResult) -> ParseOutcome:
    doc = RawDocument(
        body=result.body,
        url=result.final_url,
        kind=DocumentKind.LISTING,
        content_type=result.content_type,
        status=result.status,
        fetched_at=datetime.now(UTC),
    )
    try:
        return ctx.parser.parse(doc)
    except Exception as exc:  # a parser bug must become a recorded rejection, not a crash
        return ParseOutcome.rejected(Issue("parser_error", f"{type(exc).__name__}: {exc}"))


def _complete_read(poll: Poll, *, truncated: bool) -> ListingRead:
    items = tuple(poll.postings.values())
    total = poll.total
    # Complete means every listed item was read: the listing's own total matches, and
    # no row was dropped as unusable (a listing without a total cannot show a gap).
    complete = not truncated and poll.dropped == 0 and (total is None or total == len(items))
    if poll.dropped:
        poll.issues.append(
            Issue(
                "dropped_items", f"{poll.dropped} listed items were unusable: absences do not count"
            )
        )
    elif not complete and not truncated:
        poll.issues.append(
            Issue("total_mismatch", f"listing reports {total} items but {len(items)} were read")
        )
    volatile = poll.ctx.platform.volatile
    rows = {p.external_id: row_hash(volatile, p.payload) for p in items}
    return poll.read(
        "empty" if not items else "changed",
        postings=items,
        total=total,
        complete=complete,
        truncated=truncated,
        listing_hash=listing_hash(poll.ctx.source.platform, rows, total),
        row_hashes=rows,
        body_hash=body_hash(volatile, poll.pages),
        posting_raws=dict(poll.posting_raws),
        **poll.validators(),
    )


def listing_hash(platform: str, row_hashes: Mapping[str, str], total: int | None) -> str:
    """Membership and row content, independent of order: a reshuffled page is unchanged."""
    rows = sorted(row_hashes.items())
    return hashlib.sha256(json.dumps([platform, total, rows]).encode()).hexdigest()


def _jitter_up(seconds: float) -> float:
    """Requeued boards spread out over the next minute instead of returning at once."""
    return seconds + random.uniform(0, 60)


def _board_values(
    board: Mapping[str, Any], read: ListingRead, outcome: str, now: datetime
) -> dict[str, Any]:
    state = BoardState(
        board["interval_s"],
        board["consecutive_failures"],
        board["consecutive_404s"],
        board["state"],
        board["quiet_passes"],
        board["state_reason"],
    )
    nxt = next_state(
        state, outcome, read.http_status, now, jitter=random.random(), retry_in_s=read.retry_in_s
    )
    parsed = read.has_listing and read.listing_hash is not None
    full = read.has_listing and read.complete and not read.truncated
    return {
        "id": board["id"],
        "due_at": nxt.due_at,
        "interval_s": nxt.interval_s,
        "quiet": nxt.quiet_passes,
        "state": nxt.state,
        "reason": nxt.state_reason,
        "failures": nxt.consecutive_failures,
        "not_found": nxt.consecutive_404s,
        # Validators and hashes only from a complete, good listing: an empty, failed or
        # partial answer must never be cached as "the board as it is", or a later 304
        # (or an identical body) would replay it as a complete scan.
        "etag": read.etag if full else board["etag"],
        "last_modified": read.last_modified if full else board["last_modified"],
        "body_hash": read.body_hash if full else board["body_hash"],
        "listing_hash": read.listing_hash if parsed and full else board["listing_hash"],
        "item_count": _item_count(read) if parsed else board["item_count"],
        "changed": outcome == "changed",
        "full_pass": parsed and read.complete,
        **_scan_values(board, read, outcome),
    }


def _item_count(read: ListingRead) -> int:
    """What the count probe compares with: the listing's own total when it states one."""
    return read.total if read.total is not None else len(read.postings)


def _scan_values(board: Mapping[str, Any], read: ListingRead, outcome: str) -> dict[str, Any]:
    return {
        "board_id": board["id"],
        "outcome": outcome,
        "complete": read.complete,
        "truncated": read.truncated,
        "pages": len(read.raws),
        "items": len(read.postings),
        "total": read.total,
        "status": read.http_status,
        "raw": read.raws[0].sha256 if read.raws else None,
        "error": read.error,
        "issues": json.dumps([i.to_dict() for i in read.issues[:MAX_ISSUES_KEPT]]),
        "probe": read.probe,
        "confirm": outcome in CONFIRMS_MEMBERSHIP and not read.probe,
        "scope": read.scope_hash,
    }


def _attempt_values(
    board: Mapping[str, Any], read: ListingRead, outcome: str
) -> list[dict[str, Any]]:
    """Every request the poll made; each page with the raw object it was stored as
    (pages are stored in order until one ends the poll)."""
    rows = []
    for index, attempt in enumerate(read.attempts):
        last = index == len(read.attempts) - 1
        raw = read.raws[index].sha256 if index < len(read.raws) else None
        rows += attempt_rows(
            None, attempt, outcome if last else "ok", board_id=board["id"], raw=raw
        )
    return rows


def _columns(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> dict[str, list[Any]]:
    """Row dicts as one list per column (for unnest)."""
    return {name: [row[name] for row in rows] for name in columns}


def _attempt_columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    return {f"a_{name}": values for name, values in _columns(rows, _ATTEMPT_COLUMNS).items()}


def _insert_attempts(conn: DictConnection, run_id: int, rows: list[dict[str, Any]]) -> None:
    if rows:
        conn.execute(_INSERT_ATTEMPTS, {"run_id": run_id, **_attempt_columns(rows)})


# ---------------------------------------------------------------- SQL

_ATTEMPT_COLUMNS = (
    "board_id", "url", "host", "method", "transport", "status", "outcome", "bytes", "elapsed",
    "raw", "error",
)  # fmt: skip

_ATTEMPTS_FROM = """
SELECT %(run_id)s::bigint, t.* FROM unnest(
    %(a_board_id)s::bigint[], %(a_url)s::text[], %(a_host)s::text[], %(a_method)s::text[],
    %(a_transport)s::text[], %(a_status)s::int[], %(a_outcome)s::text[], %(a_bytes)s::bigint[],
    %(a_elapsed)s::int[], %(a_raw)s::text[], %(a_error)s::text[]) AS t
"""

_ATTEMPT_TARGET = """crawl.fetch_attempts (run_id, board_id, url, host, method, transport,
    http_status, outcome, byte_length, elapsed_ms, raw_sha256, error)"""

_INSERT_ATTEMPTS = f"INSERT INTO {_ATTEMPT_TARGET} {_ATTEMPTS_FROM}"

_QUIET_COLUMNS = (
    "id", "due_at", "interval_s", "quiet", "state", "reason", "failures", "not_found", "etag",
    "last_modified", "body_hash", "listing_hash", "item_count", "changed", "full_pass",
    "outcome", "complete", "truncated", "pages", "items", "total", "status", "raw", "error",
    "issues", "probe", "confirm", "scope",
)  # fmt: skip


# Many boards that wrote no postings, each still atomic: its lease release, next due
# time, scan and (for 304 / unchanged) the confirmation of its postings land together
# in one statement, and a board whose lease another worker took over writes nothing
# but the requests it made.
def _lifecycle_board_set(value: Callable[[str], str]) -> str:
    """Board columns a scan moves for lifecycle: complete empty listings in a row (a
    streak flags the board `suspect` for the operator; nothing is retired) and the
    scope a complete listing covered (a new scope is a new baseline). `value` names
    the scan's input (a column of the batch, or a query parameter)."""
    empty = f"{value('complete')} AND {value('outcome')} = 'empty'"
    listed = f"{value('outcome')} IN ('changed', 'unchanged', 'not_modified')"
    return f"""empty_streak = CASE WHEN {empty} THEN empty_streak + 1
                        WHEN {listed} THEN 0 ELSE empty_streak END,
    suspect_since = CASE
        WHEN {empty} AND empty_streak + 1 >= {lifecycle.EMPTY_SCANS_BEFORE_SUSPECT}
            THEN COALESCE(suspect_since, now())
        WHEN {listed} THEN NULL ELSE suspect_since END,
    scope_hash = CASE WHEN {value("full_pass")} THEN {value("scope")} ELSE scope_hash END"""


_RECORD_QUIET = f"""
WITH input AS (
    SELECT * FROM unnest(
        %(id)s::bigint[], %(due_at)s::timestamptz[], %(interval_s)s::int[], %(quiet)s::int[],
        %(state)s::text[], %(reason)s::text[], %(failures)s::int[], %(not_found)s::int[],
        %(etag)s::text[], %(last_modified)s::text[], %(body_hash)s::text[],
        %(listing_hash)s::text[], %(item_count)s::int[], %(changed)s::bool[],
        %(full_pass)s::bool[], %(outcome)s::text[], %(complete)s::bool[], %(truncated)s::bool[],
        %(pages)s::int[], %(items)s::int[], %(total)s::int[], %(status)s::int[], %(raw)s::text[],
        %(error)s::text[], %(issues)s::text[], %(probe)s::bool[], %(confirm)s::bool[],
        %(scope)s::text[]
    ) AS t(id, due_at, interval_s, quiet, state, reason, failures, not_found, etag,
           last_modified, body_hash, listing_hash, item_count, changed, full_pass, outcome,
           complete, truncated, pages, items, total, status, raw, error, issues, probe, confirm,
           scope)
), released AS (
    UPDATE crawl.boards AS b SET
        lease_owner = NULL, lease_expires_at = NULL, last_polled_at = now(), updated_at = now(),
        due_at = i.due_at, interval_s = i.interval_s, quiet_passes = i.quiet, state = i.state,
        state_reason = i.reason, consecutive_failures = i.failures, consecutive_404s = i.not_found,
        etag = i.etag, last_modified = i.last_modified, body_hash = i.body_hash,
        listing_hash = i.listing_hash, item_count = i.item_count,
        last_changed_at = CASE WHEN i.changed THEN now() ELSE b.last_changed_at END,
        last_full_pass_at = CASE WHEN i.full_pass THEN now() ELSE b.last_full_pass_at END,
        {_lifecycle_board_set(lambda name: f"i.{name}")}
    FROM input AS i
    WHERE b.id = i.id AND b.lease_owner = %(owner)s
    RETURNING b.id, b.suspect_since
), scans AS (
    INSERT INTO crawl.scans (run_id, board_id, outcome, complete, truncated, pages, items_seen,
        total_reported, http_status, raw_sha256, error, issues, probe, scope_hash, finished_at)
    SELECT %(run_id)s, i.id, i.outcome, i.complete, i.truncated, i.pages, i.items, i.total,
        i.status, i.raw, i.error, i.issues::jsonb, i.probe, i.scope, now()
    FROM input AS i JOIN released AS r ON r.id = i.id
    RETURNING id, board_id
), seen AS (
    -- A 304 (or an unchanged body) says the listing is exactly as last read: its
    -- postings are still there.
    UPDATE core.postings AS p SET last_seen_at = now(), last_seen_scan_id = s.id
    FROM scans AS s JOIN input AS i ON i.id = s.board_id
    WHERE i.confirm AND p.board_id = s.board_id AND p.status = 'active' AND p.missing_count = 0
    RETURNING p.id
), attempts AS (
    INSERT INTO {_ATTEMPT_TARGET} {_ATTEMPTS_FROM}
    RETURNING id
)
SELECT (SELECT count(*) FROM released) AS released, (SELECT count(*) FROM seen) AS seen,
       (SELECT count(*) FROM released WHERE suspect_since IS NOT NULL) AS suspect,
       (SELECT count(*) FROM attempts) AS attempts
"""

_RELEASE_BOARD = f"""
UPDATE crawl.boards SET
    lease_owner = NULL, lease_expires_at = NULL, last_polled_at = now(), updated_at = now(),
    due_at = %(due_at)s, interval_s = %(interval_s)s, quiet_passes = %(quiet)s, state = %(state)s,
    state_reason = %(reason)s, consecutive_failures = %(failures)s,
    consecutive_404s = %(not_found)s, etag = %(etag)s, last_modified = %(last_modified)s,
    body_hash = %(body_hash)s, listing_hash = %(listing_hash)s, item_count = %(item_count)s,
    last_changed_at = CASE WHEN %(changed)s THEN now() ELSE last_changed_at END,
    last_full_pass_at = CASE WHEN %(full_pass)s THEN now() ELSE last_full_pass_at END,
    {_lifecycle_board_set(lambda name: f"%({name})s")}
WHERE id = %(id)s AND lease_owner = %(owner)s
RETURNING suspect_since
"""

_INSERT_SCAN = """
INSERT INTO crawl.scans (run_id, board_id, outcome, complete, truncated, pages, items_seen,
    total_reported, http_status, raw_sha256, error, issues, probe, scope_hash, finished_at)
VALUES (%(run_id)s, %(board_id)s, %(outcome)s, %(complete)s, %(truncated)s, %(pages)s, %(items)s,
    %(total)s, %(status)s, %(raw)s, %(error)s, %(issues)s::jsonb, %(probe)s, %(scope)s, now())
RETURNING id
"""

_EXISTING = """
SELECT id, external_id, row_hash, status, missing_count, board_id
FROM core.postings
WHERE source_id = %(source)s AND (board_id = %(board)s OR external_id = ANY(%(ids)s))
"""

_INSERT_POSTING = """
INSERT INTO core.postings (source_id, external_id, board_id, url, title, row_hash,
    listing_raw_sha256, content_raw_sha256, detail_url, detail_state, last_seen_scan_id)
VALUES (%(source)s, %(external_id)s, %(board)s, %(url)s, %(title)s, %(row_hash)s,
    %(listing_raw)s, %(content_raw)s, %(detail_url)s, %(detail_state)s, %(scan)s)
ON CONFLICT (source_id, external_id) DO NOTHING
"""

_UPDATE_CHANGED = """
UPDATE core.postings SET url = %(url)s, title = %(title)s, row_hash = %(row_hash)s,
    board_id = %(board)s, listing_raw_sha256 = %(listing_raw)s,
    content_raw_sha256 = COALESCE(%(content_raw)s, content_raw_sha256),
    detail_url = %(detail_url)s, detail_state = %(detail_state)s, detail_attempts = 0,
    last_seen_at = now(), last_seen_scan_id = %(scan)s, missing_count = 0, updated_at = now()
WHERE id = %(id)s
"""

# An unchanged row keeps its content pointer (so it is not parsed again) unless the
# object it points at is gone: then the fresh listing, same row, replaces it.
_UPDATE_SEEN = """
UPDATE core.postings AS p SET last_seen_at = now(), last_seen_scan_id = %(scan)s,
    missing_count = 0, listing_raw_sha256 = t.raw,
    content_raw_sha256 = CASE
        WHEN p.detail_url IS NULL AND NOT EXISTS (
            SELECT 1 FROM crawl.raw_objects AS r WHERE r.sha256 = p.content_raw_sha256 AND r.state = 'ready')
        THEN t.raw ELSE p.content_raw_sha256 END
FROM unnest(%(id)s::bigint[], %(raw)s::text[]) AS t(id, raw)
WHERE p.id = t.id
"""
