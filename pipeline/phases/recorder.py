"""The recorder: what one poll read becomes in the database (scans, attempts, postings).

Recording a board is one transaction: its scan, fetch attempts, postings,
lifecycle evidence and next due time, which also releases its lease. Boards whose
poll wrote no postings (304, unchanged, failures, ...) are recorded many per
statement: the same per-board atomicity with a fraction of the round trips.
The values written are built by pure functions below; the statements are in
pipeline.crawl.scan_store and pipeline.crawl.posting_store.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from parsers.types import Posting
from pipeline.crawl import posting_store, scan_store
from pipeline.crawl.http.transports import AttemptValues, attempt_rows
from pipeline.crawl.platforms import Platform
from pipeline.crawl.posting_store import ChangedPosting, PostingValues, SeenPosting
from pipeline.crawl.queue import LeaseKeeper
from pipeline.crawl.scan_store import BoardValues, ScanValues
from pipeline.crawl.schedule import BoardState, next_state
from pipeline.db.connect import DictConnection
from pipeline.db.rows import (
    BoardRow,
    Json,
    ListedPosting,
    QuietRecorded,
    Released,
    fetch_all,
    fetch_one,
    fetch_value,
)
from pipeline.lifecycle import identity_store
from pipeline.lifecycle import store as lifecycle
from pipeline.lifecycle.identity import IdRename, id_renames
from pipeline.lifecycle.rules import outside_last_complete
from pipeline.phases.listing import ListingRead, Poll, SourceContext

MAX_ISSUES_KEPT = 50
FLUSH_ROWS = 200  # quiet boards recorded per statement
FLUSH_S = 0.5  # ... or after this long, so leases are released promptly
POSTINGS_WRITTEN = frozenset({"changed"})
CONFIRMS_MEMBERSHIP = frozenset({"not_modified", "unchanged"})


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
    postings_renamed: int = 0  # stored under the id an earlier parser gave them
    new_baselines: int = 0
    format_switches: int = 0  # boards now read in another format (pipeline.phases.fallback)
    format_returns: int = 0  # boards back in a better format after a return probe
    suspect_boards: int = 0
    pages: int = 0
    requests: int = 0
    deferred: int = 0  # put back in the queue unpolled by our own limiter
    lease_lost: int = 0  # finished after another worker had taken the board over
    raw_recovered: int = 0
    raw_lost: int = 0

    def as_dict(self) -> dict[str, Json]:
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
            "postings_renamed": self.postings_renamed,
            "new_baselines": self.new_baselines,
            "format_switches": self.format_switches,
            "format_returns": self.format_returns,
            "suspect_boards": self.suspect_boards,
            "deferred": self.deferred,
            "lease_lost": self.lease_lost,
            "raw_recovered": self.raw_recovered,
            "raw_lost": self.raw_lost,
            "outcomes": dict(self.outcomes),
        }


class Recorder:
    """Writes finished polls: quiet boards in batches, boards with postings one by one."""

    def __init__(
        self,
        conn: DictConnection,
        run_id: int,
        owner: str,
        keeper: LeaseKeeper,
        stats: DiscoverStats,
    ) -> None:
        self.conn = conn
        self.run_id = run_id
        self.owner = owner
        self.keeper = keeper
        self.stats = stats
        self.quiet: list[tuple[BoardRow, ListingRead, str]] = []
        self.quiet_since = time.monotonic()

    def finish(self, poll: Poll, read: ListingRead) -> None:
        board = poll.board
        if read.scope_hash != poll.scope_hash:  # a read not built by this poll (Poll.read)
            read = replace(read, scope_hash=poll.scope_hash)
        outcome = read.outcome
        if outcome == "changed" and read.listing_hash == board.listing_hash:
            # Same postings and rows in another order (or with volatile fields changed).
            outcome = "unchanged"
        self.stats.boards += 1
        self.stats.outcomes[outcome] += 1
        self.stats.pages += len(read.raws)
        # Validators cleared (a lost raw object, a migration) ask for the listing to be
        # written again even when it is unchanged: postings then point at live objects.
        rewrite = bool(read.postings) and board.body_hash is None
        # A repeat of the last complete listing (304, or unchanged) is one more scan
        # without the postings it lacked: those boards take the per-board path.
        absences = (
            outcome in CONFIRMS_MEMBERSHIP
            and read.complete
            and not read.probe
            and board.pending_absences > 0
        )
        if outcome in POSTINGS_WRITTEN or rewrite or absences:
            self._record_postings(poll, read, outcome)
        else:
            self.quiet.append((board, read, outcome))
        self.flush(force=False)

    def flush(self, *, force: bool) -> None:
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
        boards = [board_values(board, read, outcome, now) for board, read, outcome in rows]
        attempts = [attempt_values(board, read, outcome) for board, read, outcome in rows]
        with self.conn.transaction():
            recorded = fetch_one(
                self.conn,
                QuietRecorded,
                scan_store.RECORD_QUIET,
                {
                    "run_id": self.run_id,
                    "owner": self.owner,
                    "boards": scan_store.as_json(boards),
                    "attempts": scan_store.as_json([a for per in attempts for a in per]),
                },
            )
        assert recorded is not None
        self.stats.lease_lost += len(rows) - recorded.released
        self.stats.suspect_boards += recorded.suspect
        self.keeper.release(board.id for board, _, _ in rows)

    def _record_postings(self, poll: Poll, read: ListingRead, outcome: str) -> None:
        board, ctx = poll.board, poll.ctx
        values = board_values(board, read, outcome, datetime.now(UTC))
        attempts = attempt_values(board, read, outcome)
        with self.conn.transaction():
            done = fetch_one(
                self.conn, Released, scan_store.RELEASE_BOARD, {**values, "owner": self.owner}
            )
            released = done is not None
            if done is not None:
                self.stats.suspect_boards += bool(done.suspect_since)
                scan_id = self._insert_scan(board, read, outcome)
                scan_store.insert_attempts(self.conn, self.run_id, attempts)
                if read.postings:
                    self._apply_postings(ctx, board, read, scan_id)
                else:
                    self._confirm_absences(board, read, scan_id)
        if not released:
            # Another worker owns the board now (our lease ran out): its poll counts,
            # ours does not; only the requests we made are recorded.
            self.stats.lease_lost += 1
            with self.conn.transaction():
                scan_store.insert_attempts(self.conn, self.run_id, attempts)
        self.keeper.release([board.id])

    def _insert_scan(self, board: BoardRow, read: ListingRead, outcome: str) -> int:
        scan_id = fetch_value(
            self.conn,
            scan_store.INSERT_SCAN,
            {"run_id": self.run_id, **scan_values(board, read, outcome)},
        )
        assert scan_id is not None
        return int(scan_id)

    def _apply_postings(
        self, ctx: SourceContext, board: BoardRow, read: ListingRead, scan_id: int
    ) -> None:
        items = {p.external_id: p for p in read.postings}
        listed = fetch_all(
            self.conn,
            ListedPosting,
            posting_store.EXISTING,
            {"source": ctx.name, "board": board.id, "ids": list(items)},
        )
        stored = {row.external_id: row for row in listed}
        existing = self._rename_former_ids(ctx, board, read, stored, scan_id)
        rows = sort_postings(ctx, board, read, scan_id, existing)
        self._upsert_postings(rows, scan_id)
        self.stats.postings_seen += len(items)
        self.stats.postings_new += len(rows.new)
        self.stats.postings_changed += len(rows.changed)
        self._apply_lifecycle(ctx, board, read, scan_id)
        if not becomes_validators(read) and outside_last_complete(existing, items, board.id):
            # The validators still name the last complete listing, but the postings no
            # longer say what it held: a 304 or unchanged body would confirm those shown
            # and never count their absence. The next poll reads the listing in full.
            self.conn.execute(scan_store.FORGET_VALIDATORS, (board.id,))

    def _rename_former_ids(
        self,
        ctx: SourceContext,
        board: BoardRow,
        read: ListingRead,
        existing: Mapping[str, ListedPosting],
        scan_id: int,
    ) -> Mapping[str, ListedPosting]:
        """A posting stored under the id an earlier parser gave its row takes the id the
        row has now, before the upsert, so the job stays one posting with its history
        rather than a new one beside an old one that never closes. Returns `existing`
        as the upsert must see it."""
        former = former_ids(ctx.platform, read.postings)
        listed = {p.external_id for p in read.postings}
        renames = id_renames(former, listed, existing, board.id)
        if not renames:
            return existing
        done = identity_store.rename_postings(
            self.conn, renames, ctx.parser.ref, run_id=self.run_id, scan_id=scan_id
        )
        self.stats.postings_renamed += len(done)
        return with_renames(existing, done)

    def _upsert_postings(self, rows: PostingRows, scan_id: int) -> None:
        with self.conn.cursor() as cur:
            if rows.new:
                cur.executemany(posting_store.INSERT_POSTING, rows.new)
            if rows.changed:
                cur.executemany(posting_store.UPDATE_CHANGED, rows.changed)
            if rows.seen:
                # Point unchanged rows at the newest page that holds them, so a lost old
                # raw object never strands a posting that is still listed.
                seen = scan_store.as_columns(rows.seen, ("id", "raw")) | {"scan": scan_id}
                cur.execute(posting_store.UPDATE_SEEN, seen)

    def _apply_lifecycle(
        self, ctx: SourceContext, board: BoardRow, read: ListingRead, scan_id: int
    ) -> None:
        counts = lifecycle.apply_listing(
            self.conn,
            lifecycle.ScanFacts(
                source_id=ctx.name,
                board_id=board.id,
                scan_id=scan_id,
                run_id=self.run_id,
                present={p.external_id: p.title for p in read.postings},
                complete=read.complete,
                truncated=read.truncated,
                board_scope_hash=board.scope_hash,
                scan_scope_hash=read.scope_hash,
                exclude_titles=ctx.source.exclude_titles,
            ),
        )
        self.stats.postings_reopened += counts.reopened
        self.stats.postings_missing += counts.missing
        self.stats.postings_filtered += counts.filtered
        self.stats.new_baselines += counts.new_baseline

    def _confirm_absences(self, board: BoardRow, read: ListingRead, scan_id: int) -> None:
        """A 304 (or an unchanged listing) repeats the last complete read: what was there
        is still there, and what was absent is still absent (one more complete scan)."""
        if read.outcome not in CONFIRMS_MEMBERSHIP or not read.complete:
            return
        same_scope = board.scope_hash in (None, read.scope_hash)
        self.stats.postings_missing += lifecycle.apply_not_modified(
            self.conn, board.id, scan_id=scan_id, run_id=self.run_id, count_absences=same_scope
        )


def board_state(board: BoardRow) -> BoardState:
    """The schedule's view of a claimed board row, with its stored change-rate evidence."""
    return BoardState(
        board.interval_s,
        board.consecutive_failures,
        board.consecutive_404s,
        board.state,
        board.quiet_passes,
        board.state_reason,
        board.rate_polls,
        board.rate_changes,
        board.rate_seen_s,
    )


def board_values(board: BoardRow, read: ListingRead, outcome: str, now: datetime) -> BoardValues:
    last = board.last_polled_at
    nxt = next_state(
        board_state(board),
        outcome,
        read.http_status,
        now,
        jitter=random.random(),
        retry_in_s=read.retry_in_s,
        elapsed_s=(now - last).total_seconds() if last else None,
    )
    parsed = read.has_listing and read.listing_hash is not None
    full = becomes_validators(read)
    return {
        "id": board.id,
        "due_at": nxt.due_at,
        "interval_s": nxt.interval_s,
        "quiet": nxt.quiet_passes,
        "state": nxt.state,
        "reason": nxt.state_reason,
        "failures": nxt.consecutive_failures,
        "not_found": nxt.consecutive_404s,
        "rate_polls": nxt.rate_polls,
        "rate_changes": nxt.rate_changes,
        "rate_seen_s": nxt.rate_seen_s,
        # Validators and hashes only from a complete, good listing: an empty, failed or
        # partial answer must never be cached as "the board as it is", or a later 304
        # (or an identical body) would replay it as a complete scan.
        "etag": read.etag if full else board.etag,
        "last_modified": read.last_modified if full else board.last_modified,
        "body_hash": read.body_hash if full else board.body_hash,
        "listing_hash": read.listing_hash if parsed and full else board.listing_hash,
        "item_count": item_count(read) if parsed else board.item_count,
        "changed": outcome == "changed",
        "full_pass": parsed and read.complete,
        **scan_values(board, read, outcome),
    }


def becomes_validators(read: ListingRead) -> bool:
    """Only a complete, untruncated listing is "the board as it is" (its last complete
    listing): the one a later 304 or identical body repeats."""
    return read.has_listing and read.complete and not read.truncated


def item_count(read: ListingRead) -> int:
    """What the count probe compares with: the listing's own total when it states one."""
    return read.total if read.total is not None else len(read.postings)


def scan_values(board: BoardRow, read: ListingRead, outcome: str) -> ScanValues:
    return {
        "board_id": board.id,
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


def attempt_values(board: BoardRow, read: ListingRead, outcome: str) -> list[AttemptValues]:
    """Every request the poll made; each page with the raw object it was stored as
    (pages are stored in order until one ends the poll)."""
    rows: list[AttemptValues] = []
    for attempt, raw_sha, logged_as in read.earlier:
        rows += attempt_rows(None, attempt, logged_as, board_id=board.id, raw=raw_sha)
    for index, attempt in enumerate(read.attempts):
        last = index == len(read.attempts) - 1
        raw = read.raws[index].sha256 if index < len(read.raws) else None
        rows += attempt_rows(None, attempt, outcome if last else "ok", board_id=board.id, raw=raw)
    return rows


@dataclass(frozen=True)
class PostingRows:
    """A listing's postings sorted against what is stored: new, changed (row hash), seen."""

    new: list[PostingValues]
    changed: list[ChangedPosting]
    seen: list[SeenPosting]


def posting_values(
    ctx: SourceContext, board: BoardRow, read: ListingRead, scan_id: int, listed: Posting
) -> PostingValues:
    external_id = listed.external_id
    # Parser-built public URLs move onto the source's configured public host.
    posting = ctx.platform.public_posting(ctx.source, board.board_key, listed)
    detail_url = ctx.platform.detail_url(ctx.source, posting)
    return {
        "source": ctx.name,
        "external_id": external_id,
        "board": board.id,
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


def former_ids(platform: Platform, postings: Iterable[Posting]) -> dict[str, str]:
    """Listed id -> the id an earlier version of the parser gave the same row, for the
    rows whose platform knows one."""
    found = {}
    for posting in postings:
        former = platform.former_external_id(posting)
        if former is not None and former != posting.external_id:
            found[posting.external_id] = former
    return found


def with_renames(
    existing: Mapping[str, ListedPosting], renames: Iterable[IdRename]
) -> dict[str, ListedPosting]:
    """The stored rows by id, as they are once these renames are made."""
    rows = dict(existing)
    for rename in renames:
        row = rows.pop(rename.from_id)
        rows[rename.to_id] = replace(row, external_id=rename.to_id)
    return rows


def sort_postings(
    ctx: SourceContext,
    board: BoardRow,
    read: ListingRead,
    scan_id: int,
    existing: Mapping[str, ListedPosting],
) -> PostingRows:
    rows = PostingRows([], [], [])
    for posting in {p.external_id: p for p in read.postings}.values():
        values = posting_values(ctx, board, read, scan_id, posting)
        row = existing.get(posting.external_id)
        if row is None:
            rows.new.append(values)
        elif row.row_hash != values["row_hash"]:
            rows.changed.append({**values, "id": row.id})
        else:
            rows.seen.append({"id": row.id, "raw": values["listing_raw"]})
    return rows
