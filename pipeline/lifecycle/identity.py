"""Posting identity: the role behind a posting, its openings, and duplicates.

- `repost_key`: the role — employer, normalized title, first office. Reposts of
  the same role share it, so "how often was this role posted this year" is a
  count over postings with the same key.
- `opening_key`: the role plus its publication date. The same role posted again
  next quarter is a new opening (a real vacancy), not a duplicate of the old one.
- `duplicate_group`: postings of the same role on different boards or sources
  whose descriptions are near-identical. Computed incrementally for postings
  whose content changed, never as a full rebuild competing with polling.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pipeline.db.connect import DictConnection

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


def first_office(location: Mapping[str, Any] | None, location_text: str | None) -> str:
    offices = (location or {}).get("offices") or []
    if offices:
        office = offices[0]
        parts = [office.get("city"), office.get("region"), office.get("country")]
        resolved = fold(" ".join(p for p in parts if p))
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


@dataclass(frozen=True)
class IdentityReport:
    keyed: int
    grouped: int


_CURRENT = """
SELECT p.id, p.source_id, p.board_id, p.duplicate_group, p.grouped_content_hash, b.board_key,
       s.platform, r.company, r.title, r.location, r.location_text, r.posted_at,
       r.posted_precision, r.content_hash, r.description_text
FROM core.postings AS p
JOIN crawl.boards AS b ON b.id = p.board_id
JOIN ref.sources AS s ON s.id = p.source_id
JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current
WHERE p.id = ANY(%s)
"""

_CANDIDATES = """
SELECT p.id, p.duplicate_group, r.description_text
FROM core.postings AS p
JOIN core.parse_results AS r ON r.posting_id = p.id AND r.is_current
WHERE p.repost_key = %(key)s AND p.id <> %(id)s AND p.status IN ('active', 'missing')
ORDER BY p.id
LIMIT 200
"""


def _employer(row: Mapping[str, Any]) -> str | None:
    """The parsed company; without one, an ATS board names its employer (one tenant),
    but a job site's board is a search scope of many employers: unknown stays unknown."""
    if row["company"]:
        return str(row["company"])
    if row["platform"] == "html_site":
        return None
    return f"{row['source_id']}:{row['board_key']}"


def refresh_identity(conn: DictConnection, posting_ids: Iterable[int]) -> IdentityReport:
    """Recompute keys and duplicate groups for these postings (whose content changed)."""
    rows = conn.execute(_CURRENT, (list(posting_ids),)).fetchall()
    keyed = grouped = 0
    for row in rows:
        employer = _employer(row)
        location = (
            row["location"]
            if isinstance(row["location"], dict)
            else json.loads(row["location"] or "null")
        )
        role = repost_key(employer, row["title"], first_office(location, row["location_text"]))
        opening = opening_key(role, row["posted_at"], row["posted_precision"])
        conn.execute(
            "UPDATE core.postings SET repost_key = %s, opening_key = %s WHERE id = %s",
            (role, opening, row["id"]),
        )
        keyed += 1
        if role and row["grouped_content_hash"] != row["content_hash"]:
            grouped += _group(conn, row, role)
    return IdentityReport(keyed, grouped)


def _group(conn: DictConnection, row: Mapping[str, Any], role: str) -> int:
    """Join the duplicate group of near-identical postings of the same role."""
    mine = shingles(row["description_text"])
    matches = [
        c
        for c in conn.execute(_CANDIDATES, {"key": role, "id": row["id"]})
        if similarity(mine, shingles(c["description_text"])) >= SIMILAR_DESCRIPTIONS
    ]
    group = None
    if matches:
        ids = [row["id"], *(m["id"] for m in matches)]
        groups = [
            g for g in [row["duplicate_group"], *(m["duplicate_group"] for m in matches)] if g
        ]
        group = min(groups + ids)
        # Merging groups keeps the smallest id, so a group's id is stable as it grows.
        conn.execute(
            "UPDATE core.postings SET duplicate_group = %s WHERE id = ANY(%s) OR duplicate_group = ANY(%s)",
            (group, ids, groups or [0]),
        )
    conn.execute(
        "UPDATE core.postings SET grouped_content_hash = %s WHERE id = %s",
        (row["content_hash"], row["id"]),
    )
    return int(group is not None)


_REPOSTS = """
SELECT count(DISTINCT other.opening_key) AS openings
FROM core.postings AS p
JOIN core.postings AS other ON other.repost_key = p.repost_key
WHERE p.id = %(id)s AND other.first_seen_at >= %(since)s
"""


def openings_since(conn: DictConnection, posting_id: int, since: datetime) -> int:
    """How many distinct openings of this posting's role were first seen since `since`."""
    row = conn.execute(_REPOSTS, {"id": posting_id, "since": since}).fetchone()
    return int(row["openings"]) if row else 0
