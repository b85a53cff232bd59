"""A description as a page shows it: headings, paragraphs and lists built from its
layout letters (serving_sync.layout), the text escaped, marks laid on by offset.

No element comes from the source: the only tags are the ones this module writes (h3,
p, ul, ol, li, mark), so nothing a posting contains can reach a page as markup, and the
offsets of evidence and query marks index the served text exactly as the API gives it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

from serving_sync.layout import BULLET, usable_layout

Piece = tuple[str, str | None]  # (text, mark class or None)
# The element each layout letter becomes; consecutive list items share one list.
_TAGS = {"h": "h3", "p": "p", "u": "ul", "o": "ol"}


@dataclass(frozen=True)
class Block:
    tag: str  # h3, p, ul or ol
    lines: tuple[tuple[Piece, ...], ...]  # one for h3 and p; an item each for a list


def description_blocks(
    description: str | None, layout: str | None, spans: Iterable[tuple[int, int, str]] = ()
) -> list[Block]:
    """The description's blocks, each line's text cut into pieces at the marked spans
    (offsets into `description`); a list item's bullet ("- ", "1. ") is left to the list."""
    if not description:
        return []
    spans = sorted(spans)
    blocks: list[tuple[str, list[tuple[Piece, ...]]]] = []
    start = 0
    for kind, line in zip(usable_layout(layout, description), description.split("\n"), strict=True):
        if not line.strip():  # a blank line separates blocks already; it breaks no list
            start += len(line) + 1
            continue
        skip = _bullet_length(line) if kind in "uo" else 0
        pieces = pieces_between(description, start + skip, start + len(line), spans)
        tag = _TAGS[kind]
        if tag in ("ul", "ol") and blocks and blocks[-1][0] == tag:
            blocks[-1][1].append(pieces)
        else:
            blocks.append((tag, [pieces]))
        start += len(line) + 1
    return [Block(tag, tuple(lines)) for tag, lines in blocks]


def _bullet_length(line: str) -> int:
    found = BULLET.match(line)
    return found.end() if found else 0


def pieces_between(
    text: str, start: int, end: int, spans: Sequence[tuple[int, int, str]]
) -> tuple[Piece, ...]:
    """text[start:end] as (piece, mark) pieces, mark None between the spans (clipped to
    the range). Where spans overlap, the earlier one marks the shared characters."""
    pieces: list[Piece] = []
    at = start
    for span_start, span_end, kind in spans:
        span_start, span_end = max(span_start, at), min(span_end, end)
        if span_start >= span_end:
            continue
        pieces += [(text[at:span_start], None), (text[span_start:span_end], kind)]
        at = span_end
    pieces.append((text[at:end], None))
    return tuple(piece for piece in pieces if piece[0])


def description_html(description: str | None, layout: str | None) -> str | None:
    """The blocks as HTML (the API's `description_html`): the same elements a page
    shows, without marks, every character of the text escaped."""
    blocks = description_blocks(description, layout)
    return "\n".join(_block_html(block) for block in blocks) or None


def _block_html(block: Block) -> str:
    lines = ["".join(escape(text, quote=False) for text, _ in line) for line in block.lines]
    if block.tag in ("ul", "ol"):
        return f"<{block.tag}>" + "".join(f"<li>{line}</li>" for line in lines) + f"</{block.tag}>"
    return f"<{block.tag}>{lines[0]}</{block.tag}>"
