"""Text helpers shared by parsers: HTML to text, whitespace, dates with precision."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime

import lxml.html
from lxml import etree

_WS = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")
_BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "br",
        "li",
        "ul",
        "ol",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "tr",
        "table",
        "section",
        "article",
        "header",
        "footer",
        "blockquote",
        "pre",
    ]
)


def clean_space(value: str | None) -> str | None:
    """Collapse runs of whitespace; empty strings become None (unknown stays unknown)."""
    if value is None:
        return None
    value = _WS.sub(" ", value).strip()
    return value or None


def unescape_html(value: str) -> str:
    """Greenhouse and others ship HTML entity-escaped HTML (`&lt;p&gt;`)."""
    return html.unescape(value)


def html_to_text(markup: str | None) -> str | None:
    """Readable text from an HTML fragment: block elements become line breaks."""
    if not markup or not markup.strip():
        return None
    try:
        root = lxml.html.fragment_fromstring(markup, create_parent="div")
    except (etree.ParserError, ValueError):
        return clean_space(markup)
    for bad in root.iter("script", "style", "noscript"):
        bad.drop_tree()
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag.lower() in _BLOCK_TAGS:
            el.tail = "\n" + (el.tail or "")
    text = root.text_content()
    lines = [clean_space(line) for line in text.split("\n")]
    joined = "\n".join(line for line in lines if line)
    return _BLANK_LINES.sub("\n", joined).strip() or None


def parse_datetime(value: str | int | float | None) -> tuple[datetime | None, str]:
    """An ISO 8601 string or epoch milliseconds -> (UTC datetime, precision).

    A date without a time is day precision; anything unparseable is unknown
    rather than a made-up timestamp.
    """
    if value is None or value == "":
        return None, "unknown"
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        return datetime.fromtimestamp(seconds, tz=UTC), "exact"
    text = value.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return datetime.fromisoformat(text).replace(tzinfo=UTC), "day"
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None, "unknown"
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC), "exact"
