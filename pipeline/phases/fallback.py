"""Falling back to a board's next listing format (docs/parsers.md, "Formats per platform").

Pure: a finished read in, and either why its format is unavailable for this board
(the evidence a switch records) or None. Only answers that say "this board has no
such listing here" move a board to another format: the listing endpoint's 404 or
410, or a first page its platform's parser rejects as not being that format at all
(another document, a disabled feed's page). A failure that may pass (no response,
5xx, 429, a bot wall, a robots.txt refusal) is asked again next time in the same
format: switching on it would trade a good format for a worse one on a bad minute.
An HTML page answered with 200 where JSON or XML was expected is taken for another
format (a parser's `html_not_json`, `no_posting`) unless the source's validation
refuses its content type first, which then makes it a failure that may pass.

The switch's own read is judged like any other, and its URL is another scope, so a
complete read in the new format is a new baseline (docs/lifecycle.md): it may add
postings and reopen them, but no absence from it counts; the next complete read in
the same format that differs from it counts absences again (one that repeats it, a
304 or an identical body, confirms the baseline and moves nothing). A board moves to the new format only when that format answered
with a listing; otherwise it stays where it was and the run records both failures.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta

from parsers.types import Issue
from pipeline.crawl.platforms import Platform, host_of
from pipeline.crawl.platforms.base import (
    GONE_STATUSES,
    NOT_THIS_FORMAT,
    ONLY_FORMAT,
    ListingFormat,
)
from pipeline.db.rows import BoardRow
from pipeline.phases.listing import FormatTry, ListingRead

SWITCH_ISSUE = "format_fallback"
KEPT_ISSUE = "format_unavailable"
RETURN_ISSUE = "format_return"
STAYED_ISSUE = "format_return_failed"

# How often a board read in a fallback asks its best format again. A fallback is taken
# on a 404 or a body of another kind, which are usually for good (an endpoint retired,
# a feed switched off) but sometimes a vendor's bad day; a week bounds how long such a
# day keeps a board in the worse format, at one extra request per board per week.
RETURN_PROBE_EVERY = timedelta(days=7)
# Boards that fell back together (one vendor's outage moves all its boards in the same
# hour) would otherwise probe together every week after; each board's probe comes a
# fixed share of this later (from its id), so they land on different runs of the day.
RETURN_PROBE_SPREAD = timedelta(days=1)


def unavailable(read: ListingRead) -> str | None:
    """Why the read shows its format is unavailable for this board, or None when it
    does not (it succeeded, or it failed in a way that may pass)."""
    if len(read.attempts) != 1:
        return None  # a later page's failure says nothing about the format
    if read.outcome == "failed" and read.http_status in GONE_STATUSES:
        return f"HTTP {read.http_status} on the listing"
    if read.outcome == "rejected":
        codes = [i for i in read.issues if i.code in NOT_THIS_FORMAT]
        if codes:
            return f"not this format: {codes[0].code}: {codes[0].message}"
    return None


def format_of(platform: Platform, board: BoardRow, api_base: str | None) -> str | None:
    """The board's current format name: recorded, else the one its URL matches."""
    if board.format:
        return board.format
    for fmt, url in platform.board_formats(api_base, board.board_key):
        if url == board.url:
            return fmt.name
    return None


def next_format(
    platform: Platform, board: BoardRow, api_base: str | None, tried: Iterable[str]
) -> tuple[ListingFormat, str] | None:
    """The best format the board's token leads to that this poll has not asked yet
    (better ones first: a board read in a fallback returns to a better format once
    its own becomes unavailable)."""
    asked = set(tried)
    for fmt, url in platform.board_formats(api_base, board.board_key):
        if fmt.name != ONLY_FORMAT and fmt.name not in asked and url != board.url:
            return fmt, url
    return None


def switch_issues(tries: Iterable[FormatTry], now_format: str, adopted: bool) -> list[Issue]:
    """What the scan records about the formats it gave up on, and where it ended."""
    issues = []
    for tried in tries:
        if adopted:
            message = f"{tried.format} unavailable ({tried.reason}): read as {now_format}"
            issues.append(Issue(SWITCH_ISSUE, message, tried.url))
        else:
            message = f"{tried.format} unavailable ({tried.reason}); {now_format} did not answer"
            issues.append(Issue(KEPT_ISSUE, message + " with a listing either", tried.url))
    return issues


def at_format(board: BoardRow, name: str, url: str) -> BoardRow:
    """The board as read in format `name` at `url`. Another URL: the old format's
    validators and hashes say nothing about it."""
    return replace(
        board,
        url=url,
        host=host_of(url),
        format=name,
        etag=None,
        last_modified=None,
        body_hash=None,
        listing_hash=None,
    )


# ------------------------------------------------------------ the way back


def probe_offset(board_id: int) -> timedelta:
    """The board's own share of RETURN_PROBE_SPREAD: the same on every run, and spread
    evenly over the boards (a hash of the id, not the id, so neighbours differ)."""
    digest = hashlib.sha256(str(board_id).encode()).digest()
    return RETURN_PROBE_SPREAD * (int.from_bytes(digest[:8], "big") / 2**64)


def probe_due(board: BoardRow, now: datetime) -> bool:
    """Whether the board's better formats are due to be asked again: a week and its
    offset after its format was last chosen (a switch, a probe, the board's creation).
    Never chosen on record (None) is due."""
    if board.format_chosen_at is None:
        return True
    return now >= board.format_chosen_at + RETURN_PROBE_EVERY + probe_offset(board.id)


def return_probe(
    platform: Platform, board: BoardRow, api_base: str | None, now: datetime
) -> tuple[ListingFormat, str] | None:
    """The format a return probe asks now: the best one the board's token leads to, when
    the board is read in a worse one and its probe is due; else None."""
    found = platform.board_formats(api_base, board.board_key)
    if len(found) < 2 or not probe_due(board, now):
        return None
    best, url = found[0]
    current = format_of(platform, board, api_base)
    if current is None or current == best.name or url == board.url:
        return None  # read in its best format already (or in none this token leads to)
    return best, url


def probe_try(fmt: str, url: str, read: ListingRead) -> FormatTry:
    """A return probe that found no listing, as the evidence its scan and the fetch log
    keep: an unavailable format as a fallback records it, anything else as a probe that
    failed (it may pass; the next probe asks again)."""
    gone = unavailable(read)
    if gone is not None:
        return FormatTry(fmt, url, gone, read.attempts, read.raws)
    why = read.outcome + (f": {read.error}" if read.error else "")
    return FormatTry(fmt, url, why, read.attempts, read.raws, logged_as="format_probe_failed")


def return_issue(returned_to: str, left: str, url: str) -> Issue:
    """What the scan of a board that went back to a better format records."""
    message = f"{returned_to} answered with a listing again: read as {returned_to}, not {left}"
    return Issue(RETURN_ISSUE, message, url)


def stayed_issues(probed: Iterable[FormatTry], now_format: str) -> list[Issue]:
    """What the scan of a board whose return probe found no listing records."""
    return [
        Issue(STAYED_ISSUE, f"{t.format} still not read ({t.reason}): read as {now_format}", t.url)
        for t in probed
    ]
