"""Posting identity: the role behind a posting, its openings, and duplicates.

- `repost_key`: the role — employer, normalized title, first office. Reposts of
  the same role share it, so "how often was this role posted this year" is a
  count over postings with the same key.
- `opening_key`: the role plus its publication date. The same role posted again
  next quarter is a new opening (a real vacancy), not a duplicate of the old one.
- `duplicate_group`: postings of the same role on different boards or sources
  whose descriptions are near-identical. Computed incrementally for postings
  whose content changed, never as a full rebuild competing with polling.
- `id_renames`: a stored posting whose listing row a newer parser names by another
  id (Workday: "R12345-1" is now "R12345") keeps its row, renamed, rather than
  the same job being stored twice.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pipeline.lifecycle.rules import PostingEvent

# The rows the keys are computed from, for the type checker only: pure rules never
# load a database module (tests/architecture/contracts.py).
if TYPE_CHECKING:
    from pipeline.db.rows import DuplicateCandidate, Json, PostingIdentity, PostingState


SIMILAR_DESCRIPTIONS = 0.85  # Jaccard similarity of word 5-shingles
_SHINGLE = 5

_LEGAL_SUFFIXES = re.compile(
    r"\b(inc|incorporated|llc|ltd|limited|gmbh|ag|sa|sas|bv|nv|plc|corp|corporation|co|company|"
    r"pte|pty|srl|spa|oy|ab|as|kk|jsc|tnhh|cổ phần|cong ty|công ty)\b\.?",
    re.IGNORECASE,
)
_BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_REQ_ID = re.compile(r"\b(?:req|job|r)[- ]?(?:id)?[-# ]?\d{3,}\b|\b\d{5,}\b", re.IGNORECASE)


def fold(text: str | None) -> str:
    if not text:
        return ""
    text = text.replace("đ", "d").replace("Đ", "D")
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    return " ".join(re.sub(r"[^\w]+", " ", plain).split())


def normalize_employer(name: str | None) -> str:
    return fold(_LEGAL_SUFFIXES.sub(" ", name or ""))


def normalize_title(title: str | None) -> str:
    """Lowercase, no diacritics, no bracketed notes or requisition numbers, no trailing
    location after a dash. Seniority words stay: a senior role is another role."""
    text = _BRACKETS.sub(" ", title or "")
    text = _REQ_ID.sub(" ", text)
    text = re.split(r"\s[-–—|]\s", text)[0]
    return fold(text)


def first_office(location: Mapping[str, Json] | None, location_text: str | None) -> str:
    offices = (location or {}).get("offices")
    office = offices[0] if isinstance(offices, Sequence) and offices else None
    if isinstance(office, Mapping):
        parts = [office.get("city"), office.get("region"), office.get("country")]
        resolved = fold(" ".join(p for p in parts if isinstance(p, str) and p))
        if resolved:
            return resolved
    text = (location_text or "").split(";")[0].split("|")[0]
    return fold(text)


def repost_key(employer: str | None, title: str | None, office: str) -> str | None:
    employer_norm, title_norm = normalize_employer(employer), normalize_title(title)
    if not employer_norm or not title_norm:
        return None  # unknown stays unknown: no key rather than a key that merges strangers
    return hashlib.sha1(f"{employer_norm}|{title_norm}|{office}".encode()).hexdigest()


def opening_key(role: str | None, posted_at: datetime | None, precision: str | None) -> str | None:
    if role is None:
        return None
    day = posted_at.date().isoformat() if posted_at and precision in ("exact", "day") else "undated"
    return hashlib.sha1(f"{role}|{day}".encode()).hexdigest()


def shingles(text: str | None) -> frozenset[int]:
    words = fold(text).split()
    if len(words) < _SHINGLE:
        return frozenset([hash(" ".join(words))]) if words else frozenset()
    return frozenset(
        int.from_bytes(
            hashlib.blake2b(" ".join(words[i : i + _SHINGLE]).encode(), digest_size=8).digest(),
            "big",
        )
        for i in range(len(words) - _SHINGLE + 1)
    )


def similarity(a: frozenset[int], b: frozenset[int]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def employer_of(posting: PostingIdentity) -> str | None:
    """The parsed company; without one, an ATS board names its employer (one tenant),
    but a job site's board is a search scope of many employers: unknown stays unknown."""
    if posting.company:
        return posting.company
    if posting.platform == "html_site":
        return None
    return f"{posting.source_id}:{posting.board_key}"


def posting_keys(posting: PostingIdentity) -> tuple[str | None, str | None]:
    """(repost key, opening key) of a posting from its current parse result."""
    stored = posting.location
    location = json.loads(stored or "null") if isinstance(stored, str) or stored is None else stored
    office = first_office(location, posting.location_text)
    role = repost_key(employer_of(posting), posting.title, office)
    return role, opening_key(role, posting.posted_at, posting.posted_precision)


def merged_group(
    posting_id: int, group: int | None, matches: Iterable[DuplicateCandidate]
) -> tuple[int, list[int], list[int]]:
    """The group a posting joins with its near-duplicates: (group id, posting ids, groups
    merged). Merging keeps the smallest id, so a group's id is stable as it grows."""
    found = list(matches)
    ids = [posting_id, *(m.id for m in found)]
    groups = [g for g in [group, *(m.duplicate_group for m in found)] if g]
    return min(groups + ids), ids, groups


@dataclass(frozen=True)
class IdRename:
    """A stored posting (under its former id) that takes the id its listing row now has."""

    posting: PostingState
    to_id: str

    @property
    def from_id(self) -> str:
        return self.posting.external_id


def is_repost_suffixed(former_id: str, external_id: str) -> bool:
    """Whether `former_id` is `external_id` plus a repost suffix ("R12345-1", "R12345")."""
    return re.fullmatch(re.escape(external_id) + r"-\d+", former_id) is not None


def id_renames(
    former_ids: Mapping[str, str],
    listed: Collection[str],
    stored: Mapping[str, PostingState],
    board_id: int,
) -> list[IdRename]:
    """The stored postings a listing renames: `former_ids` maps a listed id to the id an
    earlier parser gave the same row (the platform knows it, pipeline.crawl.platforms),
    `listed` is every id the listing shows, `stored` the source's rows under those ids
    and the board's rows, before the listing is written.

    Only the exact repost relation counts (stored "X-N", listed "X"), only on the same
    board, and never when "X" is stored too or "X-N" is itself listed: then there are
    two postings, or the evidence is not one row's, and the lifecycle handles them."""
    renames = []
    for external_id, former_id in sorted(former_ids.items()):
        row = stored.get(former_id)
        if (
            row is not None
            and row.board_id == board_id
            and external_id not in stored
            and former_id not in listed
            and is_repost_suffixed(former_id, external_id)
        ):
            renames.append(IdRename(row, external_id))
    return renames


def rename_event(rename: IdRename, parser_ref: str, *, run_id: int, scan_id: int) -> PostingEvent:
    """The record of a rename: the status stays, the evidence names both ids and the parser."""
    status = rename.posting.status
    note = f"external id renamed from {rename.from_id} to {rename.to_id} by parser {parser_ref}"
    evidence = {"from": rename.from_id, "to": rename.to_id, "parser": parser_ref, "note": note}
    return PostingEvent(
        rename.posting.id, status, status, "external_id_renamed", evidence, run_id, scan_id
    )
