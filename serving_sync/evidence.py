"""Where an extracted value's excerpt stands in what the API serves (pure).

Enrichment measures its offsets in one internal text: the title, the location line and
the description joined by line breaks, then normalised (NFC, typographic quotes and
dashes folded, whitespace runs collapsed; `pipeline.enrich.text`). A reader sees none
of that text: they see the posting's fields as served. So each value is placed again,
in the served field it came from, with offsets into that field exactly as served:

    job[field][start:end] == evidence        (both NFC)

The excerpt served is that span of the field, verbatim (a curly quote stays curly), and
`context` is the sentence around it, so a reader can check the value in its place. A
value whose excerpt is in no served field (the posting changed since it was enriched)
keeps its value with `field` None: shown, never pointed at a wrong place.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from pipeline.enrich.text import normalize, normalize_excerpt

# The fields enrichment reads, in the order it joins them (posting_text).
SERVED_FIELDS = ("title", "location_text", "description")
CONTEXT_LIMIT = 240  # characters of context on each side, at most
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")


@dataclass(frozen=True)
class NormalizedField:
    """A field's normalised text and, per normalised character, where it came from."""

    name: str
    original: str
    text: str
    origin: tuple[int, ...]  # origin[i]: where text[i] starts in `original`
    origin_end: tuple[int, ...]  # and where it ends (a decomposed "e" + accent is 2 long)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        return self.origin[start], self.origin_end[end - 1]


@dataclass(frozen=True)
class ServedSpan:
    field: str | None
    start: int | None
    end: int | None
    evidence: str
    context: str | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def normalized_field(name: str, original: str) -> NormalizedField:
    """`normalize(original)` with the origin of every character it keeps.

    Built one character at a time with the same steps as `normalize` (NFC per
    character cluster, the fold table, collapsed runs), so `text == normalize(original)`;
    a test holds the two together."""
    nfc = unicodedata.normalize("NFC", original)
    spans = _nfc_spans(original, nfc)
    chars: list[str] = []
    origin: list[tuple[int, int]] = []
    pending_space: tuple[str, tuple[int, int]] | None = None
    for index, char in enumerate(nfc):
        if char.isspace():
            is_break = char in "\n\r"
            if pending_space is None or (is_break and pending_space[0] != "\n"):
                pending_space = ("\n" if is_break else " ", spans[index])
            continue
        folded = normalize(char)
        if not folded:
            continue  # an invisible character the fold drops
        if pending_space is not None and chars:
            chars.append(pending_space[0])
            origin.append(pending_space[1])
        pending_space = None
        chars.append(folded)  # the fold maps one character to one
        origin.append(spans[index])
    return NormalizedField(
        name, original, "".join(chars), tuple(a for a, _ in origin), tuple(b for _, b in origin)
    )


def _nfc_spans(original: str, nfc: str) -> list[tuple[int, int]]:
    """[start, end) in `original` of each character of its NFC form."""
    if nfc == original:
        return [(index, index + 1) for index in range(len(original))]
    spans: list[tuple[int, int]] = []
    position = 0
    for cluster in _clusters(original):
        for _ in unicodedata.normalize("NFC", cluster):
            spans.append((position, position + len(cluster)))
        position += len(cluster)
    if len(spans) != len(nfc):  # a composition across clusters (rare): keep in bounds
        last = len(original)
        return [(min(i, last - 1), min(i + 1, last)) for i in range(len(nfc))]
    return spans


def _clusters(text: str) -> list[str]:
    """A base character with the combining marks that follow it."""
    out: list[str] = []
    for char in text:
        if out and unicodedata.combining(char):
            out[-1] += char
        else:
            out.append(char)
    return out


def served_fields(job: Mapping[str, Any]) -> tuple[NormalizedField, ...]:
    return tuple(
        normalized_field(name, job[name])
        for name in SERVED_FIELDS
        if isinstance(job.get(name), str) and job[name].strip()
    )


def place(fields: tuple[NormalizedField, ...], item: Mapping[str, Any]) -> ServedSpan:
    """The value's excerpt in the served fields: at its own offsets when they land in one
    field and read the excerpt there, else its first occurrence, field by field."""
    excerpt = item.get("evidence") or ""
    needle = normalize_excerpt(excerpt)
    if not needle:
        return ServedSpan(None, None, None, excerpt, None)
    found = _at_offsets(fields, item, needle) or _first_occurrence(fields, needle)
    if found is None:
        return ServedSpan(None, None, None, excerpt, None)
    served, start, end = found
    begin, stop = served.original_span(start, end)
    return ServedSpan(
        served.name,
        begin,
        stop,
        served.original[begin:stop],
        sentence(served.original, begin, stop),
    )


def _at_offsets(
    fields: tuple[NormalizedField, ...], item: Mapping[str, Any], needle: str
) -> tuple[NormalizedField, int, int] | None:
    start, end = item.get("start"), item.get("end")
    if not isinstance(start, int) or not isinstance(end, int):
        return None
    offset = 0
    for served in fields:  # joined with one "\n" between fields, as posting_text does
        if offset <= start and end <= offset + len(served.text):
            local = start - offset, end - offset
            if served.text[local[0] : local[1]].replace("\n", " ") == needle:
                return served, local[0], local[1]
            return None
        offset += len(served.text) + 1
    return None


def _first_occurrence(
    fields: tuple[NormalizedField, ...], needle: str
) -> tuple[NormalizedField, int, int] | None:
    for served in fields:
        at = served.text.replace("\n", " ").find(needle)
        if at >= 0:
            return served, at, at + len(needle)
    return None


def sentence(text: str, start: int, end: int) -> str:
    """The sentence (or line) around `text[start:end]`, at most CONTEXT_LIMIT each side."""
    low = max(0, start - CONTEXT_LIMIT)
    before = [m.end() for m in _SENTENCE_END.finditer(text, low, start)]
    begin = before[-1] if before else low
    after = _SENTENCE_END.search(text, end, min(len(text), end + CONTEXT_LIMIT))
    stop = after.end() if after else min(len(text), end + CONTEXT_LIMIT)
    return " ".join(text[begin:stop].split())


def holds(job: Mapping[str, Any], span: Mapping[str, Any]) -> bool:
    """The check a reader makes: the served field, cut at the offsets, is the excerpt."""
    name, start, end = span.get("field"), span.get("start"), span.get("end")
    if name not in SERVED_FIELDS or not isinstance(start, int) or not isinstance(end, int):
        return False
    value = job.get(name)
    if not isinstance(value, str) or not 0 <= start < end <= len(value):
        return False
    nfc = unicodedata.normalize
    return nfc("NFC", value[start:end]) == nfc("NFC", span.get("evidence") or "")
