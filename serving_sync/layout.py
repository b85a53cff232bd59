"""The shape of a description: which of its lines are headings, list items or paragraphs.

Serving publishes a posting's description as plain text (`description`), the text every
offset points into: search snippets, the evidence of extracted values, the marks of a
query. Its shape travels beside it as `description_layout`, one letter per line
(`parsers.text.LINE_KINDS`: h heading, u and o items of unordered and ordered lists, p
anything else), so a page can show headings and lists while every offset stays exact,
and no markup from a source ever reaches a page: the page builds the few elements it
allows from the letters and escapes the text (docs/serving-sync.md, "Description").

The letters come from the posting's own HTML when its lines are exactly the served text;
otherwise (plain-text sources, or a description that is not its HTML's text) they are
read from the text: bulleted and numbered lines are items, a short line ending in a colon
or standing over a list is a heading; blank lines separate without counting.
"""

from __future__ import annotations

import re

from parsers.text import LINE_KINDS, html_lines

BULLET = re.compile(r"^(?:[-•*–·▪●◦‣]|\d{1,2}[.)])\s+")
_NUMBERED = re.compile(r"^\d{1,2}[.)]\s")
# A heading stated in plain text: short, and either ending in a colon ("Requirements:")
# or without a sentence's end and standing over a list item.
HEADING_MAX_CHARS = 80
_SENTENCE_END = tuple(".!?;,")


def description_layout(markup: str | None, description: str | None) -> str | None:
    """One LINE_KINDS letter per line of `description`; None without a description."""
    if not description:
        return None
    lines = html_lines(markup) if markup else []
    if lines and "\n".join(text for _, text in lines) == description:
        return "".join(kind for kind, _ in lines)
    return inferred_layout(description)


def inferred_layout(description: str) -> str:
    """The letters read from plain text alone."""
    lines = description.split("\n")
    kinds = [_item_kind(line) for line in lines]
    # Blank lines separate, they do not count: what "stands over" a line is the next
    # line with text (plain-text sources often put a blank line after every line).
    filled = [n for n, line in enumerate(lines) if line.strip()]
    for here, after in zip(filled, [*filled[1:], None], strict=True):
        following = [kinds[after]] if after is not None else []
        if kinds[here] == "p" and _reads_as_heading(lines[here], following):
            kinds[here] = "h"
    return "".join(kinds)


def _item_kind(line: str) -> str:
    if not BULLET.match(line):
        return "p"
    return "o" if _NUMBERED.match(line) else "u"


def _reads_as_heading(line: str, following: list[str]) -> bool:
    text = line.strip()
    if not text or len(text) > HEADING_MAX_CHARS or not following:
        return False
    if text.endswith(":"):
        return True
    return following[0] in "uo" and not text.endswith(_SENTENCE_END) and len(text.split()) <= 8


def usable_layout(layout: str | None, description: str) -> str:
    """`layout` when it fits the description line for line (letters of LINE_KINDS only),
    else the layout read from the text: a row written before layouts, or a stale one."""
    lines = description.count("\n") + 1
    if layout and len(layout) == lines and set(layout) <= set(LINE_KINDS):
        return layout
    return inferred_layout(description)
