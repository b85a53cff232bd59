"""A description's shape (serving_sync.layout, parsers.text.html_lines): one letter per
served line, read from the posting's HTML when its lines are the served text exactly,
else from the text; never more or fewer letters than lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parsers.text import html_lines, html_to_text
from serving_sync.layout import description_layout, inferred_layout, usable_layout

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _golden_descriptions() -> list[tuple[str, str]]:
    found = []
    for path in sorted(GOLDEN.glob("*/*/*/expected.json")):
        for posting in json.loads(path.read_text(encoding="utf-8")).get("postings", []):
            if posting.get("description_html"):
                found.append((str(path.parent.relative_to(GOLDEN)), posting["description_html"]))
    return found


def test_html_lines_are_html_to_text_line_for_line_on_every_golden_description() -> None:
    cases = _golden_descriptions()
    assert len(cases) > 100
    for case, markup in cases:
        lines = html_lines(markup)
        assert "\n".join(text for _, text in lines) == (html_to_text(markup) or ""), case


def test_html_lines_name_headings_list_items_and_paragraphs() -> None:
    markup = (
        "<h2>About <b>us</b></h2><p>We build.<br>Really.</p>"
        "<ul>\n <li>Python</li> <li><p>SQL</p></li></ul><ol><li>Apply</li></ol>"
        "<div>Pay &amp; perks</div>after the list"
    )
    assert html_lines(markup) == [
        ("h", "About us"),
        ("p", "We build."),
        ("p", "Really."),  # broken off by <br>: still the paragraph
        ("u", "Python"),
        ("u", "SQL"),  # a paragraph inside an item is the item
        ("o", "Apply"),
        ("p", "Pay & perks"),
        ("p", "after the list"),  # text after a block starts a paragraph
    ]


@pytest.mark.parametrize("markup", [None, "", "   ", "no markup at all", "<p>\ue000odd</p>"])
def test_html_lines_of_text_without_usable_markup_are_paragraphs(markup: str | None) -> None:
    lines = html_lines(markup)
    assert all(kind == "p" for kind, _ in lines)
    assert "\n".join(text for _, text in lines) == (html_to_text(markup) or "")


def test_the_layout_comes_from_the_html_when_its_lines_are_the_served_text() -> None:
    markup = "<h3>Role</h3><ul><li>- Ship</li></ul><p>Thanks</p>"
    assert description_layout(markup, html_to_text(markup)) == "hup"


def test_a_description_that_is_not_its_htmls_text_is_read_from_the_text() -> None:
    markup = "<h3>Role</h3><p>Old words</p>"
    text = "Requirements:\n- 3 years of Python\n- SQL\nWe answer within a week."
    assert description_layout(markup, text) == "huup"
    assert description_layout(None, text) == "huup"
    assert description_layout(markup, None) is None


def test_plain_text_items_and_headings() -> None:
    text = "\n".join(
        [
            "About the role",  # short, no sentence end, over a list: a heading
            "• Own the pipeline",
            "1. Apply online",
            "2) Talk to us",
            "We are a small team.",  # a sentence over nothing: a paragraph
            "What we offer:",  # a colon: a heading
            "Good pay.",
            "-not a bullet without its space",
        ]
    )
    assert inferred_layout(text) == "huoophpp"


def test_a_long_line_ending_in_a_colon_is_a_paragraph() -> None:
    long = "In this role you will " + "work " * 20 + "with:"
    assert inferred_layout(long + "\n- SQL") == "pu"


def test_a_stored_layout_is_used_only_when_it_fits_the_text() -> None:
    text = "Role\n- SQL"
    assert usable_layout("pp", text) == "pp"
    assert usable_layout("p", text) == "hu"  # stale: one letter short
    assert usable_layout("px", text) == "hu"  # not a layout letter
    assert usable_layout(None, text) == "hu"


def test_blank_lines_separate_without_counting() -> None:
    text = "What you will do\n\n- Ship\n\n- Review\n\nThanks."
    assert inferred_layout(text) == "hpupupp"
