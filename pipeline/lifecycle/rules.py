"""The evidence rules that move a posting's status. Pure: facts in, decisions out.

Absence is not evidence: only complete scans count, a posting must be absent
from two consecutive complete scans to become `missing`, and closing needs a
direct check of the posting itself (pipeline.lifecycle.check_rules). A posting
seen again in any scan returns to `active`. The SQL that records these decisions
is in pipeline.lifecycle.store.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.lifecycle.check_rules import CheckVerdict

# The rows these rules decide over, for the type checker only: pure rules never load
# a database module (tests/architecture/contracts.py).
if TYPE_CHECKING:
    from pipeline.db.rows import Json, Orphan, PostingState

MISSING_AFTER_SCANS = 2
OPEN_STATUSES = ("active", "missing")
EMPTY_SCANS_BEFORE_SUSPECT = 3

# What a listing read proves about the postings it does not show.
PROVES_NOTHING = "proves_nothing"  # partial or truncated: it may add, never retire
NEW_BASELINE = "new_baseline"  # another scope than last time: start counting afresh
COUNTS = "counts"  # complete, same scope: every absence counts


@dataclass(frozen=True)
class ScanFacts:
    """What lifecycle needs to know about one listing read."""

    source_id: str
    board_id: int
    scan_id: int
    run_id: int
    present: Mapping[str, str]  # external id -> listing title
    complete: bool
    truncated: bool
    board_scope_hash: str | None
    scan_scope_hash: str | None
    exclude_titles: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PostingEvent:
    """One status change of a posting with its evidence (a row of core.posting_events)."""

    posting_id: int
    from_status: str
    to_status: str
    reason: str
    evidence: Mapping[str, Json]
    run_id: int
    scan_id: int | None = None


@dataclass(frozen=True)
class LifecycleCounts:
    reopened: int = 0
    missing: int = 0
    filtered: int = 0
    new_baseline: bool = False


def excluded_by(title: str, patterns: tuple[str, ...]) -> str | None:
    """The first exclusion pattern the title matches (case-insensitive), if any."""
    for pattern in patterns:
        if re.search(pattern, title or "", re.IGNORECASE):
            return pattern
    return None


def sort_present(
    present: Sequence[PostingState], facts: ScanFacts
) -> tuple[list[tuple[PostingState, str]], list[PostingState]]:
    """Postings the listing shows: (to filter, with the pattern; to reopen).

    A title rule that excludes a posting wins over its being seen; a posting seen
    and not excluded is active again whatever its status was.
    """
    to_filter, to_reopen = [], []
    for row in present:
        pattern = excluded_by(facts.present[row.external_id], facts.exclude_titles)
        if pattern is not None:
            if row.status != "filtered":
                to_filter.append((row, pattern))
        elif row.status != "active":
            to_reopen.append(row)
    return to_filter, to_reopen


def absence_verdict(facts: ScanFacts) -> str:
    """Whether this read's absences count (COUNTS), set a new baseline, or prove nothing."""
    if not facts.complete or facts.truncated:
        return PROVES_NOTHING
    if facts.board_scope_hash and facts.board_scope_hash != facts.scan_scope_hash:
        return NEW_BASELINE
    return COUNTS


def open_on_board(rows: Sequence[PostingState], board_id: int) -> list[PostingState]:
    return [r for r in rows if r.board_id == board_id and r.status in OPEN_STATUSES]


def outside_last_complete(
    stored: Mapping[str, PostingState], present: Iterable[str], board_id: int
) -> bool:
    """Whether a listing shows a posting its board's last complete listing lacked.

    `missing_count = 0` on a posting of the board means "in the last complete
    listing", which a 304 or an unchanged body repeats; any listing that shows a
    posting resets it to 0. A posting new to the board, or absent from that listing
    (`missing_count > 0`), breaks that meaning when the listing is partial: it does
    not become the repeatable one, yet its postings now read as held by it.
    `stored` is the rows as they were before this listing was written."""
    for external_id in present:
        row = stored.get(external_id)
        if row is None or row.board_id != board_id or row.missing_count > 0:
            return True
    return False


def becomes_missing(posting: PostingState) -> bool:
    """One more absence makes an active posting `missing` on the second complete scan."""
    return posting.status == "active" and posting.missing_count + 1 >= MISSING_AFTER_SCANS


def absence_event(posting: PostingState, *, run_id: int, scan_id: int) -> PostingEvent:
    return PostingEvent(
        posting.id,
        "active",
        "missing",
        f"absent_from_{MISSING_AFTER_SCANS}_complete_scans",
        {"scan_id": scan_id, "missing_count": posting.missing_count + 1},
        run_id,
        scan_id,
    )


def reopen_event(
    posting: PostingState, *, run_id: int, scan_id: int, via: str = "listing"
) -> PostingEvent:
    return PostingEvent(
        posting.id,
        posting.status,
        "active",
        "seen_again",
        {"scan_id": scan_id, "via": via},
        run_id,
        scan_id,
    )


def filter_event(posting: PostingState, pattern: str, facts: ScanFacts) -> PostingEvent:
    return PostingEvent(
        posting.id,
        posting.status,
        "filtered",
        "title_excluded",
        {
            "pattern": pattern,
            "title": facts.present[posting.external_id],
            "scan_id": facts.scan_id,
        },
        facts.run_id,
        facts.scan_id,
    )


def orphan_event(orphan: Orphan, *, run_id: int) -> PostingEvent:
    evidence = {"board": orphan.board_key, "board_state_reason": orphan.state_reason}
    return PostingEvent(orphan.id, "active", "missing", orphan.reason, evidence, run_id)


def check_event(
    posting_id: int,
    verdict: CheckVerdict,
    evidence: Mapping[str, Json],
    *,
    run_id: int,
    from_status: str = "missing",
) -> PostingEvent:
    """The event a conclusive direct check records as it closes a posting."""
    reason = f"direct_check:{verdict.reason}"
    return PostingEvent(posting_id, from_status, verdict.outcome, reason, evidence, run_id)
