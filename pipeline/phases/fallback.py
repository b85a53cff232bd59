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

from collections.abc import Iterable

from parsers.types import Issue
from pipeline.crawl.platforms import Platform
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
