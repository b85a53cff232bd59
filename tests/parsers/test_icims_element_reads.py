"""The iCIMS search reader finds its elements and texts by the element API and one pass
over the page's `class` attributes instead of a CSS query each: on awkward markup
(nested headings and tables, comments, classes split by tabs or no-break spaces) it
must select exactly what the queries select."""

from __future__ import annotations

import pytest
from parsel import Selector

from parsers import icims
from parsers.hygiene import ROWS_CHECKED, storable
from parsers.types import DocumentKind, RawDocument

PAGES = [
    # the usual table
    "<div class='iCIMS_JobsTable'><div class='row'><a class='iCIMS_Anchor' href='/jobs/1/a/job'>"
    "<h3>Nurse</h3></a><dl><dt>Category</dt><dd><span title='01/02/2026'>x</span></dd></dl>"
    "</div></div><div class='iCIMS_Paging'>Page 1 of 2</div>",
    # headings with markup, one inside another, comments, empty ones
    "<div class='iCIMS_JobsTable'><div class='row'><a class='iCIMS_Anchor x' href='/jobs/2/b/job'>"
    "<h3>Senior <b>Nurse</b><h2>Night</h2></h3><h2></h2><h3>a<!-- c -->b</h3></a>"
    "<dl><dt>Job <i>Locations</i></dt><!-- gap --><dd> US-CA-X </dd>"
    "<dt>Posted Date</dt><span>no</span><dd><b title=''>t</b><i title='02/03/2026'></i></dd>"
    "</dl></div></div>",
    # nested tables and rows; a table that is itself a row; classes split oddly
    "<div class='iCIMS_JobsTable'><div class='row'><div class='iCIMS_JobsTable row'>"
    "<div class='\trow\n'><a class='iCIMS_Anchor' href='/jobs/3/c/job'><h2>One</h2></a></div>"
    "</div></div><div class='row\u00a0wide'><a class='iCIMS_Anchor' href='/jobs/4/d/job'>"
    "<h3>Two</h3></a></div><div class='arrow rowing'>x</div></div>"
    "<div class='iCIMS_Paging'>Page <span class='iCIMS_Paging'>2</span> of 3</div>",
    # a value's first child a processing instruction (whose pseudo-attributes `get`
    # reads; libxml2's HTML parser may keep it as a comment) or a comment, before the
    # element with the title
    "<div class='iCIMS_JobsTable'><div class='row'><a class='iCIMS_Anchor' href='/jobs/6/f/job'>"
    "<h3>Six</h3></a><dl><dt>Posted Date</dt><dd><?x title='no'?><i title='03/04/2026'></i></dd>"
    "<dt>Date Posted</dt><dd><!-- c --><b><i title='04/05/2026'></i></b></dd></dl></div></div>",
    # no table at all; a card layout with field labels
    "<ul><li class='job'><a class='iCIMS_Anchor' href='/jobs/5/e/job' title='5 - Cook'></a>"
    "<span class='sr-only field-label'>Job Locations</span><span>US</span></li></ul>",
]


def _css(root: object, query: str) -> list[object]:
    return [s.root for s in Selector(root=root, type="html").css(query)]


def _texts(root: object, query: str) -> list[str]:
    return Selector(root=root, type="html").css(query).getall()


@pytest.mark.parametrize("markup", PAGES)
def test_classes_rows_and_paging_are_what_the_queries_select(markup: str) -> None:
    root = icims._page_root(f"<html><body>{markup}</body></html>".encode())
    classed = icims._classed(root)
    assert classed.tables == _css(root, ".iCIMS_JobsTable")
    assert classed.paging == _css(root, ".iCIMS_Paging")
    assert classed.card_labels == bool(_css(root, ".field-label"))
    by_query = [row for table in classed.tables for row in _css(table, ".row")]
    assert icims._table_rows(classed) == by_query
    assert icims._paging_text(root, classed.paging) == " ".join(
        _texts(root, ".iCIMS_Paging ::text")
    )


@pytest.mark.parametrize("markup", PAGES)
def test_a_rows_links_headings_labels_and_values_are_what_the_queries_select(
    markup: str,
) -> None:
    root = icims._page_root(f"<html><body>{markup}</body></html>".encode())
    for row in _css(root, "div, li"):
        anchors = icims._anchors(row)
        assert anchors == _css(row, "a.iCIMS_Anchor")
        for anchor in anchors:
            assert icims._heading_texts(anchor) == _texts(anchor, "h3 ::text, h2 ::text")
        for dt in row.iter("dt"):
            assert icims._joined_text(dt) == " ".join(dt.itertext())
            dd = icims._next_dd(dt)
            assert dd is next(dt.itersiblings("dd"), None)
            if dd is not None:
                assert icims._first_title(dd) == next(
                    iter(_texts(dd, "[title]::attr(title)")), None
                )


@pytest.mark.parametrize(
    "markup",
    [
        "<a class='iCIMS_Anchor' href='/jobs/1/a/job' title='1 - A&#0;B'><h3>N&#0;urse</h3></a>",
        "<a class='iCIMS_Anchor' href='/jobs/1/a/job'><h3>N&#xD800;urse &#xDFFF;</h3></a>",
        "<a class='iCIMS_Anchor' href='/jobs/1/a/job?x=\x00&#0;'><h3>\ud800</h3></a>",
        "<a class='iCIMS_Anchor' href='/jobs/1/a/job'><h3>\x00\udc80 \x01</h3></a>"
        "<dl><dt>Category</dt><dd>&#0;x&#55296;</dd></dl>",
    ],
)
def test_rows_read_from_the_tree_are_storable_whatever_the_page_holds(markup: str) -> None:
    """The search reader hands its rows on as checked without looking at them: every
    text of theirs is lxml's but the page's URL. Pages with NULs and lone surrogates,
    as bytes, as character references and as invalid UTF-8, must not get one through."""
    body = (
        f"<html><body><div class='iCIMS_JobsTable'><div class='row'>{markup}"
        "</div></div></body></html>"
    ).encode("utf-8", "surrogatepass")
    doc = RawDocument(body, "https://x.icims.com/jobs/search?pr=0", DocumentKind.LISTING)
    data, rejection = icims.read_search(doc)
    assert rejection is None
    assert data["jobs"]
    assert data[ROWS_CHECKED] is True
    assert all(storable(row) for row in data["jobs"])


def test_rows_are_not_checked_where_the_page_url_is_unstorable() -> None:
    body = (
        b"<div class='iCIMS_JobsTable'><div class='row'><a class='iCIMS_Anchor'"
        b" href='/jobs/1/a/job'><h3>Nurse</h3></a></div></div>"
    )
    doc = RawDocument(body, "https://x.icims.com/jobs/\x00search", DocumentKind.LISTING)
    data, _ = icims.read_search(doc)
    assert data[ROWS_CHECKED] is False
