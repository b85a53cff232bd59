"""A description as a page shows it (web.description): blocks built from the layout
letters, the text escaped, marks laid on by offset across lines and clipped to them."""

from __future__ import annotations

from web.description import Block, description_blocks, description_html

TEXT = "About us\nWe <build> things.\n- Python\n- SQL\n1. Apply\nThanks"
LAYOUT = "hpuuop"


def test_lines_become_headings_paragraphs_and_one_list_per_run_of_items() -> None:
    blocks = description_blocks(TEXT, LAYOUT)
    assert [b.tag for b in blocks] == ["h3", "p", "ul", "ol", "p"]
    assert blocks[2] == Block("ul", ((("Python", None),), (("SQL", None),)))  # bullets dropped
    assert blocks[3] == Block("ol", ((("Apply", None),),))


def test_marks_land_on_their_offsets_and_are_clipped_at_line_ends() -> None:
    start = TEXT.index("things")
    across = (TEXT.index("Python"), TEXT.index("SQL") + 3, "evidence")  # two items
    blocks = description_blocks(TEXT, LAYOUT, [(start, start + 6, "hit"), across])
    assert blocks[1].lines[0] == (("We <build> ", None), ("things", "hit"), (".", None))
    assert blocks[2].lines == ((("Python", "evidence"),), (("SQL", "evidence"),))


def test_a_mark_on_a_bullet_is_left_with_the_bullet() -> None:
    bullet = TEXT.index("- Python")
    blocks = description_blocks(TEXT, LAYOUT, [(bullet, bullet + 2, "hit")])
    assert blocks[2].lines[0] == (("Python", None),)


def test_a_missing_or_stale_layout_is_read_from_the_text() -> None:
    assert [b.tag for b in description_blocks(TEXT, None)] == ["p", "p", "ul", "ol", "p"]
    assert [b.tag for b in description_blocks(TEXT, "h")] == ["p", "p", "ul", "ol", "p"]
    assert description_blocks("", "p") == []
    assert description_blocks(None, None) == []


def test_the_apis_description_html_escapes_every_character_of_the_text() -> None:
    html = description_html(TEXT, LAYOUT)
    assert html == (
        "<h3>About us</h3>\n<p>We &lt;build&gt; things.</p>\n"
        "<ul><li>Python</li><li>SQL</li></ul>\n<ol><li>Apply</li></ol>\n<p>Thanks</p>"
    )
    evil = '<script>alert(1)</script>\n- <img src=x onerror="alert(1)">'
    assert "<script" not in (description_html(evil, None) or "")
    assert "<img" not in (description_html(evil, None) or "")
    assert description_html(None, None) is None


def test_blank_lines_break_no_list_and_make_no_empty_paragraph() -> None:
    text = "What you will do\n\n- Ship\n\n- Review\n\nThanks."
    blocks = description_blocks(text, "hpupupp")
    assert [b.tag for b in blocks] == ["h3", "ul", "p"]
    assert blocks[1].lines == ((("Ship", None),), (("Review", None),))
