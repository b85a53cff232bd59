"""The one posting schema every parser produces, and the parse outcome around it.

These types are the contract between parsers (pure, no I/O) and the pipeline.
They are frozen: a parse result is a value, computed from bytes, never mutated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal


class Quality(StrEnum):
    ACCEPTED = "accepted"  # every required and expected field present
    PARTIAL = "partial"  # usable, persisted, but with issues (e.g. no description)
    REJECTED = "rejected"  # unusable: nothing is written as a posting, issues are kept


class DocumentKind(StrEnum):
    LISTING = "listing"  # a board / search page: many postings, maybe partial
    DETAIL = "detail"  # one posting's own page or API response


class PageSignal(StrEnum):
    """What a page says about itself, independent of the postings in it."""

    NORMAL = "normal"
    BLOCKED = "blocked"  # a challenge / captcha / bot wall: proves nothing about postings
    CLOSED = "closed"  # the posting's own page says it is gone or filled
    NOT_FOUND = "not_found"  # an error page for a posting that does not exist


DatePrecision = Literal["exact", "day", "unknown"]
Remote = Literal["yes", "hybrid", "unknown"]


@dataclass(frozen=True)
class Issue:
    code: str  # stable machine-readable code, e.g. "missing_title"
    message: str  # what a human needs to fix or judge it
    path: str | None = None  # where in the document (JSON path, selector), when known

    def to_dict(self) -> dict[str, str]:
        out = {"code": self.code, "message": self.message}
        if self.path:
            out["path"] = self.path
        return out


@dataclass(frozen=True)
class RawOffice:
    """One office as the source states it; normalization resolves it later."""

    text: str
    city: str | None = None
    region: str | None = None
    country: str | None = None  # as given by the source (name or code), not yet ISO


@dataclass(frozen=True)
class Salary:
    raw: str
    min: float | None = None
    max: float | None = None
    currency: str | None = None
    period: str | None = None  # year, month, week, day, hour


@dataclass(frozen=True)
class Posting:
    external_id: str
    url: str
    title: str
    company: str | None = None
    department: str | None = None
    location_text: str | None = None
    offices: tuple[RawOffice, ...] = ()
    description_html: str | None = None
    description_text: str | None = None
    employment_type: str | None = None
    posted_at: datetime | None = None
    posted_precision: DatePrecision = "unknown"
    remote: Remote = "unknown"
    salary: Salary | None = None
    apply_url: str | None = None
    job_type: str | None = None  # intern, co-op, new_grad, student, research, or None
    # Offices the source says exist but does not name ("Hà Nội & 2 nơi khác",
    # Workday's "3 Locations"): a count for normalization, never invented places.
    more_offices: int = 0
    # Where the platform serves this posting's own machine-readable record (a detail
    # API), when the listing row is not the whole posting. Crawl metadata, not content.
    detail_url: str | None = None
    # The employing legal entity when the source names one apart from the public
    # brand (Workday's "631 Example Corp_United States"): kept, never shown as company.
    legal_entity: str | None = None
    # The platform's own item, verbatim, so nothing the parser ignored is lost.
    payload: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self, *, payload: bool = True) -> dict[str, Any]:
        """JSON-ready, by the schema's field names (dates as ISO 8601)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "payload" and not payload:
                continue
            if f.name == "legal_entity" and self.legal_entity is None:
                continue  # only sources that name one (Workday) carry the key
            value = getattr(self, f.name)
            if f.name == "offices":
                value = [asdict(o) for o in value]
            elif f.name == "salary":
                value = asdict(value) if value is not None else None
            elif f.name == "payload":
                value = dict(value)
            elif isinstance(value, datetime):
                value = value.isoformat()
            out[f.name] = value
        return out


_POSTING_NAMES = frozenset(f.name for f in fields(Posting))


def posting_of(values: dict[str, Any], *, literal: bool = False) -> Posting:
    """The Posting `Posting(**values)` builds, `values` naming every field (and taken
    over: not to be changed after). The generated __init__ of a frozen dataclass sets
    each of the 21 fields by its own `object.__setattr__` call; parsers build a posting
    for every row of every listing, where those calls cost about as much as the rest of
    a short row's fields together. Equality, hashing and frozenness are the class's.

    `literal`: `values` is a dict display naming every field in the caller's code
    (jsonmap.finish), so the names are not compared again for every row; any test
    of that caller reads every field and would fail on a missing one."""
    if not literal and values.keys() != _POSTING_NAMES:
        missing = sorted(_POSTING_NAMES - values.keys())
        unknown = sorted(values.keys() - _POSTING_NAMES)
        raise TypeError(
            f"posting_of needs every Posting field: missing {missing}, unknown {unknown}"
        )
    posting = object.__new__(Posting)
    object.__setattr__(posting, "__dict__", values)
    return posting


@dataclass(frozen=True)
class RawDocument:
    """Stored bytes plus what we knew when we fetched them."""

    body: bytes
    url: str
    kind: DocumentKind = DocumentKind.LISTING
    content_type: str | None = None
    status: int | None = 200
    fetched_at: datetime | None = None  # lets "posted 3 days ago" become a day-precision date


@dataclass(frozen=True)
class ParseOutcome:
    quality: Quality
    postings: tuple[Posting, ...] = ()
    issues: tuple[Issue, ...] = ()
    signal: PageSignal = PageSignal.NORMAL
    # Listings only: the listing's own count of items, and where the next page is.
    total: int | None = None
    next_page_url: str | None = None
    # What a platform adapter needs from this page to plan the next request
    # (offsets, facet counts); opaque to everything else.
    paging: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    # Items the page lists that did not become postings (rows without id, title or
    # link): a listing that dropped any cannot prove a posting's absence.
    dropped: int = 0
    # Listings only: the board owner's name where the listing states it beside its
    # items (the Workable widget's top-level `name`), for postings that state none.
    board_company: str | None = None

    @classmethod
    def rejected(cls, *issues: Issue, signal: PageSignal = PageSignal.NORMAL) -> ParseOutcome:
        return cls(quality=Quality.REJECTED, issues=tuple(issues), signal=signal)

    def summary(self) -> dict[str, Any]:
        """Everything but the postings, JSON-ready (for CLIs and golden files)."""
        return {
            "quality": self.quality.value,
            "signal": self.signal.value,
            "postings": len(self.postings),
            "total": self.total,
            "next_page_url": self.next_page_url,
            "issues": [i.to_dict() for i in self.issues],
        }

    @property
    def gone(self) -> bool:
        """The page says its posting is closed or does not exist (lifecycle evidence)."""
        return self.signal in (PageSignal.CLOSED, PageSignal.NOT_FOUND)

    def posting(self, external_id: str) -> Posting | None:
        for item in self.postings:
            if item.external_id == external_id:
                return item
        return None
