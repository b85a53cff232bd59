"""Typo correction of a query against the words the published postings hold (pure).

A plain word of the query (not quoted, not excluded, not the OR operator) of at least
5 letters that no posting has is replaced by the nearest word of the serving lexicon:
within 1 edit up to 8 letters, 2 beyond (an edit: a letter deleted, inserted, replaced,
or two neighbours swapped). Among the nearest, the commoner word wins (the planner's
element statistics), then the first in alphabetical order, so a correction is the same
on every page of a list.

The candidates come from serving.web_spelling: the exact words of `edits1` for short
words (every word one edit away), and for long ones the words sharing their first or
last three letters within two letters of their length (two edits cannot change both
ends of a word of nine letters or more unless both fall at its ends, which this misses).
This module decides; the SQL only looks up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from serving_sync.text import fold

MIN_CHARS = 5
# At most this many words of a query are corrected (serving.web_spelling refuses more,
# and the one-edit variants of 8 letters: 457 words each).
MAX_WORDS = 5
MAX_EDITS = 2500
# Up to this many letters one edit is allowed, beyond it two.
ONE_EDIT_UP_TO = 8
LETTERS = "abcdefghijklmnopqrstuvwxyz"
# Terms as serving.typed_tsquery reads them: an -exclusion or "phrase", or a word.
_TERMS = re.compile(r'-?"[^"]*"|\S+')
_LETTERS_ONLY = re.compile(r"^[a-z]+$")


@dataclass(frozen=True)
class Word:
    """A correctable word: where it stands in the query, as typed, and folded."""

    start: int
    end: int
    typed: str
    folded: str


def allowed_edits(word: str) -> int:
    return 1 if len(word) <= ONE_EDIT_UP_TO else 2


def correctable_words(q: str) -> list[Word]:
    """The plain words of `q` that could be corrected: not quoted, not excluded, not OR,
    letters only once folded, and at least MIN_CHARS long; the first MAX_WORDS of them.
    With unbalanced quotes the query is read literally elsewhere, so nothing is corrected."""
    if q.count('"') % 2 == 1:
        return []
    words = []
    for match in _TERMS.finditer(q):
        term = match.group()
        if term.startswith(('"', "-")) or term.lower() == "or":
            continue
        folded = fold(term)
        if len(folded) >= MIN_CHARS and _LETTERS_ONLY.match(folded):
            words.append(Word(match.start(), match.end(), term, folded))
    return words[:MAX_WORDS]


def edits1(word: str) -> list[str]:
    """Every string of letters one edit from `word` (deleted, swapped, replaced, inserted)."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    found = {left + right[1:] for left, right in splits if right}
    found |= {left + right[1] + right[0] + right[2:] for left, right in splits if len(right) > 1}
    found |= {left + c + right[1:] for left, right in splits if right for c in LETTERS}
    found |= {left + c + right for left, right in splits for c in LETTERS}
    found.discard(word)
    return sorted(found)


def distance(a: str, b: str, limit: int) -> int:
    """The optimal string alignment distance of a and b (deletions, insertions,
    substitutions and swaps of neighbours), or limit + 1 once it must exceed `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] | None = None
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if before is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        before, previous = previous, current
    return min(previous[-1], limit + 1)


def lookup_edits(words: Sequence[Word]) -> list[str]:
    """The exact words to look up: every one-edit variant of the short words."""
    found: set[str] = set()
    for word in words:
        if allowed_edits(word.folded) == 1:
            found.update(edits1(word.folded))
    return sorted(found)


def nearest(word: str, candidates: Mapping[str, float]) -> str | None:
    """The candidate nearest to `word` within its allowed edits: the fewest edits, then
    the commonest (candidates: word -> share of postings), then alphabetical."""
    limit = allowed_edits(word)
    best: tuple[int, float, str] | None = None
    for candidate, share in candidates.items():
        if candidate == word or not _LETTERS_ONLY.match(candidate):
            continue
        edits = distance(word, candidate, limit)
        if edits <= limit:
            key = (edits, -share, candidate)
            best = key if best is None or key < best else best
    return None if best is None else best[2]


def corrected(q: str, words: Iterable[Word], corrections: Mapping[str, str]) -> str:
    """`q` with each corrected word replaced, everything else as typed."""
    out, at = [], 0
    for word in words:
        if word.folded in corrections:
            out += [q[at : word.start], corrections[word.folded]]
            at = word.end
    return "".join([*out, q[at:]])
