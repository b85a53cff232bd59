"""bench/freshness.py: the simulated week drives the project's own schedule and
lifecycle rules, never closes a live posting, and compares policies at one budget."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import freshness  # noqa: E402
from _freshness_sim import Adaptive, Simulation  # noqa: E402
from _freshness_world import Noise, WorldConfig, build_world, calibration  # noqa: E402

import pipeline.crawl.schedule  # noqa: E402


def _world(boards: int = 300, days: float = 2.0, **noise):
    return build_world(WorldConfig(boards=boards, days=days, seed=5, noise=Noise(**noise)))


def test_the_default_world_matches_what_the_seeds_report() -> None:
    cal = calibration(samples=50_000)
    assert cal["unchanged_share_daily"] == pytest.approx(0.44, abs=0.02)
    assert cal["lever_304_share_daily"] == pytest.approx(0.91, abs=0.02)


def test_the_simulation_follows_the_projects_schedule_not_a_copy(monkeypatch) -> None:
    world = _world()
    before = Simulation(world, Adaptive()).run()
    # Halve the project's interval for a once-a-day board: the simulated crawler spends more.
    monkeypatch.setattr(
        pipeline.crawl.schedule, "RATE_INTERVAL_S", pipeline.crawl.schedule.RATE_INTERVAL_S / 2
    )
    after = Simulation(world, Adaptive()).run()
    assert after.polls > 1.3 * before.polls


def test_a_live_posting_is_never_closed_however_noisy_the_listings() -> None:
    world = _world(hidden=0.3, partial=0.2, empty=0.1, server_error=0.1)
    fig = Simulation(world, Adaptive()).run()
    assert fig.wrongful_closes == 0
    # The trap was sprung: hidden live postings went missing and were checked directly ...
    assert sum(n for kind, n in fig.check_verdicts.items() if kind.startswith("live:")) > 20
    # ... while closed ones still closed on their own page's evidence.
    assert len(fig.close_delays) > 50


def test_no_posting_closes_without_complete_listings() -> None:
    world = _world(partial=0.999, empty=0.0, server_error=0.0, rate_limited=0.0)
    fig = Simulation(world, Adaptive()).run()
    assert world.closed_at  # postings did close in the world ...
    assert fig.close_delays == []  # ... but partial listings are never evidence of it
    assert fig.checks < 5


def test_the_fixed_interval_is_solved_to_the_adaptive_budget() -> None:
    world = _world()
    adaptive = Simulation(world, Adaptive()).run()
    guess = len(world.boards) * world.duration_s / adaptive.polls
    fixed, interval = freshness.solve_fixed(world, adaptive.requests, guess)
    assert fixed.requests == pytest.approx(adaptive.requests, rel=0.02)
    assert interval > pipeline.crawl.schedule.MIN_INTERVAL_S


def test_the_bench_prints_a_table_a_plot_and_one_json_line(tmp_path, capsys) -> None:
    plot = tmp_path / "cdf.png"
    assert freshness.main(["--boards", "200", "--days", "2", "--plot", str(plot)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    result = json.loads(lines[-1])
    for key in (
        "fresh_new_median_ratio",
        "fresh_close_median_ratio",
        "fresh_new_p99_ratio",
        "fresh_sim_s",
    ):
        assert result[key] is not None
    assert result["wrongful_closes"] == 0
    assert any(line.startswith("adaptive ") for line in lines)
    assert any(line.startswith("fixed ") for line in lines)
    assert plot.stat().st_size > 10_000


def test_a_world_is_the_same_for_every_policy() -> None:
    one, two = _world(), _world()
    assert [b.events for b in one.boards] == [b.events for b in two.boards]
    assert replace(one.config) == two.config


def _quiet_world(seed: int = 7):
    """No failures of any kind: what delays a removal is only when the board is read."""
    noise = Noise(rate_limited=0, server_error=0, empty=0, partial=0, outage_boards=0)
    return build_world(WorldConfig(boards=300, days=3.0, seed=seed, noise=noise))


def test_count_probed_boards_are_read_in_pages_and_probed_between_full_reads() -> None:
    fig = Simulation(_quiet_world(), Adaptive(), full_pass_every_s=24 * 3600).run()
    assert fig.probe_stops > 0  # polls stopped after one page on the total alone
    assert fig.requests - fig.polls - fig.checks > 0  # the other pages of full reads


def test_the_full_pass_bound_caps_how_long_a_count_probe_hides_a_removal() -> None:
    world = _quiet_world()
    daily = Simulation(world, Adaptive(), full_pass_every_s=24 * 3600).run()
    hourly = Simulation(world, Adaptive(), full_pass_every_s=3600).run()
    assert len(daily.probe_delays) == len(hourly.probe_delays) > 20  # the same removals
    # A daily full read leaves a balanced removal hidden for hours after the board
    # answered; an hourly one finds it at most an hour after the last full read.
    assert max(daily.probe_delays) > 2 * 3600
    assert max(hourly.probe_delays) <= 3600
    assert hourly.requests > daily.requests  # the bound is paid for in pages


def test_the_bench_reports_the_count_probe_bound_and_its_cost(tmp_path, capsys) -> None:
    assert (
        freshness.main(["--boards", "300", "--days", "3", "--plot", str(tmp_path / "p.png")]) == 0
    )
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    bound = result["count_probe_full_pass_h"]
    assert result["fresh_close_max_h_count_probe"] <= bound
    assert (
        result["daily_full_pass_close_max_h_count_probe"] > result["fresh_close_max_h_count_probe"]
    )
    assert result["count_probe_extra_requests_pct"] > 0
    # From the removal itself the wait also holds the board's outages and failures.
    assert result["count_probe_removal_to_read_max_h"] >= result["fresh_close_max_h_count_probe"]


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def test_host_queues_refuse_and_release_as_per_board_requeues_do() -> None:
    """Scale mode's one queue per cooled-down host stands in for discover's per-board
    requeue: on a world small enough to replay every refusal, the two agree."""
    world = _world(boards=1500, days=3.0, rate_limited=0.03)
    per_board = Simulation(world, Adaptive()).run()
    queued = Simulation(world, Adaptive(), host_queues=True).run()
    assert per_board.deferred > 1000  # the world's 429s do cool hosts down
    assert queued.requests == pytest.approx(per_board.requests, rel=0.03)
    assert queued.deferred == pytest.approx(per_board.deferred, rel=0.25)
    assert _median(queued.new_delays) == pytest.approx(_median(per_board.new_delays), rel=0.1)
    assert _median(queued.close_delays) == pytest.approx(_median(per_board.close_delays), rel=0.1)
    assert queued.wrongful_closes == per_board.wrongful_closes == 0
    assert sum(queued.host_requests.values()) == queued.requests


def test_a_host_cooled_down_by_every_429_caps_its_lane() -> None:
    """One 429 cools the whole host down for its Retry-After: the busier the host, the
    more of the day it is cooled down, and its requests stop growing with its boards
    (10% of requests answered 429 here, so that a small world shows it)."""
    runs = {}
    for boards in (500, 4000):
        world = _world(boards=boards, days=1.0, rate_limited=0.1)
        runs[boards] = (world, Simulation(world, Adaptive(), host_queues=True).run())
    world, large = runs[4000]
    small = runs[500][1]
    greenhouse = world.hosts.index("greenhouse")
    html = [i for i, name in enumerate(world.hosts) if name.startswith("html-")]
    assert large.host_cooldown_s[greenhouse] > 0.75 * world.duration_s
    assert small.host_cooldown_s[greenhouse] < 0.4 * world.duration_s
    assert large.host_requests[greenhouse] < 3 * small.host_requests[greenhouse]  # 8x boards
    # Fifty small hosts (the HTML sites) barely cool down at all.
    assert max(large.host_cooldown_s[h] for h in html) < 0.05 * world.duration_s


def test_scale_mode_prints_the_lanes_and_the_simulation_time(monkeypatch, capsys) -> None:
    monkeypatch.setattr(freshness, "SCALE_BOARDS", 500)
    assert freshness.main(["--boards", "2000", "--days", "1", "--rate-limited", "0"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    result = json.loads(lines[-1])
    assert result["fresh_sim_2k_s"] > 0
    assert result["rate_limited"] == 0
    assert result["wrongful_closes"] == 0
    lanes = result["lanes"]
    assert set(lanes) == {
        "lever", "greenhouse", "ashby", "smartrecruiters", "html",
        *(f"workday-{i}" for i in range(4)),
    }  # fmt: skip
    assert sum(lane["boards"] for lane in lanes.values()) == 2000
    total = sum(lane["rps"] for lane in lanes.values())
    assert total == pytest.approx(result["requests_per_s"], rel=0.01)
    assert all(lane["cooled_share"] == 0 for lane in lanes.values())  # no 429s asked for
    assert any(line.startswith("greenhouse ") for line in lines)


def test_rate_limited_is_refused_outside_scale_mode() -> None:
    with pytest.raises(SystemExit):
        freshness.main(["--boards", "200", "--rate-limited", "0"])
