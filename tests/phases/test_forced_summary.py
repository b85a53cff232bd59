"""A forced discover's message: what it polled, what waited and until when; and the
boards an operator names, checked before anything is polled."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pipeline.crawl.board_choice import BoardsRefused, KnownBoard, UnknownBoards, pick_named
from pipeline.phases.forced import Deferral, forced_summary

NOW = datetime(2026, 3, 2, 22, 14, tzinfo=UTC)
BOARDS = [
    KnownBoard(7, "acme", True, "active", None),
    KnownBoard(8, "12", True, "active", None),  # a numeric key
    KnownBoard(12, "gone", True, "retired", "3 consecutive HTTP 404 answers on the listing"),
    KnownBoard(13, "dropped", False, "active", None),
]


def test_the_message_names_the_cooling_host_and_when_it_may_be_asked_again() -> None:
    cooling = {"boards.example": NOW + timedelta(minutes=27)}
    deferred = {4: Deferral("boards.example")}
    assert forced_summary(3, deferred, 0, cooling, NOW) == (
        "forced: 3 boards polled, 1 deferred (host boards.example cooling down until 22:41 UTC)"
    )


def test_several_reasons_are_counted_and_unreached_boards_said() -> None:
    deferred = {
        1: Deferral("a.example"),
        2: Deferral("a.example"),
        3: Deferral("b.example"),
    }
    cooling = {"a.example": NOW + timedelta(hours=1)}
    assert forced_summary(1, deferred, 2, cooling, NOW) == (
        "forced: 1 board polled, 3 deferred (2: host a.example cooling down until 23:14 UTC;"
        " 1: host b.example's request budget spent), 2 not claimed (leased by another"
        " worker, or behind a host budget that stayed spent)"
    )
    assert forced_summary(0, {}, 0, {}, NOW) == "forced: no enabled board to poll"


def test_names_are_keys_first_then_ids() -> None:
    assert pick_named("gh", BOARDS, ["acme", "acme"]) == (7,)
    assert pick_named("gh", BOARDS, ["12"]) == (8,)  # the key `12`, not the board with id 12
    assert pick_named("gh", BOARDS, ["8", "7"]) == (7, 8)


def test_unknown_names_fail_before_refusals_and_both_name_every_board() -> None:
    with pytest.raises(UnknownBoards) as unknown:
        pick_named("gh", BOARDS, ["acme", "nope", "gone", "99"])
    assert str(unknown.value) == (
        "nothing polled: gh has no board 'nope', '99' (give board keys or ids of this source)"
    )
    with pytest.raises(BoardsRefused) as refused:
        pick_named("gh", BOARDS, ["acme", "gone", "dropped"])
    assert str(refused.value) == (
        "refused, nothing polled: gh/gone is retired (3 consecutive HTTP 404 answers on the"
        " listing); a manual poll does not bring a retired board back;"
        " gh/dropped is disabled (no longer in sources.yaml)"
    )
