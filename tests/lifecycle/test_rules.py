"""The pure lifecycle rules, one decision at a time (their SQL is tested in test_scenarios)."""

from __future__ import annotations

import pytest

from pipeline.db.rows import PostingState
from pipeline.lifecycle.check_rules import CheckVerdict
from pipeline.lifecycle.rules import (
    COUNTS,
    MISSING_AFTER_SCANS,
    NEW_BASELINE,
    PROVES_NOTHING,
    ScanFacts,
    absence_event,
    absence_verdict,
    becomes_missing,
    check_event,
    excluded_by,
    open_on_board,
    outside_last_complete,
    sort_present,
)


def posting(
    external_id: str = "a",
    status: str = "active",
    *,
    id: int = 1,
    board_id: int = 1,
    missing: int = 0,
) -> PostingState:
    return PostingState(id, external_id, board_id, status, missing)


def facts(**values: object) -> ScanFacts:
    base: dict[str, object] = {
        "source_id": "s",
        "board_id": 1,
        "scan_id": 10,
        "run_id": 5,
        "present": {"a": "Engineer", "b": "Intern (unpaid)"},
        "complete": True,
        "truncated": False,
        "board_scope_hash": "scope-1",
        "scan_scope_hash": "scope-1",
    }
    return ScanFacts(**{**base, **values})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("values", "verdict"),
    [
        ({}, COUNTS),
        ({"complete": False}, PROVES_NOTHING),
        ({"truncated": True}, PROVES_NOTHING),
        ({"complete": False, "scan_scope_hash": "scope-2"}, PROVES_NOTHING),
        ({"scan_scope_hash": "scope-2"}, NEW_BASELINE),
        ({"board_scope_hash": None, "scan_scope_hash": "scope-2"}, COUNTS),
    ],
)
def test_only_a_complete_untruncated_read_of_the_same_scope_counts_absences(
    values: dict[str, object], verdict: str
) -> None:
    assert absence_verdict(facts(**values)) == verdict


@pytest.mark.parametrize(
    ("status", "missing_count", "becomes"),
    [
        ("active", 0, False),  # the first absence is only counted
        ("active", MISSING_AFTER_SCANS - 1, True),
        ("active", 5, True),
        ("missing", 1, False),  # already missing: no second transition
    ],
)
def test_an_active_posting_becomes_missing_on_its_second_complete_absence(
    status: str, missing_count: int, becomes: bool
) -> None:
    assert becomes_missing(posting(status=status, missing=missing_count)) is becomes


def test_a_title_rule_filters_a_seen_posting_and_other_seen_postings_reopen() -> None:
    rows = [posting("a", "missing"), posting("b", "active")]
    to_filter, to_reopen = sort_present(rows, facts(exclude_titles=(r"\bintern\b",)))
    assert [(r.external_id, p) for r, p in to_filter] == [("b", r"\bintern\b")]
    assert [r.external_id for r in to_reopen] == ["a"]


def test_an_already_filtered_or_active_posting_moves_nowhere() -> None:
    rows = [posting("a", "active"), posting("b", "filtered")]
    assert sort_present(rows, facts(exclude_titles=("intern",))) == ([], [])


def test_exclusion_patterns_match_case_insensitively_and_name_the_first_match() -> None:
    assert excluded_by("Senior INTERN", ("nothing", "intern", "senior")) == "intern"
    assert excluded_by("Engineer", ("intern",)) is None
    assert excluded_by("", ("intern",)) is None


def test_only_open_postings_of_the_scanned_board_can_be_absent() -> None:
    rows = [
        posting(id=1, board_id=1, status="active"),
        posting(id=2, board_id=1, status="missing"),
        posting(id=3, board_id=1, status="expired"),
        posting(id=4, board_id=2, status="active"),  # same posting id listed elsewhere
    ]
    assert [r.id for r in open_on_board(rows, 1)] == [1, 2]


def test_events_carry_the_evidence_of_their_transition() -> None:
    missing = absence_event(posting(id=7, missing=1), run_id=5, scan_id=10)
    assert missing.reason == f"absent_from_{MISSING_AFTER_SCANS}_complete_scans"
    assert missing.evidence == {"scan_id": 10, "missing_count": 2}
    verdict = CheckVerdict("not_found", "http_404", {"status": 404})
    closed = check_event(7, verdict, {"status": 404}, run_id=5)
    assert (closed.from_status, closed.to_status) == ("missing", "not_found")
    assert closed.reason == "direct_check:http_404"
    assert closed.scan_id is None


@pytest.mark.parametrize(
    ("stored", "outside"),
    [
        ({"a": posting(board_id=1, missing=0)}, False),  # held by the last complete one
        ({}, True),  # new to the board
        ({"a": posting(board_id=1, missing=1)}, True),  # absent from it
        ({"a": posting(board_id=2, missing=0)}, True),  # listed by another board
    ],
)
def test_a_listing_is_outside_the_last_complete_one_when_it_shows_what_that_one_lacked(
    stored: dict[str, PostingState], outside: bool
) -> None:
    assert outside_last_complete(stored, ["a"], board_id=1) is outside
