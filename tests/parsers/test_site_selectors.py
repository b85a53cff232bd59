"""A configured site's selectors, evaluated as compiled XPath on the parsed page, give
what parsel's `.css()` gave: text joined, attributes, serialized elements, nothing."""

from __future__ import annotations

import pytest
from cssselect import SelectorSyntaxError
from parsel import Selector

from parsers.html_site import _first
from parsers.text import clean_space

PAGE = """<html><head><title>Kỹ sư &amp; Dev</title></head><body>
<h1 class="job-title">Kỹ sư <b>phần</b> mềm</h1>
<div class="company">Acme</div><div class="company x">Beta&nbsp;Co</div>
<div class="location">Hà Nội</div>
<section class="description"><p>Build <i>things</i>.</p><ul><li>One</li></ul></section>
<a class="apply" href="/apply?id=7&amp;src=x">Apply</a>
<div class="job-card"><h3><a href="/viec-lam/12">Role</a></h3><span>  spaced   out </span></div>
<!-- a comment --><p class="empty"></p>
</body></html>"""

SELECTORS = [
    "h1.job-title::text",
    "h1.job-title *::text",
    ".company::text",
    ".location::text",
    "section.description",
    "a.apply::attr(href)",
    "h3 a::attr(href)",
    ".job-card span::text",
    "p.empty",
    "p.empty::text",
    ".missing::text",
    ".missing",
    "title::text",
    "h1, .company::text",
    "a::attr(data-none)",
]


def _parsel_first(sel: Selector, css: str) -> str | None:
    """The reading the site parser had: parsel's SelectorList, text joined."""
    return clean_space(" ".join(sel.css(css).getall()) if "::text" in css else sel.css(css).get())


@pytest.mark.parametrize("css", SELECTORS)
def test_a_compiled_selector_reads_what_parsel_read(css: str) -> None:
    sel = Selector(text=PAGE, type="html")
    assert _first(sel, css) == _parsel_first(sel, css)


@pytest.mark.parametrize("css", SELECTORS)
def test_a_compiled_selector_reads_a_card_as_parsel_read_it(css: str) -> None:
    card = Selector(text=PAGE, type="html").css("body")[0]
    assert _first(card, css) == _parsel_first(card, css)


def test_an_invalid_selector_fails_as_it_failed_with_parsel() -> None:
    sel = Selector(text=PAGE, type="html")
    with pytest.raises(SelectorSyntaxError):
        _parsel_first(sel, "div[")
    with pytest.raises(SelectorSyntaxError):
        _first(sel, "div[")
