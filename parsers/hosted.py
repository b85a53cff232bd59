"""Hosted job pages (a platform's own HTML page for one posting).

The lifecycle checker reads these to tell a live posting from a closed one, so
the page's signal comes first: a bot wall is `blocked`, a page that says the job
is gone is `closed`, an error page is `not_found`. Otherwise the posting comes
from schema.org JSON-LD, or from a platform-specific reader (Greenhouse's Remix
state, Lever's markup) passed in by the platform's parser.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from parsers.common import outcome_from_postings
from parsers.jsonld import find_job_postings, jsonld_to_posting
from parsers.signals import looks_blocked, page_signal
from parsers.types import Issue, PageSignal, ParseOutcome, Posting, RawDocument

PageReader = Callable[[RawDocument], Posting | None]

_SIGNAL_ISSUES = {
    PageSignal.BLOCKED: Issue("blocked", "the page is a bot-challenge page, not the posting"),
    PageSignal.CLOSED: Issue("closed", "the page says this posting is closed"),
    PageSignal.NOT_FOUND: Issue("not_found", "the page is an error page: no such posting"),
}


def signal_rejection(doc: RawDocument, description: str | None = None) -> ParseOutcome | None:
    """A rejection carrying the page's signal, or None for a normal page. Pass the
    posting's own description once it is read: its words are not the page's verdict.
    Only for a page `looks_blocked` has passed (every caller checks that first)."""
    signal = page_signal(doc.body, doc.url, doc.status, description, unblocked=True)
    if signal is PageSignal.NORMAL:
        return None
    return ParseOutcome.rejected(_SIGNAL_ISSUES[signal], signal=signal)


def blocked_rejection() -> ParseOutcome:
    """The rejection for a page `looks_blocked` matched (a blocked page is never normal)."""
    return ParseOutcome.rejected(_SIGNAL_ISSUES[PageSignal.BLOCKED], signal=PageSignal.BLOCKED)


def id_from_url(url: str, pattern: str | None) -> str | None:
    if not pattern:
        return None
    match = re.search(pattern, url)
    return match.group(1) if match else None


def parse_hosted_page(
    doc: RawDocument,
    *,
    platform: str,
    id_pattern: str | None = None,
    reader: PageReader | None = None,
    public_url: Callable[[str], str] | None = None,
) -> ParseOutcome:
    """One posting from a hosted job page: the platform's reader, else JSON-LD.

    `public_url` turns the fetched address into the form the platform's API gives
    the same posting (Ashby's `jobUrl`), so both paths name it alike; the page's
    own claims (JSON-LD `url`) are weighed by `parsers.urls.posting_url`."""
    if not doc.body.strip():
        return ParseOutcome.rejected(Issue("empty_body", "the page is empty"))
    if looks_blocked(doc.body):
        return blocked_rejection()  # a challenge page: nothing on it is the posting's
    external_id = id_from_url(doc.url, id_pattern)
    posting = reader(doc) if reader is not None else None
    issues: list[Issue] = []
    if posting is None:
        nodes, issues = find_job_postings(doc.body)
        if nodes:
            page_url = public_url(doc.url) if public_url is not None else doc.url
            posting = jsonld_to_posting(nodes[0], page_url, external_id=external_id)
    rejection = signal_rejection(doc, posting.description_text if posting else None)
    if rejection is not None:
        return rejection
    if posting is None:
        issues.append(
            Issue("no_posting", f"no {platform} posting in this HTML page (no JSON-LD either)")
        )
        return ParseOutcome.rejected(*issues)
    return outcome_from_postings([("$", posting)], issues=issues)
