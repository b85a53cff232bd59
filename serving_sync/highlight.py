"""Where a query's words stand in a posting's text: the spans to mark, and the snippet of
about 200 characters around the best match (pure).

The words are read as serving.typed_tsquery reads them: every word of the query's plain
terms and quoted phrases (folded: "ke toan" marks "kế toán"), never an excluded one or
the OR operator; the words that take the prefix also mark the words they start, and a
plain word also marks its inflections: the words with its stem in English, German or
French (the Snowball stemmers serving.stem_lexemes stems the postings with). A word
of the text is a run of letters and digits, as the text search parser splits it, so
marks always cover whole words. Offsets are into the text as given (a mark is
text[start:end]), or, for a snippet, into the snippet's own text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache

import snowballstemmer

from serving_sync.text import fold

SNIPPET_CHARS = 200
# How much of the text a snippet looks at (the list reads no more of a description).
SNIPPET_SCAN_CHARS = 8000
ELLIPSIS = "…"
_TERMS = re.compile(r'-?"[^"]*"|\S+')
_WORD = re.compile(r"[^\W_]+")


# The languages serving.stem_config stems, by the Snowball algorithm's name.
STEMMED = {"en": "english", "de": "german", "fr": "french"}
_STEMMERS = {code: snowballstemmer.stemmer(name) for code, name in STEMMED.items()}
STEM_HEAD = 3  # a word is stemmed only when it starts as one of the stems does


@lru_cache(maxsize=65536)
def stem(language: str, word: str) -> str:
    """`word` (folded) stemmed in `language` (a key of STEMMED)."""
    return _STEMMERS[language].stemWord(word)


@dataclass(frozen=True)
class QueryWords:
    words: frozenset[str]  # folded, matched whole
    prefixes: tuple[str, ...]  # folded, matched as the start of a word
    stems: frozenset[tuple[str, str]] = frozenset()  # (language, stem) of the plain words

    def __bool__(self) -> bool:
        return bool(self.words or self.prefixes or self.stems)

    def matches(self, word: str) -> bool:
        if word in self.words or word.startswith(self.prefixes):
            return True
        return self._inflected(word)

    def _inflected(self, word: str) -> bool:
        # Stemming every word of a description costs ~10 us each; a stem almost always
        # starts the words it comes from (happy -> happi aside), so only words that start
        # as one of the stems does are stemmed.
        if not self.stems or word[:STEM_HEAD] not in self._heads:
            return False
        return any((language, stem(language, word)) in self.stems for language in STEMMED)

    @cached_property
    def _heads(self) -> frozenset[str]:
        return frozenset(s[:STEM_HEAD] for _, s in self.stems)

    @cached_property
    def candidates(self) -> re.Pattern[str] | None:
        """The whole words of a folded text that could match: those starting with a query
        word, a prefix or a stem's head. Found by one regular expression, in C, so a
        description's hundreds of other words cost no Python call each; `matches`
        decides on the few found. None: no word could match."""
        starts = sorted({*self.words, *self.prefixes, *self._heads}, key=len, reverse=True)
        if not starts:
            return None
        alternatives = "|".join(re.escape(start) for start in starts)
        # No look-behind for the word's start here (mark_spans checks it): a pattern that
        # opens with literals is searched by their first characters, one that opens with
        # a look-behind is tried at every position (a third slower over a description).
        return re.compile(rf"(?:{alternatives})[^\W_]*")


@dataclass(frozen=True)
class Snippet:
    text: str
    marks: tuple[tuple[int, int], ...]


def query_words(q: str, prefix_terms: Iterable[str] = ()) -> QueryWords:
    """The words of `q` a match can show; `prefix_terms`: the terms that take the prefix
    (serving_sync.search decides which)."""
    words: set[str] = set()
    stems: set[tuple[str, str]] = set()
    for term in _TERMS.findall(q):
        if (term.startswith("-") and len(term) > 1) or term.lower() == "or":
            continue
        found = _WORD.findall(fold(term))
        words.update(found)
        if not term.startswith('"') and len(found) == 1:  # a plain word of one lexeme
            stems.update((language, stem(language, found[0])) for language in STEMMED)
    prefixes = []
    for term in prefix_terms:
        found = _WORD.findall(fold(term))
        if found:
            prefixes.append(found[-1])
    return QueryWords(frozenset(words), tuple(prefixes), frozenset(stems))


def _folded(text: str) -> str:
    """`fold(text)`, one character for one, so offsets carry over. The fast path is
    exact unless lowercasing changed the length (a dotted capital I: two characters)."""
    folded = fold(text)
    if len(folded) == len(text):
        return folded
    return "".join((fold(c) or c)[:1] for c in text)


def mark_spans(text: str, query: QueryWords) -> list[tuple[int, int]]:
    """The spans of `text` (NFC, as the serving text is kept) whose words the query
    finds, in order."""
    candidates = query.candidates if query and text else None
    if candidates is None:
        return []
    folded = _folded(text)
    return [
        m.span()
        for m in candidates.finditer(folded)
        if _starts_word(folded, m.start()) and query.matches(m.group())
    ]


def _starts_word(text: str, at: int) -> bool:
    """Does a word start at `at`: no letter or digit before it (str.isalnum: what
    `[^\\W_]` matches)? A candidate found inside a word runs to that word's end, so it
    never hides one that starts a word."""
    return at == 0 or not text[at - 1].isalnum()


def snippet(text: str | None, query: QueryWords, width: int = SNIPPET_CHARS) -> Snippet | None:
    """About `width` characters of `text` (whitespace collapsed) around its best match:
    the window holding the most distinct query words, the earliest of those, cut at word
    boundaries, with every match inside marked. No match: the text's start, unmarked."""
    if not text:
        return None
    # Whitespace runs as one space, the ends trimmed: split() splits on the characters
    # `\s` matches (str.isspace), in a third of a regular expression's time.
    flat = " ".join(text[:SNIPPET_SCAN_CHARS].split())
    spans = mark_spans(flat, query)
    start = _best_start(flat, spans, width)
    end = min(len(flat), start + width)
    if end < len(flat):  # end at a word boundary
        cut = flat.rfind(" ", start, end)
        end = cut if cut > start else end
    if start > 0:  # start at a word boundary
        cut = flat.find(" ", start, end)
        start = cut + 1 if 0 <= cut < start + 30 else start
    lead = ELLIPSIS if start > 0 else ""
    tail = ELLIPSIS if end < len(flat) else ""
    shift = len(lead) - start
    marks = tuple((s + shift, e + shift) for s, e in spans if s >= start and e <= end)
    return Snippet(lead + flat[start:end] + tail, marks)


def _best_start(flat: str, spans: list[tuple[int, int]], width: int) -> int:
    if not spans:
        return 0
    lead = width // 5  # a little of what comes before the first match
    best, best_score = 0, -1
    for anchor, _ in spans[:200]:
        start = max(0, anchor - lead)
        inside = {fold(flat[s:e]) for s, e in spans if s >= start and e <= start + width}
        if len(inside) > best_score:
            best, best_score = start, len(inside)
    return best
