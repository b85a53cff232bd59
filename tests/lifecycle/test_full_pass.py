"""Workday's count probe cannot see a swap that keeps the count
(one posting removed, another added) until the daily full pass. The design stays;
the full pass finds the swap, and `jobharbor status` shows each count-probed board's
last full pass."""

from __future__ import annotations

import json

from pipeline.cli import main
from pipeline.commands.status import gather_status, render_status
from pipeline.phases.discover import discover
from sandbox.world import build_board
from tests.lifecycle.test_scenarios import advance, postings

TENANT = "harbor.wd5"  # the sandbox keys a Workday board by tenant and data center
BOARD = "harbor.wd5/HarborCareers"


def _ids(sandbox, revision: int) -> set[str]:
    from sandbox.formats.workday import req_id

    return {req_id(j) for j in build_board(sandbox.state.seed, "workday", TENANT, revision).jobs}


def test_the_full_pass_finds_a_swap_the_count_probe_hides(app, sandbox) -> None:
    discover(app, "workday", force=True)  # first read: a full pass
    before, after = _ids(sandbox, 0), _ids(sandbox, 1)
    (gone,), (new,) = before - after, after - before
    assert len(before) == len(after)  # the swap keeps the count
    advance(sandbox, TENANT, platform="workday")

    probed = discover(app, "workday", force=True).stats
    assert probed["outcomes"] == {"unchanged": 2}  # both boards stopped after the probe page
    assert new not in postings(app)
    assert postings(app)[gone]["missing_count"] == 0

    with app.db.connect() as conn:  # a day later: the full pass is due
        conn.execute(
            "UPDATE crawl.boards SET last_full_pass_at = now() - interval '25 hours' "
            "WHERE board_key = %s",
            (BOARD,),
        )
    full = discover(app, "workday", force=True).stats
    assert full["outcomes"] == {"changed": 1, "unchanged": 1}
    rows = postings(app)
    assert rows[new]["status"] == "active"
    assert rows[gone]["missing_count"] == 1  # absent from one complete scan so far


def test_status_shows_the_age_of_each_count_probed_boards_last_full_pass(
    app, sandbox, capsys, monkeypatch
) -> None:
    discover(app, "workday", force=True)
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE crawl.boards SET last_full_pass_at = now() - interval '5 hours' "
            "WHERE board_key = %s",
            (BOARD,),
        )
    report = gather_status(app.db)
    full = report["sources"]["workday"]["full_pass"]
    assert set(full) == {BOARD, "northwind.wd1/External"}
    assert 5 * 3600 <= full[BOARD]["age_s"] < 5 * 3600 + 120
    assert full[BOARD]["last_full_pass_at"] is not None
    assert "full_pass" not in report["sources"]["greenhouse"]  # 304s, no count probe
    assert f"  full pass    {BOARD} " in render_status(report)
    assert "(5h ago)" in render_status(report)

    monkeypatch.setenv("JOBHARBOR_DATABASE_URL", app.db.url)
    assert main(["status", "--source", "workday", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["sources"]["workday"]["full_pass"][BOARD]["age_s"] >= 5 * 3600
