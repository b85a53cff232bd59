"""A repeat of a board's last complete listing (a 304, or the same body again)
is one more complete scan only for what that listing held. A partial listing that shows
a posting the last complete one lacked (new to the board, or absent from it) makes the
board's next poll read the listing in full; a partial one that shows nothing new keeps
the board's validators, and the repeat that follows changes nothing.

Driven through the real discover over the sandbox and Postgres (the pinned property
sequence was complete{0}, partial{1}, complete{0}, complete{0})."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pipeline.app import App
from tests.lifecycle.test_scenarios import (
    BOARD,
    _board_row,
    _listing_body,
    events,
    fault,
    gh_app,
    poll,
    postings,
)


def _partial_listing_of_every_job(sandbox, drop: str = "") -> dict[str, Any]:
    """The board's jobs (all but `drop`) with a total one higher than shown: partial."""
    body = json.loads(_listing_body(sandbox, drop, [], total=True))
    body["meta"]["total"] += 1
    return {"status": 200, "body": json.dumps(body), "content_type": "application/json"}


def _statuses(app: App) -> dict[str, tuple[str, int]]:
    return {k: (v["status"], v["missing_count"]) for k, v in postings(app).items()}


@pytest.mark.parametrize(
    ("history", "validators", "repeat"),
    [
        ("new to the board", "both", "not_modified"),
        ("new to the board", "none", "unchanged"),
        ("absent once", "both", "not_modified"),
    ],
)
def test_a_posting_shown_only_by_a_partial_listing_goes_missing_after_two_complete_listings_without_it(
    app, sandbox, tmp_path, history: str, validators: str, repeat: str
) -> None:
    jobs = sandbox.state.board("greenhouse", BOARD).jobs
    target = str(jobs[0].job_id)
    without = {"omit": [jobs[0].job_id], "validators": validators}
    gh = gh_app(app, sandbox, tmp_path)
    if history == "absent once":
        poll(gh)  # a complete listing with it
    fault(sandbox, without)
    poll(gh)  # a complete listing without it: the one later polls repeat
    assert _statuses(gh).get(target, ("active", 1)) == ("active", 1)

    fault(sandbox, _partial_listing_of_every_job(sandbox))
    assert poll(gh)["outcomes"] == {"changed": 1}
    assert _statuses(gh)[target] == ("active", 0)  # seen: its absences start afresh

    fault(sandbox, without)
    first = poll(gh)  # the same complete listing again, read in full: one absence
    assert first["outcomes"] == {"unchanged": 1}, first
    assert _statuses(gh)[target] == ("active", 1)
    assert _board_row(gh)["pending_absences"] == 1

    second = poll(gh)  # its repeat: the second complete scan without it
    assert second["outcomes"] == {repeat: 1}, second
    assert second["postings_missing"] == 1
    statuses = _statuses(gh)
    assert statuses.pop(target) == ("missing", 2)
    assert set(statuses.values()) == {("active", 0)}
    assert events(gh, target) == [("active", "missing", "absent_from_2_complete_scans")]


def test_a_repeat_with_no_pending_absence_after_a_partial_listing_changes_nothing(
    app, sandbox, tmp_path
) -> None:
    """A partial listing of postings the last complete one held keeps the validators:
    the repeat after it is one 304, recorded with the quiet boards, moving nothing."""
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    before = _statuses(gh)
    assert set(before.values()) == {("active", 0)}
    fault(sandbox, _partial_listing_of_every_job(sandbox, drop=next(iter(before))))
    poll(gh)
    fault(sandbox, None)
    sandbox.state.log.clear()

    stats = poll(gh)

    assert stats["outcomes"] == {"not_modified": 1}
    assert [e.status for e in sandbox.state.requests()] == [304]
    assert (stats["postings_missing"], stats["postings_reopened"]) == (0, 0)
    assert _statuses(gh) == before
    assert _board_row(gh)["pending_absences"] == 0
    with gh.db.connect() as conn:
        assert conn.execute("SELECT count(*) AS n FROM core.posting_events").fetchone()["n"] == 0
