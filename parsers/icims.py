"""iCIMS: the career portal's job search (`https://{portal}.icims.com/jobs/search?ss=1
&in_iframe=1&pr={page}`, HTML) and each job's page (`/jobs/{id}/{slug}/job`).

Search-page quirks: rows are `.iCIMS_JobsTable .row`; the title link is
`a.iCIMS_Anchor` (its `title` attribute reads "{id} - {title}") to
`/jobs/{id}/{slug}/job?in_iframe=1`; the other fields are `dt` / `dd` pairs of an
`.iCIMS_JobHeaderGroup` named by their labels ("Job Locations" as `US-CA-San
Francisco`, "Category", "Posted Date", "ID"), or, in the card layout, a `.field-label`
span and its next sibling ("Job Locations" then "US"); pages count from `pr=0`, and the
`.iCIMS_Paging` block links the next one and says "Page 1 of 3". The job page carries
the posting as schema.org JSON-LD (description, date, locations).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from lxml import etree
from parsel import Selector
from parsel.csstranslator import HTMLTranslator
from parsel.selector import create_root_node

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.hygiene import ROWS_CHECKED, storable_text
from parsers.jsonmap import Context, Draft, JsonParser, place_text, posting_from
from parsers.registry import register
from parsers.rowfind import SHAPE_ISSUE, SHAPE_ISSUES
from parsers.signals import looks_blocked
from parsers.text import clean_space
from parsers.types import Issue, PageSignal, ParseOutcome, Posting, RawDocument
from parsers.urls import join_claim

PARSER_VERSION = "2"
_JOB_PAGE = re.compile(r"/jobs/(\d+)/[^/?#]*/job(?:[?#]|$)")
_JOB_ID = re.compile(r"/jobs/(\d+)/")
_US_DATE = re.compile(r"^\s*(\d{1,2})/(\d{1,2})/(\d{4})\b")
_PAGES = re.compile(r"Page\s+(\d+)\s+of\s+(\d+)", re.I)
_NO_JOBS = re.compile(r"\bno jobs were found\b", re.I)
_LABELS = {
    "job locations": "location",
    "location": "location",
    "locations": "location",
    "category": "category",
    "posted date": "posted",
    "date posted": "posted",
    "id": "req_id",
}


def _css(query: str) -> etree.XPath:
    """A CSS query compiled once, to the XPath parsel's `.css()` would evaluate: a
    search page has 50 rows of a dozen queries each, and parsel translates, builds
    an evaluator and wraps every result in a Selector on every call."""
    return etree.XPath(HTMLTranslator().css_to_xpath(query), smart_strings=False)


_TITLE_TEXT = _css("h3 ::text, h2 ::text")
_TEXT = _css("::text")
_FIELD_LABELS = _css(".field-label")
_NEXT_SIBLING = etree.XPath("following-sibling::*[1]")
_PAGING_TEXT = _css(".iCIMS_Paging ::text")


def _row(row: etree._Element, base: str, card_labels: bool) -> dict[str, Any] | None:
    anchors = _anchors(row)
    href = anchors[0].get("href") if anchors else None
    found = _JOB_ID.search(href) if href else None
    if not href or found is None:
        return None
    if len(anchors) == 1:  # the usual row: its one title link
        texts = _heading_texts(anchors[0])
    else:
        texts = [text for a in anchors for text in _heading_texts(a)]
    title = clean_space(" ".join(texts)) or clean_space(
        re.sub(r"^\d+\s*-\s*", "", anchors[0].get("title", ""))
    )
    page = join_claim(base, href)
    if page is None:  # a link no URL parser accepts (a broken IPv6 literal)
        return None
    out: dict[str, Any] = {
        "id": found.group(1),
        "url": page.split("?")[0],  # the job page's own address (as its JSON-LD names it)
        "detail_url": page,
        "title": title,
    }
    _labelled_fields(row, out)
    if card_labels:
        for key, value in _card_fields(row):
            out.setdefault(key, value)
    return out


def _labelled_fields(row: etree._Element, out: dict[str, Any]) -> None:
    """The `dt` labels and their `dd` values, read by the element API: `iter("dt")`, the
    text nodes and the next `dd` sibling are what the `dt`, `::text` and
    `following-sibling::dd` queries select, in the same order, without an XPath
    evaluation each."""
    for dt in row.iter("dt"):
        key = _label_key(_joined_text(dt))
        if key is None:
            continue
        dd = _next_dd(dt)
        if dd is not None:
            value = _first_title(dd) if key == "posted" else None
            out[key] = value or clean_space(_joined_text(dd))


# Label texts already read, and the field each names: the same few labels on every
# row, looked up by one `dict.get` (`lru_cache`'s call costs as much as the lookup).
_KEYS: dict[str, str | None] = {}


def _label_key(text: str) -> str | None:
    """The row field a label's text names ("Job Locations" -> location), or None."""
    try:
        return _KEYS[text]
    except KeyError:
        key = _LABELS.get((clean_space(text) or "").lower())
        if len(_KEYS) < 512:  # bounded: a portal's labels are few, but pages are anyone's
            _KEYS[text] = key
        return key


def _has_class(value: str | None, name: str) -> bool:
    """Whether a `class` attribute holds `name`, as the CSS query `.name` decides it:
    XPath's normalize-space splits on XML's four whitespace characters only. An
    attribute of that one name, the usual case, is told without the split."""
    return value is not None and (
        value == name or (name in value and name in _XML_SPACE.split(value))
    )


_XML_SPACE = re.compile(r"[ \t\r\n]+")


def _anchors(row: etree._Element) -> list[etree._Element]:
    """`a.iCIMS_Anchor` in the row, in document order."""
    return [a for a in row.iter("a") if _has_class(a.get("class"), "iCIMS_Anchor")]


def _heading_texts(anchor: etree._Element) -> list[str]:
    """The text nodes of the link's `h3` and `h2` headings (`h3 ::text, h2 ::text`). A
    heading without children holds one text node at most, its `.text`; headings with
    markup inside (or one inside another) are left to the query's union."""
    texts: list[str] = []
    for heading in anchor.iter("h3", "h2"):
        if len(heading):
            texts = _TITLE_TEXT(anchor)
            return texts
        text = heading.text
        if text:
            texts.append(text)
    return texts


def _joined_text(element: etree._Element) -> str:
    """`" ".join(element.itertext())`, without the iterator for a childless element."""
    if len(element) == 0:
        return element.text or ""
    return " ".join(element.itertext())


def _next_dd(dt: etree._Element) -> etree._Element | None:
    """The first `dd` after the label: almost always the very next element."""
    following = dt.getnext()
    if following is not None and following.tag == "dd":
        return following
    return next(dt.itersiblings("dd"), None)


def _first_title(element: etree._Element) -> str | None:
    """The first `title` attribute at or under `element` (`[title]::attr(title)`). The
    usual place, the value's first child element, is asked first; a comment or
    processing instruction there (which `get` would answer for) takes the walk."""
    value = element.get("title")
    if value is not None:
        return value
    if len(element):
        first = element[0]
        if type(first) is etree._Element:
            value = first.get("title")
            if value is not None:
                return value
    for node in element.iter(etree.Element):
        value = node.get("title")
        if value is not None:
            return value
    return None


def _card_fields(row: etree._Element) -> list[tuple[str, str]]:
    """Card layouts label a field with a (screen-reader) `.field-label` span and put the
    value in the next sibling (`<span class="sr-only field-label">Job Locations</span>
    <span>US</span>`), without `dt` / `dd`. A label with no sibling value says nothing."""
    found: list[tuple[str, str]] = []
    for label in _FIELD_LABELS(row):
        key = _label_key(" ".join(_TEXT(label)))
        sibling = _NEXT_SIBLING(label)
        value = clean_space(" ".join(_TEXT(sibling[0]))) if sibling else None
        if key and value:
            found.append((key, value))
    return found


@dataclass
class _Classed:
    """The page's elements that the search reader looks for by class, found in one
    pass over the page's `class` attributes: each `.name` query walked every element
    and built a string per `class` attribute, about half as long as lxml's parse."""

    tables: list[etree._Element] = field(default_factory=list)
    rows: list[etree._Element] = field(default_factory=list)
    paging: list[etree._Element] = field(default_factory=list)
    card_labels: bool = False


# Every `class` attribute of the page, as a string that knows its element: most are
# not looked at further, so their elements are never wrapped for Python. (libxml2
# choosing the elements by `contains()` in the query took twice as long.)
_CLASS_VALUES = etree.XPath("descendant-or-self::*/@class")


def _classed(root: etree._Element) -> _Classed:
    found = _Classed()
    for value in _CLASS_VALUES(root):
        # Each name is first looked for as a substring, as the queries' `contains()`.
        if "row" in value and _has_class(value, "row"):
            found.rows.append(value.getparent())
        if "iCIMS_JobsTable" in value and _has_class(value, "iCIMS_JobsTable"):
            found.tables.append(value.getparent())
        if "iCIMS_Paging" in value and _has_class(value, "iCIMS_Paging"):
            found.paging.append(value.getparent())
        if "field-label" in value and not found.card_labels:
            found.card_labels = _has_class(value, "field-label")
    return found


def _table_rows(classed: _Classed) -> list[etree._Element]:
    """`.row` elements in each jobs table (`.iCIMS_JobsTable .row`), table by table:
    a row in two nested tables counts twice, as the queries per table return it."""
    return [
        row
        for table in classed.tables
        for row in classed.rows
        if row is table
        or row.getparent() is table  # the usual place, without a walk up
        or any(above is table for above in row.iterancestors())
    ]


def _paging_text(root: etree._Element, paging: list[etree._Element]) -> str:
    """The text of the `.iCIMS_Paging` blocks; the page-wide query only where there
    are several (one inside another would count its text once)."""
    if len(paging) > 1:
        return " ".join(_PAGING_TEXT(root))
    return " ".join(_TEXT(paging[0])) if paging else ""


def _next_page(paging: str, url: str) -> tuple[str | None, int | None]:
    """The next page's URL (pr + 1) while "Page N of M" says there is one."""
    pages = _PAGES.search(paging)
    if not pages or int(pages.group(1)) >= int(pages.group(2)):
        return None, int(pages.group(2)) if pages else None
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    query["pr"] = str(int(pages.group(1)))  # pages are shown from 1, asked for from 0
    return urlunsplit(parts._replace(query=urlencode(query))), int(pages.group(2))


def _page_root(body: bytes) -> etree._Element:
    """The tree parsel builds for `Selector(text=body.decode("utf-8", "replace"),
    type="html")`, with lxml's plain element classes: `lxml.html`'s are looked up
    by a Python function for every element the reader touches."""
    if not body.isascii() or b"\x00" in body:
        return create_root_node(body.decode("utf-8", "replace"), etree.HTMLParser)
    # An ASCII body without NULs decodes to itself: parsel's steps for the text (strip
    # it, drop NULs, encode it again) done on the bytes, without the three copies.
    parser = etree.HTMLParser(recover=True, encoding="utf-8", huge_tree=True)
    root = etree.fromstring(body.strip(_STR_WHITESPACE) or b"<html/>", parser=parser)
    if root is None:  # a body of nothing but comments, say
        root = etree.fromstring(b"<html/>", parser=parser)
    return root


# The ASCII characters `str.strip()` strips: the four separators besides bytes' six.
_STR_WHITESPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def read_search(doc: RawDocument) -> tuple[Any, ParseOutcome | None]:
    if looks_blocked(doc.body):
        return None, ParseOutcome.rejected(
            Issue("blocked", "the page is a bot-challenge page"), signal=PageSignal.BLOCKED
        )
    root = _page_root(doc.body)
    classed = _classed(root)
    issues: list[Issue] = []
    if classed.tables:
        row_nodes = _table_rows(classed)
    else:
        sel = Selector(root=root, type="html")
        row_nodes = [row.root for row in _rows_by_links(sel)]
        if not row_nodes:
            return _without_rows(sel)
        issues.append(
            Issue(
                SHAPE_ISSUE,
                f"no .iCIMS_JobsTable container: {len(row_nodes)} job rows found by their "
                "title links (a.iCIMS_Anchor to /jobs/{id}/…/job)",
                "a.iCIMS_Anchor",
            )
        )
    rows = [_row(row, doc.url, classed.card_labels) for row in row_nodes]
    jobs = [r for r in rows if r]
    next_url, _ = _next_page(_paging_text(root, classed.paging), doc.url)
    # The rows go out checked (the screen does not walk them): their texts are all
    # lxml's, which cannot hold what the database refuses, but for the page's URL.
    checked = _lxml_texts_storable(doc.url)
    return {"jobs": jobs, "next": next_url, SHAPE_ISSUES: issues, ROWS_CHECKED: checked}, None


def _lxml_texts_storable(base: str) -> bool:
    """Whether rows read from the tree are storable, told from the one text of theirs
    lxml did not give: the page's URL, which relative links are joined to. Every other
    text is lxml's (or part of one), decoded from libxml2's C strings, which end at the
    first NUL, by a strict UTF-8 decoder, which refuses lone surrogates: the two
    things `storable_text` looks for (tests/parsers/test_icims_element_reads.py)."""
    return storable_text(base)


def _without_rows(sel: Selector) -> tuple[Any, ParseOutcome | None]:
    """A search page without a single job row. iCIMS states its verdict in the listings
    page's `.iCIMS_GenericMessage`: "no jobs were found" is an empty board (read as an
    empty listing, which retires nothing: docs/lifecycle.md); any other message (a login
    wall, an error) is a rejection that names it; no message at all, a foreign page."""
    listings = sel.css(".iCIMS_ListingsPage")
    message = clean_space(" ".join(listings.css(".iCIMS_GenericMessage ::text").getall()))
    if message and _NO_JOBS.search(message):
        return {"jobs": [], "next": None, SHAPE_ISSUES: []}, None
    if message:
        return None, ParseOutcome.rejected(
            Issue("portal_message", f"the search page lists no jobs and says: {message}")
        )
    return None, ParseOutcome.rejected(
        Issue("unexpected_shape", "no .iCIMS_JobsTable on this page: not an iCIMS search")
    )


# The element that holds one job's title link and its fields: the nearest `.row`,
# list item, table row or article around the link.
_ROW_AROUND = (
    "ancestor::*[contains(concat(' ', normalize-space(@class), ' '), ' row ')"
    " or self::li or self::tr or self::article][1]"
)


def _rows_by_links(sel: Selector) -> list[Selector]:
    """Job rows found by their own marker, the title link to a job page, wherever the
    page puts them (a card layout without the jobs table). Where neither the nearest
    row-like element nor the link's parent holds this job alone, the link is the
    row: its title and id still count, its labelled fields are not guessed."""
    rows: list[Selector] = []
    seen: set[int] = set()
    for link in sel.css("a.iCIMS_Anchor[href]"):
        found = _JOB_ID.search(link.attrib.get("href", ""))
        if not found:
            continue
        around = [*link.xpath(_ROW_AROUND), *link.xpath("..")]
        row = next((r for r in around if _one_job(r, found.group(1))), link)
        if id(row.root) not in seen:
            seen.add(id(row.root))
            rows.append(row)
    return rows


def _one_job(row: Selector, job_id: str) -> bool:
    ids = {_JOB_ID.search(h) for h in row.css("a.iCIMS_Anchor::attr(href)").getall()}
    return {m.group(1) for m in ids if m} == {job_id}


def _paging(data: Any, doc: RawDocument, count: int) -> tuple[str | None, dict[str, Any]]:
    return (data.get("next") if isinstance(data, dict) else None), {"count": count}


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="icims", id_pattern=r"/jobs/(\d+)/")


def _listing_posting(
    row: dict[str, Any], payload: Mapping[str, Any], ctx: Context, page: Draft
) -> Posting:
    """A search row's posting in one step, as the ICIMS mapping's draft, the
    month-first date rule and `finish` made it: the mapping's fields read by their keys
    (pinned by tests/parsers/test_icims_rows.py), the rest derived by `posting_from` as
    for every platform. The rows are `read_search`'s: their values are texts or None,
    so `clean_space` stands for `field_text` and `or None` for the draft's "nothing
    given". The id (digits), the title and the category come out of `_row` clean
    already, and cleaning is idempotent: they are taken as they are."""
    posted = row.get("posted") or None
    # Portals write dates month first ("01/05/2026 09:00 AM"): such a date is read
    # here (None for an impossible one); any other text is left to `posting_from`.
    month_first, us_posted = _us_date(posted or "")
    return posting_from(
        row["id"],
        clean_space(row["url"]),
        row["title"],
        None,  # company: the board's, from configuration
        row.get("category"),
        place_text(row.get("location") or None),
        (),  # offices: the job page names them
        None,  # description: the job page's
        None,
        None,  # employment type
        us_posted if month_first else posted,
        None,  # remote: from the location's words
        None,  # salary
        None,  # apply URL: the posting's
        None,  # job type: from the title
        None,  # more offices
        clean_space(row.get("detail_url")),
        None,  # legal entity
        payload,
        ctx.doc.fetched_at,
    )


@lru_cache(maxsize=1024)  # a page's rows share a few dates; the values are immutable
def _us_date(text: str) -> tuple[bool, tuple[datetime, str] | None]:
    """(whether `text` starts with a month-first date, the date read from it or None
    for an impossible one)."""
    found = _US_DATE.match(text)
    if not found:
        return False, None
    month, day, year = (int(g) for g in found.groups())
    try:
        return True, (datetime(year, month, day, tzinfo=UTC), "day")
    except ValueError:
        return True, None


_search = JsonParser(
    mappings.ICIMS, prepare=read_search, paging=_paging, listing_row=_listing_posting
)


@register("icims", PARSER_VERSION)
def parse_icims(doc: RawDocument) -> ParseOutcome:
    if not doc.body.strip():
        return ParseOutcome.rejected(Issue("empty_body", "the page is empty"))
    if _JOB_PAGE.search(doc.url):
        return parse_page(doc)
    return _search(doc)
