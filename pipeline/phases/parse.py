"""parse: stored raw bytes -> one posting schema, one current result per posting.

Work is every posting whose content raw object has no result yet for the
parser's current name@version, so bumping a version re-parses history from
storage without fetching anything. A posting whose content is its own page is
merged with its listing row (the page wins). A rejected parse is kept with its
issues and never replaces a good current result.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from itertools import groupby

from parsers.common import assess, merge_postings
from parsers.registry import Parser
from parsers.types import DocumentKind, Issue, ParseOutcome, Posting, Quality, RawDocument
from pipeline.app import App
from pipeline.crawl import detail_store, scan_store
from pipeline.db.connect import DictConnection
from pipeline.db.rows import Json, StaleCurrent, Unparsed, fetch_all, fetch_value
from pipeline.errors import RawIntegrityError
from pipeline.lifecycle.identity_store import refresh_identity
from pipeline.normalize import result_store
from pipeline.normalize.hook import normalize_location
from pipeline.normalize.result_store import ResultValue
from pipeline.phases.common import PhaseReport, run_phase
from pipeline.progress import Progress
from pipeline.rawstore import RawArchive
from pipeline.testhooks import kill_point

BATCH = 500


class Documents:
    """Parsed raw objects, each loaded, verified and parsed once per batch."""

    def __init__(self, archive: RawArchive, parser: Parser) -> None:
        self.archive = archive
        self.parser = parser
        self._cache: dict[tuple[str, DocumentKind], ParseOutcome | None] = {}

    def outcome(self, sha256: str, kind: DocumentKind) -> ParseOutcome | None:
        """The parse of a stored object; None when the object is lost or corrupt."""
        key = (sha256, kind)
        if key not in self._cache:
            self._cache[key] = self._parse(sha256, kind)
        return self._cache[key]

    def _parse(self, sha256: str, kind: DocumentKind) -> ParseOutcome | None:
        meta = self.archive.describe(sha256)
        try:
            body = self.archive.load(sha256)
        except RawIntegrityError:
            return None
        assert meta is not None
        doc = RawDocument(
            body=body,
            url=str(meta["url"]),
            kind=kind,
            content_type=meta["content_type"],  # type: ignore[arg-type]
            status=meta["http_status"],  # type: ignore[arg-type]
            fetched_at=meta["fetched_at"],  # type: ignore[arg-type]
        )
        try:
            return self.parser.parse(doc)
        except Exception as exc:  # a parser bug is a recorded rejection, never a stopped phase
            return ParseOutcome.rejected(Issue("parser_error", f"{type(exc).__name__}: {exc}"))

    def board_companies(self) -> dict[str, str]:
        """Listing objects parsed so far whose envelope names the board's owner."""
        return {
            sha256: outcome.board_company
            for (sha256, kind), outcome in self._cache.items()
            if kind is DocumentKind.LISTING and outcome is not None and outcome.board_company
        }

    def clear(self) -> None:
        self._cache.clear()


def record_board_companies(conn: DictConnection, source: str, documents: Documents) -> int:
    """The board names the parsed listings state, onto their boards (`board`), unless
    sources.yaml names the board (`config` wins): how many boards changed."""
    named = documents.board_companies()
    if not named:
        return 0
    with conn.transaction():
        return conn.execute(
            result_store.RECORD_BOARD_COMPANY,
            {"source": source, "shas": list(named), "names": list(named.values())},
        ).rowcount


def _restore_current(conn: DictConnection, source: str, parser: Parser) -> list[int]:
    """Make the existing result for each posting's present content current again."""
    with conn.transaction():
        stale = fetch_all(
            conn,
            StaleCurrent,
            result_store.STALE_CURRENT,
            {"source": source, "name": parser.name, "version": parser.version},
        )
        if stale:
            postings = [row.posting_id for row in stale]
            conn.execute(
                result_store.UNSET_CURRENT_MANY,
                (postings,),
            )
            conn.execute(
                result_store.SET_CURRENT_MANY,
                ([row.result_id for row in stale],),
            )
            refresh_identity(conn, postings)
    return [row.posting_id for row in stale]


def parse_source(
    app: App,
    source_name: str,
    *,
    reparse: bool = False,
    limit: int | None = None,
    wait_s: float = 0.0,
) -> PhaseReport:
    """Parse every posting lacking a result for the current parser version.

    `reparse` also covers closed postings, so a new parser version rewrites all
    of history, not only what is open.
    """
    parser = app.parser_for(source_name)

    def work(run_id: int) -> Mapping[str, Json]:
        tally = _Tally()
        done: list[int] = []
        with (
            app.archive() as archive,
            app.db.connect() as conn,
            Progress(f"parse {source_name}", limit) as progress,
        ):
            restored = _restore_current(conn, source_name, parser)
            documents = Documents(archive, parser)
            while limit is None or len(done) < limit:
                params = {
                    "source": source_name,
                    "all": reparse,
                    "done": done,
                    "name": parser.name,
                    "version": parser.version,
                    "limit": BATCH if limit is None else min(BATCH, limit - len(done)),
                }
                todo = fetch_all(conn, Unparsed, result_store.UNPARSED, params)
                conn.commit()
                if not todo:
                    break
                for _, group in groupby(todo, key=lambda r: r.raw_sha256):
                    rows = list(group)
                    done.extend(r.id for r in rows)
                    _parse_group(conn, parser, documents, rows, tally)
                    kill_point("parse:mid_batch")
                    progress.advance(len(rows))
                tally.boards_named += record_board_companies(conn, source_name, documents)
                documents.clear()
        return {
            "parser": parser.ref,
            "postings": len(done),
            "quality": dict(tally.qualities),
            "raw_lost": tally.raw_lost,
            "duplicates_grouped": tally.grouped,
            "boards_named": tally.boards_named,
            "restored_current": len(restored),
        }

    return run_phase(app.db, "parse", source_name, work, wait_s=wait_s)


@dataclass
class _Tally:
    qualities: Counter[str] = field(default_factory=Counter)
    raw_lost: int = 0
    grouped: int = 0
    boards_named: int = 0


def _parse_group(
    conn: DictConnection,
    parser: Parser,
    documents: Documents,
    rows: list[Unparsed],
    tally: _Tally,
) -> None:
    """The postings of one raw object, in one transaction."""
    with conn.transaction():
        became_current = []
        for row in rows:
            # The company stays the posting's own stated one: a board's name is the
            # board's (crawl.boards.company), joined in when the posting is published.
            picked = posting_for(documents, row)
            if picked is None:
                tally.raw_lost += 1
                _requeue_lost(conn, row)
                continue
            quality, current = store_result(conn, parser, row, *picked)
            tally.qualities[quality] += 1
            if current:
                became_current.append(row.id)
        tally.grouped += refresh_identity(conn, became_current).grouped


def posting_for(
    documents: Documents, row: Unparsed
) -> tuple[Posting | None, Quality, list[Issue]] | None:
    """The posting's parse (merged with its listing row when its content is its own
    page), its quality and issues; None when a raw object it needs is lost."""
    is_detail = row.is_detail
    kind = DocumentKind.DETAIL if is_detail else DocumentKind.LISTING
    outcome = documents.outcome(row.raw_sha256, kind)
    if outcome is None:
        return None
    if outcome.quality is Quality.REJECTED:
        return None, Quality.REJECTED, list(outcome.issues)
    if is_detail:
        # A detail page is about exactly one posting, whatever id the page itself shows.
        posting = outcome.postings[0] if outcome.postings else None
        if posting is not None:
            posting = replace(posting, external_id=row.external_id)
            listing_row = _listing_row(documents, row)
            if listing_row is not None:
                posting = merge_postings(posting, listing_row)
    else:
        posting = outcome.posting(row.external_id)
    if posting is None:
        issue = Issue(
            "posting_not_in_document", "the stored document does not contain this posting"
        )
        return None, Quality.REJECTED, [issue]
    quality, issues = assess(posting)
    return posting, quality, list(issues)


def _listing_row(documents: Documents, row: Unparsed) -> Posting | None:
    if not row.listing_raw_sha256:
        return None
    listing = documents.outcome(row.listing_raw_sha256, DocumentKind.LISTING)
    return listing.posting(row.external_id) if listing is not None else None


def _requeue_lost(conn: DictConnection, row: Unparsed) -> None:
    """A raw object is gone or corrupt: fetch it again rather than guess."""
    if row.is_detail:
        conn.execute(
            detail_store.REQUEUE_DETAIL,
            (row.id,),
        )
    else:
        conn.execute(
            scan_store.FORGET_VALIDATORS,
            (row.board_id,),
        )


def store_result(
    conn: DictConnection,
    parser: Parser,
    row: Unparsed,
    posting: Posting | None,
    quality: Quality,
    issues: list[Issue],
) -> tuple[str, bool]:
    """Insert the result; (quality, whether it became the posting's current result)."""
    values = result_values(posting, _previous_location(conn, row.id) if posting else None)
    values.update(
        posting_id=row.id,
        raw_sha256=row.raw_sha256,
        parser_name=parser.name,
        parser_version=parser.version,
        quality=quality.value,
        issues=json.dumps([i.to_dict() for i in issues]),
    )
    inserted = conn.execute(result_store.INSERT_RESULT, values).fetchone()
    if inserted is not None and quality is not Quality.REJECTED:
        # Unset the old current row before setting the new one: the partial unique
        # index allows one current result per posting at every moment.
        conn.execute(
            result_store.UNSET_CURRENT,
            (row.id,),
        )
        conn.execute(result_store.SET_CURRENT, (inserted["id"],))
        return quality.value, True
    return quality.value, False


_FIELDS = (
    "title", "company", "legal_entity", "department", "url", "apply_url", "location_text", "remote",
    "employment_type", "job_type", "posted_at", "posted_precision", "description_html",
    "description_text",
)  # fmt: skip
_EXTRA = (
    "content_hash", "offices", "location", "salary_raw", "salary_min", "salary_max",
    "salary_currency", "salary_period", "payload",
)  # fmt: skip


def _previous_location(conn: DictConnection, posting_id: int) -> Mapping[str, Json] | None:
    location: Mapping[str, Json] | None = fetch_value(
        conn, result_store.CURRENT_LOCATION, (posting_id,)
    )
    return location


def result_values(
    posting: Posting | None, previous_location: Mapping[str, Json] | None = None
) -> dict[str, ResultValue]:
    if posting is None:
        return dict.fromkeys(_FIELDS + _EXTRA)
    values: dict[str, ResultValue] = {k: getattr(posting, k) for k in _FIELDS}
    salary = posting.salary
    values.update(
        offices=json.dumps([asdict(o) for o in posting.offices], ensure_ascii=False),
        location=json.dumps(normalize_location(posting, previous_location), ensure_ascii=False),
        salary_raw=salary.raw if salary else None,
        salary_min=salary.min if salary else None,
        salary_max=salary.max if salary else None,
        salary_currency=salary.currency if salary else None,
        salary_period=salary.period if salary else None,
        payload=json.dumps(dict(posting.payload), ensure_ascii=False, default=str),
    )
    values["content_hash"] = content_hash(values)
    return values


def content_hash(values: Mapping[str, ResultValue]) -> str:
    """Hash of what the posting says (not where or when we read it)."""
    # A legal entity only where one is named, as Posting.to_dict: the hash of a posting
    # that names none stays what it was before results kept the field.
    blob = json.dumps(
        {
            k: v
            for k, v in sorted(values.items())
            if k != "payload" and not (k == "legal_entity" and v is None)
        },
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(blob.encode()).hexdigest()
