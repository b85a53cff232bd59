"""discover: poll each due board's listing, store it raw, upsert its postings.

Per board: claim (SKIP LOCKED + lease) -> conditional GET -> validate -> raw
object -> parse the listing -> one transaction with the scan, the postings, the
lifecycle evidence and the board's next due time (which releases the lease).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
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
from pipeline.http.fetcher import Fetcher, FetchRequest, FetchResult
from pipeline.phases.common import PhaseReport, run_phase
from pipeline.platforms import Platform, host_of, platform_of
from pipeline.rawstore import RawArchive, RawRef
from pipeline.runs import worker_name
from pipeline.schedule import BoardState, next_state
from pipeline.validation import validate_body

CLAIM_BATCH = 100
LEASE_S = 600
MAX_ISSUES_KEPT = 50

_CLAIM_DUE = """
WITH due AS (
    SELECT id FROM crawl.boards
    WHERE source_id = %(source)s AND enabled AND state <> 'retired'
      AND (lease_expires_at IS NULL OR lease_expires_at < now())
      AND (due_at <= now()
           OR (%(force)s AND (last_polled_at IS NULL OR last_polled_at < %(since)s)))
    ORDER BY due_at, id
    LIMIT %(limit)s
    FOR UPDATE SKIP LOCKED
)
UPDATE crawl.boards AS b
SET lease_owner = %(owner)s, lease_expires_at = now() + make_interval(secs => %(lease_s)s)
FROM due WHERE b.id = due.id
RETURNING b.*
"""


@dataclass(frozen=True)
class ListingRead:
    """Everything one poll of a board learned, before anything is written."""

    outcome: str
    http_status: int | None = None
    attempts: tuple[FetchResult, ...] = ()
    raws: tuple[RawRef, ...] = ()
    postings: tuple[Posting, ...] = ()
    total: int | None = None
    complete: bool = False
    truncated: bool = False
    listing_hash: str | None = None
    error: str | None = None
    issues: tuple[Issue, ...] = ()
    etag: str | None = None
    last_modified: str | None = None
    posting_raws: Mapping[str, str] = field(default_factory=dict)  # external id -> its page's raw
    scope_hash: str | None = None


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

    def as_dict(self) -> dict[str, Any]:
        return {
            "boards": self.boards,
            "pages": self.pages,
            "postings_seen": self.postings_seen,
            "postings_new": self.postings_new,
            "postings_changed": self.postings_changed,
            "postings_reopened": self.postings_reopened,
            "postings_missing": self.postings_missing,
            "postings_filtered": self.postings_filtered,
            "new_baselines": self.new_baselines,
            "suspect_boards": self.suspect_boards,
            "outcomes": dict(self.outcomes),
        }


@dataclass
class _Context:
    app: App
    name: str
    source: SourceConfig
    parser: Parser
    run_id: int
    archive: RawArchive
    fetcher: Fetcher
    conn: DictConnection
    stats: DiscoverStats

    platform: Platform


def discover(
    app: App,
    source_name: str,
    *,
    force: bool = False,
    limit: int | None = None,
    wait_s: float = 0.0,
) -> PhaseReport:
    """Poll the source's due boards (all enabled boards once with `force`)."""

    def work(run_id: int) -> Mapping[str, Any]:
        stats = DiscoverStats()
        with app.archive() as archive, app.fetcher() as fetcher, app.db.connect() as conn:
            source = app.sources.get(source_name)
            ctx = _Context(
                app,
                source_name,
                source,
                app.parser_for(source_name),
                run_id,
                archive,
                fetcher,
                conn,
                stats,
                platform_of(source),
            )
            since = datetime.now(UTC)
            remaining = limit
            while remaining is None or remaining > 0:
                batch = _claim(
                    conn,
                    source_name,
                    force=force,
                    since=since,
                    limit=min(CLAIM_BATCH, remaining or CLAIM_BATCH),
                )
                if not batch:
                    break
                _poll_batch(ctx, batch)
                if remaining is not None:
                    remaining -= len(batch)
        return stats.as_dict()

    return run_phase(app.db, "discover", source_name, work, wait_s=wait_s)


def _claim(
    conn: DictConnection, source: str, *, force: bool, since: datetime, limit: int
) -> list[dict[str, Any]]:
    with conn.transaction():
        rows = conn.execute(
            _CLAIM_DUE,
            {
                "source": source,
                "force": force,
                "since": since,
                "limit": limit,
                "owner": worker_name(),
                "lease_s": LEASE_S,
            },
        ).fetchall()
    return list(rows)


def _first_request(ctx: _Context, board: Mapping[str, Any]) -> FetchRequest:
    headers: dict[str, str] = {}
    if ctx.platform.conditional:
        if board["etag"]:
            headers["If-None-Match"] = board["etag"]
        elif board["last_modified"]:
            headers["If-Modified-Since"] = board["last_modified"]
    return ctx.platform.first_request(board, headers)


def _poll_batch(ctx: _Context, boards: list[dict[str, Any]]) -> None:
    requests = [_first_request(ctx, board) for board in boards]
    for first in ctx.fetcher.fetch_all(requests):
        board = first.request.tag
        read = _read_listing(ctx, board, first)
        _record(ctx, board, read)


# ---------------------------------------------------------------- reading a listing


def _read_listing(ctx: _Context, board: Mapping[str, Any], first: FetchResult) -> ListingRead:
    early = _early_outcome(ctx, first)
    if early is not None:
        return early
    attempts = [first]
    raws: list[RawRef] = []
    postings: dict[str, Posting] = {}
    posting_raws: dict[str, str] = {}
    issues: list[Issue] = []
    result, total, pages = first, None, 0
    while True:
        pages += 1
        raw = ctx.archive.save(
            source_id=ctx.name,
            body=result.body,
            url=result.final_url,
            content_type=result.content_type,
            http_status=result.status,
        )
        raws.append(raw)
        parsed = _parse_page(ctx, result)
        issues.extend(parsed.issues)
        if parsed.quality is Quality.REJECTED:
            outcome = "blocked" if parsed.signal is PageSignal.BLOCKED else "rejected"
            return ListingRead(
                outcome,
                result.status,
                tuple(attempts),
                tuple(raws),
                error=f"page {pages} rejected by {ctx.parser.ref}",
                issues=tuple(issues),
            )
        total = ctx.platform.listing_total(total, parsed, pages)
        for posting in parsed.postings:
            if posting.external_id not in postings:
                postings[posting.external_id] = posting
                posting_raws[posting.external_id] = raw.sha256
        following = ctx.platform.next_request(board, result.request, parsed, pages)
        if following is None:
            # The adapter stops either because the listing ended or because a cap was
            # hit; only the latter leaves postings unread.
            truncated = ctx.platform.truncated(board, result.request, parsed, pages)
            return _finish(
                ctx,
                first,
                attempts,
                raws,
                postings,
                posting_raws,
                total,
                issues,
                truncated=truncated,
            )
        result = ctx.fetcher.fetch(following)
        attempts.append(result)
        problem = _early_outcome(ctx, result)
        if problem is not None:
            # A failed page in the middle: what we read may add postings, never retire any.
            return ListingRead(
                problem.outcome,
                result.status,
                tuple(attempts),
                tuple(raws),
                error=f"page {pages + 1}: {problem.error}",
                issues=tuple(issues),
            )


def _finish(
    ctx: _Context,
    first: FetchResult,
    attempts: list[FetchResult],
    raws: list[RawRef],
    postings: dict[str, Posting],
    posting_raws: dict[str, str],
    total: int | None,
    issues: list[Issue],
    *,
    truncated: bool,
) -> ListingRead:
    items = tuple(postings.values())
    complete = not truncated and (total is None or total == len(items))
    if not complete and not truncated:
        issues.append(
            Issue("total_mismatch", f"listing reports {total} items but {len(items)} were read")
        )
    outcome = "empty" if not items else "changed"
    return ListingRead(
        outcome=outcome,
        http_status=first.status,
        attempts=tuple(attempts),
        raws=tuple(raws),
        postings=items,
        total=total,
        complete=complete,
        truncated=truncated,
        listing_hash=listing_hash(ctx.source.platform, items, total),
        issues=tuple(issues),
        etag=first.headers.get("etag"),
        last_modified=first.headers.get("last-modified"),
        posting_raws=posting_raws,
    )


def _early_outcome(ctx: _Context, result: FetchResult) -> ListingRead | None:
    """The outcome of a response that carries no listing to read, or None if it does."""
    if result.status is None:
        return ListingRead("failed", None, (result,), error=result.error)
    if result.status == 304:
        return ListingRead("not_modified", 304, (result,), complete=True)
    if result.status in (429, 503):
        return ListingRead(
            "rate_limited",
            result.status,
            (result,),
            error=f"HTTP {result.status}, Retry-After: {result.headers.get('retry-after')}",
        )
    verdict = validate_body(result, ctx.source.validation, frozenset({host_of(result.request.url)}))
    if not verdict.ok:
        outcome = "blocked" if verdict.outcome == "blocked" else "failed"
        return ListingRead(outcome, result.status, (result,), error=verdict.reason)
    return None


def _parse_page(ctx: _Context, result: FetchResult) -> ParseOutcome:
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


def row_hash(posting: Posting) -> str:
    blob = json.dumps(posting.payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def listing_hash(platform: str, postings: tuple[Posting, ...], total: int | None) -> str:
    """Membership and row content, independent of order: a reshuffled page is unchanged."""
    rows = sorted((p.external_id, row_hash(p)) for p in postings)
    return hashlib.sha256(json.dumps([platform, total, rows]).encode()).hexdigest()


# ---------------------------------------------------------------- writing it down


_INSERT_SCAN = """
INSERT INTO crawl.scans (run_id, board_id, outcome, complete, truncated, pages, items_seen,
    total_reported, http_status, raw_sha256, error, issues, scope_hash, finished_at)
VALUES (%(run_id)s, %(board_id)s, %(outcome)s, %(complete)s, %(truncated)s, %(pages)s, %(items)s,
    %(total)s, %(status)s, %(raw)s, %(error)s, %(issues)s::jsonb, %(scope)s, now())
RETURNING id
"""

_INSERT_ATTEMPT = """
INSERT INTO crawl.fetch_attempts (run_id, board_id, url, host, http_status, outcome, byte_length,
    elapsed_ms, error)
VALUES (%(run_id)s, %(board_id)s, %(url)s, %(host)s, %(status)s, %(outcome)s, %(bytes)s,
    %(elapsed)s, %(error)s)
"""

_UPDATE_BOARD = """
UPDATE crawl.boards SET
    lease_owner = NULL, lease_expires_at = NULL, last_polled_at = now(), updated_at = now(),
    due_at = %(due_at)s, interval_s = %(interval_s)s, state = %(state)s, state_reason = %(state_reason)s,
    consecutive_failures = %(failures)s, consecutive_404s = %(not_found)s,
    etag = %(etag)s, last_modified = %(last_modified)s, body_hash = %(body_hash)s,
    item_count = %(item_count)s,
    scope_hash = CASE WHEN %(complete)s THEN %(scope_hash)s ELSE scope_hash END,
    last_changed_at = CASE WHEN %(changed)s THEN now() ELSE last_changed_at END,
    last_full_pass_at = CASE WHEN %(complete)s THEN now() ELSE last_full_pass_at END
WHERE id = %(id)s AND lease_owner = %(owner)s
"""


def _record(ctx: _Context, board: Mapping[str, Any], read: ListingRead) -> None:
    outcome = read.outcome
    if outcome == "changed" and read.listing_hash == board["body_hash"]:
        outcome = "unchanged"
    stats = ctx.stats
    stats.boards += 1
    stats.outcomes[outcome] += 1
    stats.pages += len(read.raws)
    read = replace(read, scope_hash=ctx.platform.scope_hash(board))
    with ctx.conn.transaction():
        scan_id = _insert_scan(ctx, board, read, outcome)
        _insert_attempts(ctx, board, read, outcome)
        if read.postings:
            _apply_postings(ctx, board, read, scan_id)
        elif outcome == "not_modified":
            _confirm_presence(ctx, board, read, scan_id)
        if read.complete and outcome in ("changed", "unchanged", "empty"):
            # An empty listing cancels the pass (nothing is retired); repeated ones
            # flag the board for the operator.
            stats.suspect_boards += lifecycle.note_listing_size(
                ctx.conn, board["id"], empty=outcome == "empty"
            )
        _update_board(ctx, board, read, outcome)


def _insert_scan(ctx: _Context, board: Mapping[str, Any], read: ListingRead, outcome: str) -> int:
    row = ctx.conn.execute(
        _INSERT_SCAN,
        {
            "run_id": ctx.run_id,
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
            "scope": read.scope_hash,
        },
    ).fetchone()
    assert row is not None
    return int(row["id"])


def _insert_attempts(
    ctx: _Context, board: Mapping[str, Any], read: ListingRead, outcome: str
) -> None:
    rows = [
        {
            "run_id": ctx.run_id,
            "board_id": board["id"],
            "url": a.final_url,
            "host": host_of(a.final_url),
            "status": a.status,
            "outcome": outcome if a is read.attempts[-1] else "ok",
            "bytes": len(a.body),
            "elapsed": a.elapsed_ms,
            "error": a.error,
        }
        for a in read.attempts
    ]
    with ctx.conn.cursor() as cur:
        cur.executemany(_INSERT_ATTEMPT, rows)


def _update_board(ctx: _Context, board: Mapping[str, Any], read: ListingRead, outcome: str) -> None:
    state = BoardState(
        board["interval_s"],
        board["consecutive_failures"],
        board["consecutive_404s"],
        board["state"],
    )
    nxt = next_state(state, outcome, read.http_status, datetime.now(UTC))
    has_listing = outcome in ("changed", "unchanged")
    ctx.conn.execute(
        _UPDATE_BOARD,
        {
            "id": board["id"],
            "owner": board["lease_owner"],
            "due_at": nxt.due_at,
            "interval_s": nxt.interval_s,
            "state": nxt.state,
            "state_reason": nxt.state_reason,
            "failures": nxt.consecutive_failures,
            "not_found": nxt.consecutive_404s,
            # Validators only from a full, good listing: an empty or failed answer must
            # not be cached as "the board as it is".
            "etag": read.etag if has_listing else board["etag"],
            "last_modified": read.last_modified if has_listing else board["last_modified"],
            "body_hash": read.listing_hash if has_listing else board["body_hash"],
            "item_count": len(read.postings) if has_listing else board["item_count"],
            "changed": outcome == "changed",
            "complete": has_listing and read.complete,
            "scope_hash": read.scope_hash,
        },
    )


_EXISTING = """
SELECT id, external_id, row_hash
FROM core.postings
WHERE source_id = %(source)s AND external_id = ANY(%(ids)s)
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


def _apply_postings(
    ctx: _Context, board: Mapping[str, Any], read: ListingRead, scan_id: int
) -> None:
    items = {p.external_id: p for p in read.postings}
    existing = {
        row["external_id"]: row
        for row in ctx.conn.execute(_EXISTING, {"source": ctx.name, "ids": list(items)}).fetchall()
    }
    new_rows, changed_rows, seen_ids = [], [], []
    for external_id, posting in items.items():
        detail_url = ctx.platform.detail_url(ctx.source, posting)
        values = {
            "source": ctx.name,
            "external_id": external_id,
            "board": board["id"],
            "url": posting.url,
            "title": posting.title,
            "row_hash": row_hash(posting),
            "listing_raw": _raw_for(read, posting),
            # Listings with full content are the content; otherwise the posting's own page is.
            "content_raw": None if detail_url else _raw_for(read, posting),
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
            seen_ids.append(row["id"])
    with ctx.conn.cursor() as cur:
        if new_rows:
            cur.executemany(_INSERT_POSTING, new_rows)
        if changed_rows:
            cur.executemany(_UPDATE_CHANGED, changed_rows)
    if seen_ids:
        ctx.conn.execute(
            """UPDATE core.postings SET last_seen_at = now(), last_seen_scan_id = %s, missing_count = 0
               WHERE id = ANY(%s)""",
            (scan_id, seen_ids),
        )
    ctx.stats.postings_seen += len(items)
    ctx.stats.postings_new += len(new_rows)
    ctx.stats.postings_changed += len(changed_rows)
    counts = lifecycle.apply_listing(
        ctx.conn,
        lifecycle.ScanFacts(
            source_id=ctx.name,
            board_id=board["id"],
            scan_id=scan_id,
            run_id=ctx.run_id,
            present={ext: posting.title for ext, posting in items.items()},
            complete=read.complete,
            truncated=read.truncated,
            board_scope_hash=board["scope_hash"],
            scan_scope_hash=read.scope_hash,
            exclude_titles=ctx.source.exclude_titles,
        ),
    )
    ctx.stats.postings_reopened += counts.reopened
    ctx.stats.postings_missing += counts.missing
    ctx.stats.postings_filtered += counts.filtered
    ctx.stats.new_baselines += counts.new_baseline


def _raw_for(read: ListingRead, posting: Posting) -> str:
    """The raw page a posting came from (multi-page listings store one object per page)."""
    return read.posting_raws[posting.external_id]


def _confirm_presence(
    ctx: _Context, board: Mapping[str, Any], read: ListingRead, scan_id: int
) -> None:
    """A 304 says the listing is exactly as last read: what was there is still there,
    and what was absent is still absent (one more complete scan without it)."""
    same_scope = board["scope_hash"] in (None, read.scope_hash)
    ctx.stats.postings_missing += lifecycle.apply_not_modified(
        ctx.conn, board["id"], scan_id=scan_id, run_id=ctx.run_id, count_absences=same_scope
    )
