"""Typeahead: the titles, companies, skills and places a typed prefix starts, with how
many published postings name each (serving.web_suggest over serving.suggestions).

The prefix is read as the keys are written (serving.suggestion_keys): folded, split at
ASCII punctuation and spaces, words joined by one space, so "Data-Eng" finds "Data
Engineer" and "pyth" finds "Backend Developer (Python)" (a key starts at each of a
value's first four words). Ranking: the most postings first, at most MAX_PER_KIND of
one kind while others have matches, so a common word does not fill the list with titles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import psycopg

from serving_sync.text import fold

# Rows come as dicts (dict_row), as the web app and the sync open their connections.
DictConnection = psycopg.Connection[dict[str, Any]]

MIN_CHARS = 2
MAX_CHARS = 60
MAX_SUGGESTIONS = 8
MAX_PER_KIND = 4
KINDS = ("title", "company", "skill", "city", "region")
# The filter parameter each kind selects with (a title is searched for as a phrase).
PARAMS = {"title": "q", "company": "company", "skill": "skill", "city": "city", "region": "region"}
SUGGEST_SQL = "SELECT * FROM serving.web_suggest(%s, %s)"
# serving.suggestion_keys' separators: ASCII other than letters and digits.
SEPARATORS = re.compile(r"[\x01-\x2f\x3a-\x60\x7b-\x7f]+")


@dataclass(frozen=True)
class Suggestion:
    kind: str  # one of KINDS
    value: str  # what the filter (or, for a title, the phrase searched) takes
    postings: int

    @property
    def param(self) -> str:
        return PARAMS[self.kind]


def prefix_key(typed: str) -> str:
    """The typed text as a key prefix (may be shorter than MIN_CHARS: nothing to find).
    A trailing separator is kept as one space: "data " has finished its word."""
    folded = SEPARATORS.sub(" ", fold(typed)).lstrip()
    words = folded.split()
    key = " ".join(words)
    if words and folded.endswith(" "):
        key += " "
    return key[:MAX_CHARS]


def ranked(rows: list[tuple[str, str, int]], limit: int = MAX_SUGGESTIONS) -> list[Suggestion]:
    """One suggestion per value, the most postings first (ties: kind order, then value),
    at most MAX_PER_KIND of a kind unless no other kind has more to offer."""
    best: dict[tuple[str, str], int] = {}
    for kind, value, postings in rows:
        best[kind, value] = max(postings, best.get((kind, value), 0))
    order = sorted(best.items(), key=lambda kv: (-kv[1], KINDS.index(kv[0][0]), kv[0][1]))
    chosen: list[Suggestion] = []
    held: list[Suggestion] = []
    per_kind: dict[str, int] = {}
    for (kind, value), postings in order:
        found = Suggestion(kind, value, postings)
        if per_kind.get(kind, 0) < MAX_PER_KIND:
            per_kind[kind] = per_kind.get(kind, 0) + 1
            chosen.append(found)
        else:
            held.append(found)
    if len(chosen) < limit:
        chosen += held[: limit - len(chosen)]
        chosen.sort(key=lambda s: (-s.postings, KINDS.index(s.kind), s.value))
    return chosen[:limit]


def suggest(conn: DictConnection, typed: str, limit: int = MAX_SUGGESTIONS) -> list[Suggestion]:
    key = prefix_key(typed)
    if len(key.strip()) < MIN_CHARS:
        return []
    # One more per kind than a kind can show: a value found under two keys comes twice.
    rows = conn.execute(SUGGEST_SQL, (key, limit + 2)).fetchall()
    return ranked([(r["kind"], r["value"], r["postings"]) for r in rows], limit)


def missing(conn: DictConnection) -> bool:
    """No suggestion while postings are published: the table was added (migration 0019)
    over rows its triggers never saw. Read before a sync writes, which would add some."""
    row = conn.execute(
        "SELECT NOT EXISTS (SELECT 1 FROM serving.suggestions)"
        " AND EXISTS (SELECT 1 FROM serving.jobs) AS missing"
    ).fetchone()
    return bool(row and row["missing"])


def rebuild(conn: DictConnection) -> int:
    """The suggestions counted again from every published posting; returns the rows."""
    row = conn.execute("SELECT serving.rebuild_suggestions() AS written").fetchone()
    return int(row["written"]) if row else 0
