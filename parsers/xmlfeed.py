"""XML job feeds read into the data a `JsonMapping` walks (SuccessFactors, JazzHR,
Jobvite). The parser resolves no entities and fetches nothing (no XXE); CDATA is
text. An element with children becomes a dict (a repeated child, a list); a leaf,
its whitespace-cleaned text."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from parsers.rowfind import SHAPE_ISSUE, SHAPE_ISSUES, RowMarkers
from parsers.signals import looks_blocked
from parsers.types import Issue, PageSignal, ParseOutcome, RawDocument

_HTML_START = re.compile(
    rb"\s*(?:\xef\xbb\xbf)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html)\b", re.I | re.S
)


def is_html_page(body: bytes) -> bool:
    """An HTML page (a hosted job page, an error page), not a feed: a feed may come
    without an `<?xml` declaration, so markup alone does not make a page."""
    return _HTML_START.match(body[:2048]) is not None


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False, no_network=True, huge_tree=False, recover=False, strip_cdata=True
    )


def element(node: Any) -> Any:
    children = [c for c in node if isinstance(c.tag, str)]
    if not children:
        return node.text.strip() if node.text and node.text.strip() else None
    out: dict[str, Any] = {}
    for child in children:
        value = element(child)
        if child.tag in out:
            previous = out[child.tag]
            out[child.tag] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            out[child.tag] = value
    return out


def feed_rows(
    doc: RawDocument, *, roots: tuple[str, ...], item: str, markers: RowMarkers
) -> tuple[list[Any], Any, list[Issue]] | ParseOutcome:
    """(item elements, their parent, shape issues), or a rejection.

    Under a documented root every `item` element is a row, as always. Under another
    root (an added wrapper), or with the root element missing (rows side by side),
    the `item` elements that carry the platform's markers are rows and the outcome
    gets a `listing_shape` issue; a document with no such rows keeps its rejection."""
    if looks_blocked(doc.body):
        return ParseOutcome.rejected(
            Issue("blocked", "the response is a bot-challenge page"), signal=PageSignal.BLOCKED
        )
    wanted = " or ".join(f"<{r}>" for r in roots)
    try:
        root = etree.fromstring(doc.body, _parser())
    except etree.XMLSyntaxError as exc:
        rejection = ParseOutcome.rejected(Issue("invalid_xml", f"not a readable XML feed: {exc}"))
        rootless = _rows_without_root(doc.body, item, markers)
        if rootless is None:
            return rejection
        issue = Issue(
            SHAPE_ISSUE,
            f"{len(rootless)} <{item}> rows side by side without the {wanted} root element",
            "/",
        )
        return rootless, rootless[0].getparent(), [issue]
    if root.tag in roots:
        items = list(root.iter(item))
        return items, (items[0].getparent() if items else root), []
    items = [node for node in root.iter(item) if _is_row(node, markers)]
    if not items:
        return ParseOutcome.rejected(
            Issue("unexpected_shape", f"expected a {wanted} feed, got <{root.tag}>", "/")
        )
    parent = items[0].getparent()
    issue = Issue(
        SHAPE_ISSUE,
        f"{len(items)} <{item}> rows (with {markers.describe()}) found under <{parent.tag}> "
        f"in a <{root.tag}> document, not in a {wanted} feed",
        "/",
    )
    return items, parent, [issue]


def _is_row(node: Any, markers: RowMarkers) -> bool:
    return markers.matches({child.tag: True for child in node if isinstance(child.tag, str)})


_DECLARATION = re.compile(rb"^\s*(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*\?>)?", re.S)


def _rows_without_root(body: bytes, item: str, markers: RowMarkers) -> list[Any] | None:
    """Rows written side by side with no element around them (not well-formed XML),
    read inside a root of our own; None unless that yields marker-carrying rows."""
    rest = body[_DECLARATION.match(body).end() :]  # type: ignore[union-attr]
    if b"<!DOCTYPE" in rest[:1024].upper():
        return None
    try:
        root = etree.fromstring(b"<rows>" + rest + b"</rows>", _parser())
    except etree.XMLSyntaxError:
        return None
    items = [node for node in root.iter(item) if _is_row(node, markers)]
    return items or None


def read_feed(
    doc: RawDocument, *, roots: tuple[str, ...], item: str, key: str, markers: RowMarkers
) -> tuple[Any, ParseOutcome | None]:
    """`{key: [item dicts], "$root": {the rows' parent's other fields}}`, or a rejection."""
    found = feed_rows(doc, roots=roots, item=item, markers=markers)
    if isinstance(found, ParseOutcome):
        return None, found
    nodes, parent, issues = found
    items = [element(node) for node in nodes]
    top = {
        c.tag: element(c)
        for c in parent
        if isinstance(c.tag, str) and c.tag != item and len(c) == 0
    }
    data: dict[str, Any] = {key: [i for i in items if isinstance(i, dict)], "$root": top}
    if issues:
        data[SHAPE_ISSUES] = issues
    return data, None
