"""Forcing a discover: boards that are not due are claimed now, through the same claim
and lease path and the same host budgets; a host that is cooling down still receives
nothing. Named boards are the only ones polled, and a name the source does not have
fails the run before any request."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from pipeline.crawl.board_choice import BoardsRefused, UnknownBoards
from pipeline.crawl.pacing import Budget, Pacer
from pipeline.crawl.queue import ClaimFilter, claim, new_owner
from pipeline.phases.common import utc_clock
from pipeline.phases.discover import discover
from pipeline.settings import REPO_ROOT
from tests.apps import board, greenhouse_source, query, scans, worker_env

TOKENS = ["near", "far", "third"]


@pytest.fixture
def polled_once(make_app, sandbox):
    """Three boards of `gh`, each polled once: none is due again for a while."""
    app = make_app(greenhouse_source("gh", sandbox.url, TOKENS))
    assert discover(app, "gh").stats["boards"] == len(TOKENS)
    assert query(app, "SELECT count(*) AS n FROM crawl.boards WHERE due_at > now()") == [{"n": 3}]
    return app


def listings_requested_since(sandbox, mark: int) -> list[str]:
    """The boards whose listing the sandbox served after its first `mark` requests."""
    return sorted(e.token for e in sandbox.state.requests()[mark:] if e.platform == "greenhouse")


def test_a_forced_claim_takes_boards_not_yet_due_and_named_ones_only(polled_once) -> None:
    app = polled_once
    ids = {key: board(app, key)["id"] for key in TOKENS}
    with app.db.connect() as conn:
        assert claim(conn, new_owner(), ClaimFilter("gh"), 10) == []  # nothing is due
        named = ClaimFilter("gh", since=datetime.now(UTC), boards=(ids["far"],))
        assert [b.board_key for b in claim(conn, new_owner(), named, 10)] == ["far"]
        # The forced claim is the ordinary one: a leased board is not taken twice.
        every = ClaimFilter("gh", since=datetime.now(UTC))
        assert sorted(b.board_key for b in claim(conn, new_owner(), every, 10)) == [
            "near",
            "third",
        ]


def test_forcing_polls_boards_not_due_but_a_cooling_host_receives_nothing(
    polled_once, sandbox, second_sandbox
) -> None:
    app = polled_once
    # `far` lists on another host (a source's boards may span hosts: Workday tenants,
    # imported boards), and that host answered 429 with a Retry-After of ten minutes.
    far_host = second_sandbox.url.removeprefix("http://")
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE crawl.boards SET url = replace(url, %s, %s), host = %s WHERE board_key = 'far'",
            (sandbox.url, second_sandbox.url, far_host),
        )
        conn.commit()
    pacer = Pacer(app.db)
    try:
        pacer.cool_down(far_host, Budget(200, 200), 600, "HTTP 429, Retry-After: 600")
    finally:
        pacer.close()
    cooling_until = query(app, "SELECT cooldown_until FROM crawl.hosts WHERE host = %s", far_host)
    until = cooling_until[0]["cooldown_until"]
    before = {key: board(app, key)["last_polled_at"] for key in TOKENS}
    mark = len(sandbox.state.requests())

    report = discover(app, "gh", force=True)

    assert report.status == "succeeded"
    assert report.message == (
        f"forced: 2 boards polled, 1 deferred (host {far_host} cooling down until "
        f"{utc_clock(until, datetime.now(UTC))})"
    )
    assert report.stats["boards"] == 2
    # The two boards on the calm host were polled again although neither was due ...
    assert listings_requested_since(sandbox, mark) == ["near", "third"]
    for key in ("near", "third"):
        assert len(scans(app, key)) == 2
        assert board(app, key)["last_polled_at"] > before[key]
    # ... and the cooling host got no request: `far` is back in the queue, unpolled,
    # due no earlier than its host's cooldown ends.
    assert second_sandbox.state.requests() == []
    far = board(app, "far")
    assert len(scans(app, "far")) == 1
    assert far["last_polled_at"] == before["far"]
    assert far["lease_owner"] is None
    assert far["due_at"] >= until - timedelta(seconds=1)


def test_named_boards_are_the_only_ones_polled_by_key_or_id(polled_once, sandbox) -> None:
    app = polled_once
    mark = len(sandbox.state.requests())
    third_id = str(board(app, "third")["id"])

    report = discover(app, "gh", boards=["near", third_id])

    assert report.message == "forced: 2 boards polled"
    assert listings_requested_since(sandbox, mark) == ["near", "third"]
    assert len(scans(app, "far")) == 1


def test_an_unknown_board_fails_the_run_before_any_request(polled_once, sandbox) -> None:
    app = polled_once
    mark = len(sandbox.state.requests())
    runs_before = query(app, "SELECT count(*) AS n FROM crawl.runs")

    with pytest.raises(UnknownBoards) as failed:
        discover(app, "gh", force=True, boards=["near", "nope", "ghost"])

    assert str(failed.value) == (
        "nothing polled: gh has no board 'nope', 'ghost' (give board keys or ids of this source)"
    )
    assert sandbox.state.requests()[mark:] == []
    assert query(app, "SELECT count(*) AS n FROM crawl.runs") == runs_before
    assert query(app, "SELECT count(*) AS n FROM crawl.boards WHERE lease_owner IS NOT NULL") == [
        {"n": 0}
    ]


def test_a_retired_board_is_refused_by_name_and_left_out_of_a_forced_run(
    polled_once, sandbox
) -> None:
    app = polled_once
    with app.db.connect() as conn:  # as the schedule leaves a board after repeated 404s
        conn.execute(
            """UPDATE crawl.boards SET state = 'retired',
                      state_reason = '3 consecutive HTTP 404 answers on the listing'
               WHERE board_key = 'far'"""
        )
        conn.commit()
    mark = len(sandbox.state.requests())

    with pytest.raises(BoardsRefused, match="gh/far is retired \\(3 consecutive HTTP 404"):
        discover(app, "gh", boards=["near", "far"])
    assert listings_requested_since(sandbox, mark) == []

    report = discover(app, "gh", force=True)
    assert report.message == "forced: 2 boards polled"
    assert listings_requested_since(sandbox, mark) == ["near", "third"]


def test_the_cli_takes_force_and_repeated_boards_on_the_same_path(polled_once, sandbox) -> None:
    app = polled_once
    mark = len(sandbox.state.requests())

    def jobharbor(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pipeline", "discover", *args],
            env=worker_env(app),
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )

    unknown = jobharbor("--source", "gh", "--board", "nope")
    assert unknown.returncode == 1
    assert "nothing polled: gh has no board 'nope'" in unknown.stderr
    no_source = jobharbor("--board", "near")
    assert no_source.returncode == 1
    assert "give --source as well" in no_source.stderr
    assert listings_requested_since(sandbox, mark) == []

    named = jobharbor("--source", "gh", "--board", "near", "--board", "far")
    assert named.returncode == 0, named.stderr
    assert "(forced: 2 boards polled)" in named.stdout
    assert listings_requested_since(sandbox, mark) == ["far", "near"]
