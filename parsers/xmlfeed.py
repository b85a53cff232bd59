"""XML job feeds read into the data a `JsonMapping` walks (SuccessFactors, JazzHR,
Jobvite). The parser resolves no entities and fetches nothing (no XXE); CDATA is
text. An element with children becomes a dict (a repeated child, a list); a leaf,
its whitespace-cleaned text."""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

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


def read_feed(
    doc: RawDocument, *, roots: tuple[str, ...], item: str, key: str
) -> tuple[Any, ParseOutcome | None]:
    """`{key: [item dicts], "$root": {other top-level fields}}`, or a rejection."""
    if looks_blocked(doc.body):
        return None, ParseOutcome.rejected(
            Issue("blocked", "the response is a bot-challenge page"), signal=PageSignal.BLOCKED
        )
    try:
        root = etree.fromstring(doc.body, _parser())
    except etree.XMLSyntaxError as exc:
        return None, ParseOutcome.rejected(Issue("invalid_xml", f"not a readable XML feed: {exc}"))
    if root.tag not in roots:
        wanted = " or ".join(f"<{r}>" for r in roots)
        return None, ParseOutcome.rejected(
            Issue("unexpected_shape", f"expected a {wanted} feed, got <{root.tag}>", "/")
        )
    items = [element(node) for node in root.iter(item)]
    top = {
        c.tag: element(c) for c in root if isinstance(c.tag, str) and c.tag != item and len(c) == 0
    }
    return {key: [i for i in items if isinstance(i, dict)], "$root": top}, None
