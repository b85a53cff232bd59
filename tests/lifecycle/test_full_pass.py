"""Workday's count probe: a first page stating the total of the last full pass is taken
as "unchanged". When that page is the whole listing it is read as the complete scan it
is, so a swap that keeps the count (one posting removed, another added) shows at once.
On a board of several pages the probe cannot see such a swap until the board's next full
pass, due once the last is `count_probe_full_pass_h` old (the bound on how long a swap
hides, measured in bench/freshness.py); the full pass finds it, and `jobharbor status` shows each count-probed board's last full
pass."""

from __future__ import annotations

import json

from pipeline.cli import main
from pipeline.commands.status import gather_status, render_status
from pipeline.phases.discover import discover
from sandbox.world import BOARD_SIZES, build_board
from tests.lifecycle.test_probe_after_partial import wd_app
from tests.lifecycle.test_scenarios import advance, postings

TENANT = "harbor.wd5"  # the sandbox keys a Workday board by tenant and data center
BOARD = "harbor.wd5/HarborCareers"
LARGE_TENANT = "atlas.wd1"  # three pages of 20
LARGE_BOARD = "atlas.wd1/Careers"


def _ids(sandbox, tenant: str, revision: int) -> set[str]:
    from sandbox.formats.workday import req_id

    return {req_id(j) for j in build_board(sandbox.state.seed, "workday", tenant, revision).jobs}


def _swap(sandbox, tenant: str) -> tuple[str, str]:
    """Advance the board one step: (the posting removed, the one added); same count."""
    before, after = _ids(sandbox, tenant, 0), _ids(sandbox, tenant, 1)
    (gone,), (new,) = before - after, after - before
    assert len(before) == len(after)  # the swap keeps the count
    advance(sandbox, tenant, platform="workday")
    return gone, new


def last_full_pass(app, hours_ago: float) -> None:
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE crawl.boards SET last_full_pass_at = now() - make_interval(secs => %s) "
            "WHERE board_key = %s",
            (hours_ago * 3600, LARGE_BOARD),
        )


def test_a_probe_page_that_is_the_whole_listing_reads_a_swap_at_once(app, sandbox) -> None:
    discover(app, "workday", force=True)  # first read: a full pass
    gone, new = _swap(sandbox, TENANT)
    stats = discover(app, "workday", force=True).stats
    # The advanced board is read as a complete scan; the other, unchanged, is too.
    assert stats["outcomes"] == {"changed": 1, "unchanged": 1}, stats
    rows = postings(app)
    assert rows[new]["status"] == "active"  # recorded at once, not a day later
    assert rows[gone]["missing_count"] == 1  # absent from a complete scan: counted
    with app.db.connect() as conn:
        probes = conn.execute("SELECT count(*) AS n FROM crawl.scans WHERE probe").fetchone()
    assert probes["n"] == 0, "no one-page board answered from its count alone"


def test_the_full_pass_due_after_the_bound_finds_a_swap_the_probe_hides_on_several_pages(
    app, sandbox, tmp_path
) -> None:
    assert BOARD_SIZES[("workday", LARGE_TENANT)] > 20  # more than one page
    wd = wd_app(app, sandbox, tmp_path, LARGE_BOARD)
    discover(wd, "workday", force=True)  # first read: a full pass
    gone, new = _swap(sandbox, LARGE_TENANT)

    bound_h = wd.settings.count_probe_full_pass_h
    for age_h in (0.0, bound_h - 0.5):  # within the bound the probe's count is trusted
        last_full_pass(wd, age_h)
        probed = discover(wd, "workday", force=True).stats
        assert probed["outcomes"] == {"unchanged": 1}  # stopped after the probe page
        assert new not in postings(wd)
        assert postings(wd)[gone]["missing_count"] == 0

    last_full_pass(wd, bound_h + 0.1)  # past the bound: the full pass is due
    full = discover(wd, "workday", force=True).stats
    assert full["outcomes"] == {"changed": 1}
    rows = postings(wd)
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
