"""Splitting a location string into segments, parts and tokens.

- A *segment* is one or more offices that share nothing: text between `;`,
  `|`, newlines, " / " and " or ". Evidence never crosses a segment.
- A *part* is text between commas, brackets and other soft separators
  ("San Jose", "CA"). A place name never spans two parts, except across a
  spaced dash ("Bà Rịa - Vũng Tàu"), which also separates Workday's levels.
- Counted offices ("2 Locations", "Hà Nội & 2 nơi khác", "+3 more") are cut
  out first and reported as offices still to find.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import NamedTuple

from .text import fold_word

# Longer text is not read; what was cut is reported as unresolved, because a
# place in it could be anywhere.
MAX_CHARS = 1000

_NUMBER = r"(\d{1,3})"
_COUNT_PATTERNS: tuple[tuple[re.Pattern[str], int | None], ...] = (
    (
        re.compile(
            r"(?:&|\+|\band\b|\bvà\b)?\s*" + _NUMBER + r"\s*\+?\s*"
            r"(?:more\s+|other\s+|additional\s+)?"
            r"(?:locations?|offices?|sites?|places|cities|countries|nơi\s+khác|địa\s+điểm)\b",
            re.IGNORECASE,
        ),
        None,
    ),
    (re.compile(r"\+\s*" + _NUMBER + r"(?:\s*(?:more|others?)\b)?", re.IGNORECASE), None),
    (re.compile(r"\b(?:and\s+)?" + _NUMBER + r"\s+(?:more|others)\b", re.IGNORECASE), None),
    (
        re.compile(
            r"\b(?:multiple|various|several|many)\s+(?:locations?|offices?|sites?|cities)\b",
            re.IGNORECASE,
        ),
        2,
    ),
    (re.compile(r"\bother\s+(?:locations?|offices?|sites?|cities)\b", re.IGNORECASE), 1),
    (re.compile(r"(?:^|(?<=[\s,;|-]))others?\s*$", re.IGNORECASE), 1),
)
# " or " only in lower or title case: "OR" in capitals is Oregon. A lone
# lower-case "l" is a typed stand-in for "|" ("Amsterdam l Remote").
_SEGMENT_SPLIT = re.compile(r"\s*(?:[;|\n\r\t•]+|\s/\s|\s+(?:or|Or|hoặc|l)\s+)\s*")
# (the text before a word, the word): words keep inner periods and apostrophes
# ("St.", "D.C.", "TP.HCM", "Xi'an").
_GAP_WORD = re.compile(r"([\W_]*?)([^\W_]+(?:[.'’][^\W_]+)*\.?)")
_SOFT_SEPARATORS = frozenset(',()[]{}:/\\·"“”«»!?*=<>')
_DASHES = frozenset("-‐‑‒–—")


class Token(NamedTuple):
    text: str  # as written (codes such as "CA" count only in capitals)
    key: str  # folded
    part: int  # which part of the segment the token is in
    joined: bool  # a place name may run on from the previous token into this one
    code: str = ""  # the token in capitals without periods ("D.C." -> "DC"), else ""
    digit: bool = False  # has a digit: a street number, postcode or unit, never a place


@dataclass(frozen=True, slots=True)
class SplitText:
    segments: tuple[tuple[Token, ...], ...]  # the tokens of each segment
    more_offices: int
    counted: tuple[str, ...]  # the phrases that counted offices, as written
    cut: str | None  # text beyond MAX_CHARS, not read


# Workday's dotted form "USA.VA.Reston" (country.state.city): the dots separate levels
# like the hyphens of "US-CA-San Francisco". Two or three capitals per code, and a
# name after them, so "D.C.", "U.S.A." and "TP.HCM" stay words.
_DOTTED_CODES = re.compile(r"\b([A-Z]{2,3})\.([A-Z]{2,3})\.(?=[A-Z][a-z])")
# Letters only Vietnamese writes (horns, breves, đ, dots below, hooks above): a word
# with one is Vietnamese, whatever else the string holds.
VIETNAMESE_LETTERS = frozenset(
    "ăắằẳẵặâấầẩẫậđêếềểễệôốồổỗộơớờởỡợưứừửữựạảẹẻẽỉịọỏụủỳỵỷỹ"
    "ĂẮẰẲẴẶÂẤẦẨẪẬĐÊẾỀỂỄỆÔỐỒỔỖỘƠỚỜỞỠỢƯỨỪỬỮỰẠẢẸẺẼỈỊỌỎỤỦỲỴỶỸ"
) - frozenset("âêôÂÊÔ")  # also French and Portuguese


def is_vietnamese(word: str) -> bool:
    return not word.isascii() and not VIETNAMESE_LETTERS.isdisjoint(word)


def split_text(raw: str) -> SplitText:
    text = unicodedata.normalize("NFC", raw)
    if "." in text:
        text = _DOTTED_CODES.sub(r"\1-\2-", text)
    cut = None
    if len(text) > MAX_CHARS:
        cut = text[MAX_CHARS:].strip()
        text = text[:MAX_CHARS]
    text, more, counted = _cut_counts(text)
    segments = [tokens for piece in _SEGMENT_SPLIT.split(text) if (tokens := tokenize(piece))]
    return SplitText(tuple(segments), more, tuple(counted), cut or None)


# Cheap test first: most strings count nothing, and street numbers or
# postcodes alone are no count.
# Cheap tests first: most strings count nothing, and a postcode or a street
# number alone is no count.
_COUNT_DIGITS = re.compile(r"\d\s*\+?\s*[^\W\d_]|\+\s*\d")


def _may_count(text: str) -> bool:
    if _COUNT_DIGITS.search(text):
        return True
    low = text.lower()
    return (
        "other" in low
        or "multiple" in low
        or "various" in low
        or "several" in low
        or ("many" in low)
    )


def _cut_counts(text: str) -> tuple[str, int, list[str]]:
    more = 0
    counted: list[str] = []
    if not _may_count(text):
        return text, more, counted
    for pattern, fixed in _COUNT_PATTERNS:
        if not pattern.search(text):
            continue
        for match in pattern.finditer(text):
            number = fixed if fixed is not None else int(match.group(1))
            if number <= 0:
                continue
            more += number
            counted.append(match.group(0).strip(" &+,"))
        text = pattern.sub(" ; ", text)
    return text, more, counted


def tokenize(segment: str) -> tuple[Token, ...]:
    tokens: list[Token] = []
    part = 0
    vietnamese = is_vietnamese(segment)
    for gap, word in _GAP_WORD.findall(segment):
        if not tokens:
            joined = False
        elif gap == " ":
            joined = True
        else:
            part, joined = _read_gap(gap, part)
            if gap == "-" and vietnamese:
                # "22 Láng Hạ-Đống Đa-Hà Nội": Vietnamese addresses hyphenate their
                # levels; read like a spaced dash (a name may still run across it).
                part += 1
            if joined and "&" in gap:
                tokens.append(Token("&", "and", part, True))
        if word.isascii():
            key = word.lower()
            if "." in key or "'" in key:
                key = key.replace(".", "").replace("'", "")
        else:
            key = fold_word(word)
        code = word.replace(".", "") if word.isupper() else ""
        digit = not word.isalpha() and any(c.isdigit() for c in word)
        # tuple.__new__ builds the record in C: this runs for every word of every posting
        tokens.append(_new(Token, (word, key, part, joined, code, digit)))
    return tuple(tokens)


_new = tuple.__new__


def _read_gap(gap: str, part: int) -> tuple[int, bool]:
    """(part of the next token, whether a name may continue across the gap)."""
    if not gap or gap.isspace():
        return part, True
    if any(c in _SOFT_SEPARATORS for c in gap):
        return part + 1, False
    if any(c in _DASHES for c in gap):
        if gap.strip() == gap:  # "Winston-Salem", "US-CA-San Francisco": same part
            return part, True
        return part + 1, True  # "Canada - Ontario": a new part, but "Bà Rịa - Vũng Tàu" is one name
    return part, True
