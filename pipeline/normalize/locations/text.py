"""Folding text into lookup keys.

The gazetteer and the resolver must fold text identically, so both call `fold`.
A key is lower case, without diacritics (Vietnamese included: "Hà Nội" and
"Ha Noi" are the same key), without periods or apostrophes ("St. Louis" ==
"St Louis", "D.C." == "DC"), with hyphens and dashes read as spaces
("Winston-Salem" == "Winston Salem").
"""

from __future__ import annotations

import unicodedata

# Letters that Unicode does not decompose into a base letter plus marks.
_SPECIAL_LETTERS = {
    "đ": "d",
    "ð": "d",
    "ø": "o",
    "æ": "ae",
    "œ": "oe",
    "ł": "l",
    "ß": "ss",
    "ı": "i",
    "þ": "th",
    "ħ": "h",
    "ŧ": "t",
}
_DROPPED = ".'’`´ʻʼ"
_AS_SPACE = "-‐‑‒–—_"


def _build_fold_table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    ranges = [(0x00C0, 0x0250), (0x1E00, 0x1F00)]
    for start, stop in ranges:
        for code in range(start, stop):
            char = chr(code).lower()
            if char in _SPECIAL_LETTERS:
                table[code] = _SPECIAL_LETTERS[char]
                continue
            base = "".join(
                c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)
            )
            if base != char:
                table[code] = base.lower()
    for char, repl in _SPECIAL_LETTERS.items():
        table[ord(char)] = repl
    for code in range(0x0300, 0x0370):  # combining marks left over in NFD input
        table[code] = None
    for char in _DROPPED:
        table[ord(char)] = None
    for char in _AS_SPACE:
        table[ord(char)] = " "
    table[ord("&")] = " and "
    return table


_FOLD_TABLE = _build_fold_table()


def fold(text: str) -> str:
    """Return the lookup key of `text` (see module docstring)."""
    return " ".join(text.lower().translate(_FOLD_TABLE).split())


def fold_word(word: str) -> str:
    """Fold one token that has no spaces or hyphens (the resolver's hot path)."""
    return word.lower().translate(_FOLD_TABLE).strip()


# German writes ü/ö/ä as ue/oe/ae without the marks ("Baden-Wuerttemberg"), and
# names run their words together or apart ("Ha Noi", "Hanoi"; "Hai Phong", "Haiphong").
_DIGRAPHS = (("ue", "u"), ("oe", "o"), ("ae", "a"))


def spelling_key(text: str) -> str:
    """The key two spellings of one name share: `fold`, then the German digraphs read as
    their plain vowels and no spaces. Only for telling whether two names are one name
    spelled twice; lookups use `fold`."""
    key = fold(text)
    for digraph, vowel in _DIGRAPHS:
        key = key.replace(digraph, vowel)
    return key.replace(" ", "")
