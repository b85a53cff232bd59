"""Typed rows: what the stores hand the phases, the crawl engine and the lifecycle.

A query's dict row becomes a frozen dataclass here, at the store edge, as
procrastinate builds its job objects: the layers above read attributes, so a
misspelt column fails in mypy rather than at run time, and a row carries only the
columns its readers use. `from_row` takes each field by name and ignores the
other columns (`RETURNING b.*` may grow without breaking anyone); a field the
query does not select is a KeyError at once, not a None later.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import Field, dataclass, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeAlias, TypeVar

from psycopg.abc import Params

from pipeline.db.connect import DictConnection

# What json.dumps writes and a jsonb column holds: run stats, lifecycle evidence.
Json: TypeAlias = "str | int | float | bool | Sequence[Json] | Mapping[str, Json] | None"


class FromRow:
    """Base of the row dataclasses: `Row.from_row(row)` keeps the fields it names."""

    __slots__ = ()
    if TYPE_CHECKING:
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

        def __init__(self, **values: Any) -> None: ...

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Self:
        names = _INIT_FIELDS.get(cls)
        if names is None:  # dataclasses.fields builds its tuple anew on every call
            names = _INIT_FIELDS[cls] = tuple(f.name for f in fields(cls) if f.init)
        return cls(**{name: row[name] for name in names})


# Each row class's init field names, looked up once: a claim builds hundreds of rows.
_INIT_FIELDS: dict[type, tuple[str, ...]] = {}


R = TypeVar("R", bound=FromRow)


def fetch_all(
    conn: DictConnection, kind: type[R], sql: str, params: Params | None = None
) -> list[R]:
    return [kind.from_row(row) for row in conn.execute(sql, params).fetchall()]


def fetch_one(
    conn: DictConnection, kind: type[R], sql: str, params: Params | None = None
) -> R | None:
    row = conn.execute(sql, params).fetchone()
    return kind.from_row(row) if row is not None else None


def fetch_value(conn: DictConnection, sql: str, params: Params | None = None) -> Any:
    """The first column of a statement's one row (None when it returns no row)."""
    row = conn.execute(sql, params).fetchone()
    return next(iter(row.values())) if row else None


# ------------------------------------------------------------------ crawl.boards


@dataclass(frozen=True, slots=True)
class BoardRow(FromRow):
    """A claimed board (crawl.boards, leased to one worker): where its listing is, its
    validators and hashes from the last complete listing, and its schedule."""

    id: int
    source_id: str
    board_key: str
    url: str
    host: str = ""
    format: str | None = None  # the listing format it is read in (NULL: the platform's only one)
    # When that format was last chosen over the better ones (a switch, a return probe,
    # the board's creation): a board in a fallback asks its best one a week after.
    format_chosen_at: datetime | None = None
    etag: str | None = None
    last_modified: str | None = None
    body_hash: str | None = None
    listing_hash: str | None = None
    item_count: int | None = None
    scope_hash: str | None = None
    pending_absences: int = 0
    last_polled_at: datetime | None = None
    last_full_pass_at: datetime | None = None
    # the schedule's inputs (pipeline.crawl.schedule.BoardState)
    state: str = "active"
    state_reason: str | None = None
    interval_s: int = 3600
    quiet_passes: int = 0
    consecutive_failures: int = 0
    consecutive_404s: int = 0
    rate_polls: float = 0.0
    rate_changes: float = 0.0
    rate_seen_s: float = 0.0


@dataclass(frozen=True, slots=True)
class RecordedFormat(FromRow):
    """A board's recorded listing format (crawl.boards.format), as the catalog keeps it."""

    board_key: str
    format: str


# ------------------------------------------------------------------ core.postings


@dataclass(frozen=True, slots=True)
class DueCheck(FromRow):
    """A posting due a direct check (pipeline.lifecycle.check_store.DUE_CHECKS), with
    its board's key and first listing page, where the per-posting endpoints derive from."""

    id: int
    external_id: str
    board_id: int
    url: str
    title: str | None
    status: str
    board_key: str
    board_url: str
    detail_url: str | None = None


@dataclass(frozen=True, slots=True)
class DueDetail(FromRow):
    """A posting whose own page the fetch phase asks for (pipeline.crawl.detail_store)."""

    id: int
    external_id: str
    board_id: int
    detail_url: str
    row_hash: str | None


@dataclass(frozen=True, slots=True)
class Unparsed(FromRow):
    """A posting whose content object has no result for the parser's current version
    (pipeline.normalize.result_store.UNPARSED)."""

    id: int
    external_id: str
    board_id: int
    board_key: str
    raw_sha256: str  # the content object: the posting's own page, or its listing page
    listing_raw_sha256: str | None
    is_detail: bool  # the content is the posting's own page, merged with its listing row


@dataclass(frozen=True, slots=True)
class StaleCurrent(FromRow):
    """A stored result that is the posting's present content again (an edit reverted)."""

    posting_id: int
    result_id: int


@dataclass(frozen=True, slots=True)
class PostingState(FromRow):
    """A posting as the lifecycle rules read it: its status and its absences so far
    (`missing_count = 0`: in its board's last complete listing)."""

    id: int
    external_id: str
    board_id: int
    status: str
    missing_count: int


@dataclass(frozen=True, slots=True)
class ListedPosting(PostingState):
    """A stored posting a listing shows again, with the hash of its listing row
    (pipeline.crawl.posting_store.EXISTING)."""

    row_hash: str | None


@dataclass(frozen=True, slots=True)
class Orphan(FromRow):
    """An active posting of a retired or unconfigured board, just marked `missing`."""

    id: int
    board_id: int
    reason: str  # board_retired | board_disabled
    board_key: str
    state_reason: str | None


# ------------------------------------------------------------------ what a poll's record returns


@dataclass(frozen=True, slots=True)
class QuietRecorded(FromRow):
    """What recording a batch of quiet boards did (pipeline.crawl.scan_store.RECORD_QUIET)."""

    released: int  # boards still leased to us, now recorded and released
    suspect: int  # of those, boards flagged after a streak of empty listings


@dataclass(frozen=True, slots=True)
class Released(FromRow):
    """A board recorded and released (pipeline.crawl.scan_store.RELEASE_BOARD)."""

    suspect_since: datetime | None


@dataclass(frozen=True, slots=True)
class PostingIdentity(FromRow):
    """A posting with its current parse result, as identity keys it
    (pipeline.lifecycle.identity_store._CURRENT)."""

    id: int
    source_id: str
    board_key: str
    platform: str
    company: str | None
    title: str | None
    location: Mapping[str, Json] | str | None  # jsonb (as a mapping, or its JSON text)
    location_text: str | None
    posted_at: datetime | None
    posted_precision: str | None
    content_hash: str | None
    grouped_content_hash: str | None
    description_text: str | None
    duplicate_group: int | None


@dataclass(frozen=True, slots=True)
class DuplicateCandidate(FromRow):
    """An open posting of the same role, whose description may make it a duplicate."""

    id: int
    duplicate_group: int | None
    description_text: str | None


# ------------------------------------------------------------------ crawl.hosts, crawl.robots


@dataclass(frozen=True, slots=True)
class Cooldown(FromRow):
    """A host's shared cooldown: the seconds left (pipeline.crawl.pacing)."""

    cooldown_s: float


@dataclass(frozen=True, slots=True)
class CooldownState(Cooldown):
    """... and how many cooldowns in a row it has had (the next one grows with it)."""

    cooldown_streak: int


@dataclass(frozen=True, slots=True)
class Reservation(CooldownState):
    """What one bucket reservation granted: slots, and the tokens they started from."""

    avail: float
    granted: int


@dataclass(frozen=True, slots=True)
class StoredRobots(FromRow):
    """An origin's cached robots.txt (crawl.robots): its verdict, and the rules' text."""

    verdict: str
    body: str | None
    http_status: int | None
    expires_at: datetime
