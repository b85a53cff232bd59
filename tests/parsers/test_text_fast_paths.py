"""The text helpers' fast paths give what their regular expressions give, on every
character they are about and on their neighbours."""

from __future__ import annotations

import random

import pytest

from parsers.text import (
    _HIDDEN,
    _LOOSE_JOINERS,
    _NOT_XML,
    _WS,
    clean_space,
    collapse_lines,
    drop_invisible,
    xml_text,
)

# Each character the class names, its neighbours, and ordinary text of every width.
EDGES = [
    *map(chr, range(0x21)),
    "\x7f",
    "\x85",
    "\xa0",
    "é",
    "—",
    "\ud7ff",
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
    "\ue000",
    "\ufffd",
    "\ufffe",
    "\uffff",
    "\U00010000",
    "🙂",
    "a",
    " ",
]


@pytest.mark.parametrize("char", EDGES, ids=[f"U+{ord(c):04X}" for c in EDGES])
def test_xml_text_replaces_exactly_what_the_class_matches(char: str) -> None:
    for text in (char, f"ab{char}cd", f"Hà Nội {char} — x", f"{char}🙂{char}"):
        assert xml_text(text) == _NOT_XML.sub(" ", text)


def test_xml_text_matches_the_class_on_random_mixtures() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        text = "".join(rng.choice(EDGES) for _ in range(rng.randint(0, 12)))
        assert xml_text(text) == _NOT_XML.sub(" ", text)


def test_clean_text_is_returned_as_is() -> None:
    text = "<p>Hà Nội — 🙂</p>"
    assert xml_text(text) is text


# Every character str.split() treats as whitespace, and a few it does not.
SPACES = [" ", "\n", "\t", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85", "\xa0", "\u1680"]
SPACES += ["\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
NOT_SPACES = ["\u200b", "\ufeff", "a", "é", "—", "🙂", "\x00", "\x7f"]


def _collapsed_by_words(text: str) -> str:
    return "\n".join(w for w in (" ".join(line.split()) for line in text.split("\n")) if w)


def test_collapse_lines_equals_splitting_every_line_into_words() -> None:
    rng = random.Random(11)
    alphabet = SPACES + NOT_SPACES + ["word", " word ", "\n\n"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        assert collapse_lines(text) == _collapsed_by_words(text), repr(text)


@pytest.mark.parametrize("space", SPACES, ids=[f"U+{ord(c):04X}" for c in SPACES])
def test_collapse_lines_collapses_each_kind_of_whitespace(space: str) -> None:
    text = f" Hà{space}Nội \n\n x{space}{space}y "
    assert collapse_lines(text) == _collapsed_by_words(text)


def _clean_space_by_regex(value: str) -> str | None:
    """clean_space as one regular expression pass after dropping invisibles."""
    visible = _LOOSE_JOINERS.sub("", _HIDDEN.sub("", value))
    return _WS.sub(" ", visible).strip() or None


# Invisible characters (kept between Persian letters), every space clean_space
# collapses or strips, and text of each width, in short and long strings.
CLEANING = [*SPACES, "\u200b", "\u200c", "\u200d", "\ufeff", "\u00ad", "\u2060"]
CLEANING += ["a", "word", "Hà Nội", "—", "\u0628", "🙂", "  "]


def test_clean_space_equals_the_regular_expressions_on_short_and_long_text() -> None:
    rng = random.Random(23)
    for _ in range(4000):
        pieces = [rng.choice(CLEANING) for _ in range(rng.randint(0, 12))]
        for text in ("".join(pieces), "".join(pieces) + "x" * 70 + "".join(pieces)):
            assert clean_space(text) == _clean_space_by_regex(text), repr(text)


def test_clean_space_on_ascii_with_controls_equals_the_regular_expressions() -> None:
    """Printable ASCII takes a shortcut (a space is its only blank): text with a control
    character, blank or not, must still come out as the general path makes it."""
    rng = random.Random(31)
    alphabet = [" ", "  ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x01", "\x7f", "a"]
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        assert clean_space(text) == _clean_space_by_regex(text), repr(text)


def test_cleaning_twice_gives_what_cleaning_once_gives() -> None:
    """A run of joiners next to ASCII goes whole, and joiners freed by a dropped
    zero-width space go too: "e\u200c\u200c\u200dw" is "ew" at once, not after a
    second pass (a posting's fields are cleaned once or twice by different paths)."""
    assert clean_space("Gre\u200c\u200c\u200dwich") == "Grewich"
    assert drop_invisible("e\u200b\u200c\u0628") == "e\u0628"
    assert drop_invisible("\u0628\u200c\u0628") == "\u0628\u200c\u0628"  # Persian keeps it
    rng = random.Random(29)
    for _ in range(4000):
        text = "".join(rng.choice(CLEANING) for _ in range(rng.randint(0, 12)))
        once = clean_space(text)
        assert clean_space(once) == once, repr(text)
        assert drop_invisible(drop_invisible(text)) == drop_invisible(text), repr(text)
