"""A search as an Atom feed (RFC 4287): `/feed` takes the search page's parameters, so a
visitor can follow any search in a feed reader with no account. Newest first; each
entry is a job page."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from xml.etree import ElementTree as ET

from web import i18n
from web.i18n import gettext as _

ATOM = "http://www.w3.org/2005/Atom"
XML = "http://www.w3.org/XML/1998/namespace"
SUMMARY_CHARS = 300


def entry_updated(item: dict[str, Any]) -> datetime:
    """When the posting was posted, else first seen (a feed reader sorts by it)."""
    return item.get("posted_at") or item.get("first_seen_at") or datetime.now(UTC)


def atom(
    *,
    title: str,
    feed_url: str,
    page_url: str,
    job_url: str,
    items: Sequence[dict[str, Any]],
    now: datetime,
) -> bytes:
    """The feed document. `job_url` has `{id}` where a job's id goes."""
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    feed.set(f"{{{XML}}}lang", i18n.locale())  # the language of its title and summaries
    _text(feed, "id", feed_url)
    _text(feed, "title", title)
    updated = max((entry_updated(i) for i in items), default=now)
    _text(feed, "updated", _stamp(updated))
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="self", href=feed_url)
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="alternate", type="text/html", href=page_url)
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    _text(author, "name", "jobharbor")
    for item in items:
        feed.append(_entry(item, job_url.format(id=item["id"])))
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True)


def _entry(item: dict[str, Any], url: str) -> ET.Element:
    entry = ET.Element(f"{{{ATOM}}}entry")
    _text(entry, "id", url)
    heading = item["title"] + (f" · {item['company']}" if item.get("company") else "")
    _text(entry, "title", heading)
    _text(entry, "updated", _stamp(entry_updated(item)))
    if item.get("posted_at"):
        _text(entry, "published", _stamp(item["posted_at"]))
    ET.SubElement(entry, f"{{{ATOM}}}link", rel="alternate", type="text/html", href=url)
    if item.get("company"):
        author = ET.SubElement(entry, f"{{{ATOM}}}author")
        _text(author, "name", item["company"])
    where = item.get("location_text") or _("Location not stated")  # the page's language
    summary = " · ".join((where, item.get("snippet") or "")).strip(" ·")
    _text(entry, "summary", _clean(summary)[:SUMMARY_CHARS])
    return entry


def _text(parent: ET.Element, name: str, value: str) -> None:
    ET.SubElement(parent, f"{{{ATOM}}}{name}").text = _clean(value)


def _clean(text: str) -> str:
    """XML 1.0 allows no control characters but tab, newline and return."""
    return "".join(c for c in text if c >= " " or c in "\t\n\r")


def _stamp(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
