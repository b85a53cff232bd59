"""The one normalisation every excerpt and offset is measured in.

NFC, typographic quotes and dashes folded to ASCII, invisible characters dropped,
whitespace runs collapsed: a run containing a line break becomes one "\n", any other
run one space. Offsets are `[start, end)` in this normalised text. Matching treats
"\n" and " " alike (`flat`), which keeps every offset valid in both.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u00b4": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u2007": " ",
        "\u202f": " ",
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\u2060": None,
        "\ufeff": None,
        "\u00ad": None,
    }
)
_SPACE_RUN = re.compile(r"\s+")


def _collapse(match: re.Match[str]) -> str:
    return "\n" if "\n" in match.group(0) or "\r" in match.group(0) else " "


def normalize(text: str) -> str:
    """The normalised text offsets refer to."""
    folded = unicodedata.normalize("NFC", text).translate(_QUOTES)
    return _SPACE_RUN.sub(_collapse, folded).strip()


def flat(normalized: str) -> str:
    """The same text with line breaks as spaces: same length, so same offsets."""
    return normalized.replace("\n", " ")


def normalize_excerpt(excerpt: str) -> str:
    return flat(normalize(excerpt))


def text_hash(normalized: str) -> str:
    return hashlib.sha256(normalized.encode("utf-8")).hexdigest()


def posting_text(title: str | None, location: str | None, description: str | None) -> str:
    """What enrichment reads: the title, the location line and the description text."""
    parts = [p.strip() for p in (title, location, description) if p and p.strip()]
    return normalize("\n".join(parts))
