"""The listing reader: one board's pages, the count probe and the validators.

Pure but for the parser call: a response in, and either what the poll learned
(`ListingRead`, nothing written yet) or the next page to ask for. The claim loop
(pipeline.phases.discover) sends the requests; the recorder
(pipeline.phases.recorder) writes what was read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import Any

from parsers.registry import Parser
from parsers.rowfind import SHAPE_ISSUE
from parsers.types import (
    DocumentKind,
    Issue,
    PageSignal,
    ParseOutcome,
    Posting,
    Quality,
    RawDocument,
)
from pipeline.app import App
from pipeline.config import SourceConfig
from pipeline.crawl.http.fetcher import FetchRequest, FetchResult
from pipeline.crawl.pacing import Budget, parse_retry_after
from pipeline.crawl.platforms import Platform, host_of, platform_of
from pipeline.crawl.validation import validate_body
from pipeline.crawl.volatile import body_hash, row_hash
from pipeline.db.rows import BoardRow
from pipeline.rawstore import RawRef
from pipeline.testhooks import kill_point


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
    full_pass_every_s: float  # count-probed boards: a full read at least this often


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
    # Requests of the formats this poll asked before its own (pipeline.phases.fallback:
    # given up on, or a return probe that found no listing), each with the raw object it
    # was stored as and the outcome the fetch log keeps it under.
    earlier: tuple[tuple[FetchResult, str | None, str], ...] = ()

    @property
    def has_listing(self) -> bool:
        """A full listing was read and is the board as it is now."""
        return self.outcome in ("changed", "unchanged") and not self.probe


@dataclass(frozen=True)
class FormatTry:
    """One format a poll asked and gave up on (pipeline.phases.fallback): the evidence a
    switch records."""

    format: str
    url: str
    reason: str
    attempts: tuple[FetchResult, ...]
    raws: tuple[RawRef, ...]
    logged_as: str = "format_unavailable"  # the fetch log's outcome for its requests

    def logged(self) -> tuple[tuple[FetchResult, str | None, str], ...]:
        """Its requests with the raw object each was stored as, for the fetch log."""
        return tuple(
            (a, self.raws[i].sha256 if i < len(self.raws) else None, self.logged_as)
            for i, a in enumerate(self.attempts)
        )


@dataclass
class Poll:
    """One board's poll in progress (a listing may take several pages)."""

    board: BoardRow
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
    # A fallback's poll: the board as claimed (before its format was switched) and the
    # formats given up on, in order (pipeline.phases.fallback.FormatTry).
    original: BoardRow | None = None
    tries: list[FormatTry] = field(default_factory=list)
    # A return probe's poll (`probing`: the board asks its best format, `original` is the
    # board as claimed), and on the poll of the board's own format after it, the better
    # formats the probe asked that gave no listing.
    probing: bool = False
    probed: list[FormatTry] = field(default_factory=list)

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
            scope_hash=self.scope_hash,
            **values,
        )

    @cached_property
    def scope_hash(self) -> str:
        """What a complete scan of the polled board covers (Platform.scope_hash)."""
        return self.ctx.platform.scope_hash(self.board)


@dataclass(frozen=True)
class Refusal:
    """A board not fetched: robots.txt said no (`reason`), or we must ask later."""

    reason: str = ""
    deferred: bool = False
    retry_in_s: float | None = None


def source_context(app: App, source_id: str) -> SourceContext | None:
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
        full_pass_every_s=app.settings.count_probe_full_pass_h * 3600,
    )


def first_request(ctx: SourceContext, board: BoardRow) -> FetchRequest:
    headers: dict[str, str] = {}
    if ctx.platform.conditional:
        if board.etag:
            headers["If-None-Match"] = board.etag
        elif board.last_modified:
            headers["If-Modified-Since"] = board.last_modified
    return ctx.platform.first_request(board, headers)


def single_page(ctx: SourceContext, board: BoardRow) -> bool:
    return ctx.platform.max_pages_for(board) == 1 and not ctx.platform.count_probe


def probe_says_unchanged(ctx: SourceContext, board: BoardRow, first_page: ParseOutcome) -> bool:
    """Platforms without validators: the listing's total, as on the last full pass
    (read within `full_pass_every_s`), is taken as "nothing changed" after one page."""
    if not ctx.platform.count_probe or first_page.total is None:
        return False
    if len(first_page.postings) >= first_page.total:
        # The probe page is the whole listing: read it as the complete scan it is (a
        # swap that keeps the count shows here, and nothing else would show it).
        return False
    if board.pending_absences > 0:
        return False  # postings wait on a complete listing (an absence to count, a reopen)
    if board.body_hash is None:
        # Every complete listing stores its body hash and a probe keeps it, so it is
        # gone only when the validators were forgotten (scan_store.FORGET_VALIDATORS, a
        # lost raw object): a partial listing showed a posting the last complete one
        # lacked, whose absence a count cannot prove. Read the listing in full.
        return False
    if full_pass_due(board.last_full_pass_at, datetime.now(UTC), ctx.full_pass_every_s):
        return False
    return first_page.total == board.item_count


def full_pass_due(last_full_pass_at: datetime | None, now: datetime, every_s: float) -> bool:
    """A count-probed board is read in full when its last full read is this old: a
    count cannot show a removal that an addition balanced, so the age of the last full
    read bounds how long one can hide."""
    return last_full_pass_at is None or now - last_full_pass_at > timedelta(seconds=every_s)


def early_outcome(poll: Poll, result: FetchResult) -> ListingRead | None:
    """The outcome of a response that carries no listing to read, or None if it does."""
    first = len(poll.attempts) == 1
    page = "" if first else f"page {len(poll.attempts)}: "
    if result.status is None:
        return poll.read("failed", page + (result.error or "no response"))
    if result.status == 304 and first and is_conditional(result.request):
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


def is_conditional(request: FetchRequest) -> bool:
    return any(h.lower() in ("if-none-match", "if-modified-since") for h in request.headers)


def parse_page(ctx: SourceContext, result: FetchResult) -> ParseOutcome:
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


def complete_read(poll: Poll, *, truncated: bool) -> ListingRead:
    items = tuple(poll.postings.values())
    total = poll.total
    # Complete means every listed item was read: the listing's own total matches, and
    # no row was dropped as unusable (a listing without a total cannot show a gap).
    # Rows found outside the documented shape (a bare array, another wrapper) are real,
    # but the envelope that says whether more pages follow was not read as documented.
    reshaped = any(issue.code == SHAPE_ISSUE for issue in poll.issues)
    complete = (
        not truncated
        and not reshaped
        and poll.dropped == 0
        and (total is None or total == len(items))
    )
    if poll.dropped:
        poll.issues.append(
            Issue(
                "dropped_items", f"{poll.dropped} listed items were unusable: absences do not count"
            )
        )
    elif reshaped:
        poll.issues.append(
            Issue(
                "undocumented_shape",
                "the listing was read from another shape than its documented one: "
                "absences do not count",
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


def read_page(poll: Poll, result: FetchResult, raw: RawRef) -> ListingRead | FetchRequest:
    """One page read and stored as `raw`: the poll's outcome, or the adapter's next request."""
    ctx, board = poll.ctx, poll.board
    poll.raws.append(raw)
    kill_point("discover:mid_listing")  # test-only: a crash drill's boundary
    poll.pages.append((result.body, result.content_type))
    first_page = len(poll.raws) == 1
    if first_page and single_page(ctx, board) and board.body_hash:
        stripped = body_hash(ctx.platform.volatile, poll.pages)
        if stripped == board.body_hash:
            # Same bytes but for nonces, clocks and relative dates: nothing to parse.
            return poll.read("unchanged", body_hash=stripped, complete=True, **poll.validators())
    parsed = parse_page(ctx, result)
    poll.issues.extend(parsed.issues)
    if parsed.quality is Quality.REJECTED:
        outcome = "blocked" if parsed.signal is PageSignal.BLOCKED else "rejected"
        return poll.read(outcome, f"page {len(poll.raws)} rejected by {ctx.parser.ref}")
    poll.total = ctx.platform.listing_total(poll.total, parsed, len(poll.raws))
    poll.dropped += parsed.dropped
    if first_page and probe_says_unchanged(ctx, board, parsed):
        return poll.read("unchanged", total=parsed.total, probe=True)
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
        return complete_read(poll, truncated=truncated)
    return following
