"""Freshness per request: what the adaptive schedule buys, in a simulated week.

A discrete-event simulation (bench/_freshness_sim.py) of N boards over D days
(bench/_freshness_world.py: Poisson postings with a heavy-tailed rate mix, 429s,
5xx, empty and partial listings, outages, postings hidden while live) in which
the crawler's decisions are the project's own code: `pipeline.crawl.schedule` for when
each board is polled next, the lifecycle's two complete misses before a direct
check, `pipeline.lifecycle.check_rules.judge` for what the check concludes.

Policies, all at the same request budget (polls plus direct checks), the budget
being what the project's adaptive schedule spends:
  adaptive       the project's schedule, as discover drives it
  fixed          every board on one interval, solved to spend the same budget
  host-capped    the adaptive schedule with a per-host budget (a token bucket per host
                 at its share of the budget by boards); a cap only takes requests
                 away, so this one spends at most the budget
  confirm-soon   the proposed improvement: the adaptive schedule, but a complete read
                 that leaves postings absent once brings the board back at the
                 minimum interval, so the second miss (and the check) come sooner;
                 its intervals stretched (RATE_INTERVAL_S scaled) to spend the budget

Count-probed boards (Workday, pages of 20): a removal that an addition balances keeps
the count, so it hides until the board's next full read, due once the last is
`count_probe_full_pass_h` old. The adaptive run is repeated with a daily full read
for contrast: `fresh_close_max_h_count_probe` (on boards of several pages, the board's
first answer after a removal to the first complete read without it: what the probe
hid; target <= 6 h; `count_probe_removal_to_read_max_h` counts from the removal, the
board's outages included) and
`count_probe_extra_requests_pct` (what the bound costs over the daily read; target
<= 10).

Figures per policy: detection delay of new postings and closure delay (removal to
closed) at the median, p90 and p99; requests, the share answered 304 or unchanged;
wrongful closes (must be 0). Prints a table, writes a PNG of the delay CDFs, and
ends with one JSON line:
  {"fresh_new_median_ratio", "fresh_close_median_ratio", "fresh_new_p99_ratio",
   "fresh_close_max_h_count_probe", "count_probe_extra_requests_pct", "fresh_sim_s", ...}  (ratios: adaptive / fixed; fresh_sim_s: CPU seconds to build
  the world and simulate its week under the adaptive schedule, one core)

Scale mode (--boards 50,000 or more; docs/scale.md): the adaptive week alone, with a
cooled-down host's refused boards kept in one queue per host (`HostQueues`: per board,
as discover requeues them, they are tens of millions of events at 100,000 boards),
and the requests per second per lane it spends. Its JSON line has
`fresh_sim_<N/1000>k_s` (`fresh_sim_100k_s` at 100,000 boards): the wall time of
building the world and simulating the week; `fresh_sim_cpu_s` the CPU time of it.

Usage: python bench/freshness.py [--boards 1000] [--days 7] [--seed 16] [--plot PATH]
(the plot goes to .data/freshness.png unless told). `make bench` runs the short
default; the full run is `make freshness` (10,000 boards x 7 days, the plot kept in
docs/freshness.png).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _freshness_sim import (  # noqa: E402
    FULL_PASS_EVERY_S,
    Adaptive,
    ConfirmSoon,
    Figures,
    Fixed,
    HostCap,
    Simulation,
)
from _freshness_world import Noise, WorldConfig, build_world, calibration  # noqa: E402

from pipeline.crawl import schedule  # noqa: E402
from pipeline.progress import Progress  # noqa: E402

PERCENTILES = (0.5, 0.9, 0.99)
SOLVE_STEPS = 2  # fixed-interval runs: a first guess, then one correction (~0.5% off)
CAP_FACTOR = 1.0  # each host may spend its share of the budget (by boards), no more
DAILY_FULL_PASS_S = 24 * 3600.0  # the count-probe bound before it was a setting: the baseline
# From this many boards on, the bench runs the adaptive week only (scale mode): the
# comparisons cost nine weeks, and per-board requeues of cooled hosts explode.
SCALE_BOARDS = 50_000
WARM_UP_S = 86400.0  # the first day (every board starts due within its first hour) is left out


def quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def solve_fixed(world, budget: int, first_guess_s: float) -> tuple[Figures, float]:
    """The interval at which polling every board spends `budget` requests. Requests
    are checks + listing requests(interval) (a count-probed board's full read is several
    pages), listing requests ~ 1/interval: each run refines it."""
    interval, fig = first_guess_s, None
    with Progress("freshness: fixed-interval simulations", SOLVE_STEPS) as progress:
        for step in range(SOLVE_STEPS):
            if step:
                interval *= (fig.requests - fig.checks) / max(budget - fig.checks, 1)
            fig = Simulation(world, Fixed(interval)).run()
            progress.advance()
    assert fig is not None
    return fig, interval


@contextmanager
def rate_interval(scale: float) -> Iterator[None]:
    """The schedule's own knob (`RATE_INTERVAL_S`, the interval of a once-a-day board)
    scaled for one run: how a policy that spends more is brought to the budget."""
    saved = schedule.RATE_INTERVAL_S
    schedule.RATE_INTERVAL_S = saved * scale
    try:
        yield
    finally:
        schedule.RATE_INTERVAL_S = saved


def solve_confirm(world, budget: int) -> tuple[Figures, float]:
    """confirm-soon spends more than the plain schedule: its intervals are stretched
    (listing requests ~ 1/scale) until it spends the same budget."""
    scale, fig = 1.0, None
    with Progress("freshness: confirm-soon simulations", SOLVE_STEPS) as progress:
        for step in range(SOLVE_STEPS):
            if step:
                scale *= (fig.requests - fig.checks) / max(budget - fig.checks, 1)
            with rate_interval(scale):
                fig = Simulation(world, ConfirmSoon()).run()
            progress.advance()
    assert fig is not None
    return fig, scale


def run_all(boards: int, days: float, seed: int) -> tuple[list[Figures], dict]:
    started, cpu = time.perf_counter(), time.process_time()
    world = build_world(WorldConfig(boards=boards, days=days, seed=seed))
    adaptive = Simulation(world, Adaptive()).run()
    week_cpu = time.process_time() - cpu  # the world and one simulated week
    budget = adaptive.requests
    guess = boards * world.duration_s / max(adaptive.polls, 1)
    fixed, interval = solve_fixed(world, budget, guess)
    # A cap can only take requests away (the schedule does not speed up because a
    # host has budget left), so the capped policy spends at most the budget.
    capped = Simulation(world, Adaptive(), cap=HostCap(world, budget, CAP_FACTOR)).run()
    capped.policy = "host-capped"
    confirm, scale = solve_confirm(world, budget)
    # The same schedule with a count-probed board's full read only once a day: what
    # the bound on hiding a removal costs in requests, and what it buys.
    daily = Simulation(world, Adaptive(), full_pass_every_s=DAILY_FULL_PASS_S).run()
    info = {
        "daily_full_pass": daily,
        "confirm_interval_scale": round(scale, 3),
        "week_cpu_s": round(week_cpu, 2),
        "cpu_s": round(time.process_time() - cpu, 2),
        "wall_s": round(time.perf_counter() - started, 2),
        "budget": budget,
        "fixed_interval_s": round(interval),
        "runs": 3 + 2 * SOLVE_STEPS,
    }
    return [adaptive, fixed, capped, confirm], info


def lane_of(host: str) -> str:
    """The sim's hosts are discover's lanes: one per platform, one per Workday data
    center (`workday-N`), one per HTML site (`html-N`, grouped here)."""
    return "html" if host.startswith("html-") else host


def lane_rates(world, fig: Figures) -> dict[str, dict]:
    """Requests per second per lane over the week (the first day, when every board is
    due at once, included), its busiest host, and the share of the week that lane's
    hosts spent cooled down by 429s (Retry-After summed: an upper bound, overlaps
    count twice)."""
    seconds = world.duration_s
    hosts: dict[str, list[int]] = {}
    for index, name in enumerate(world.hosts):
        hosts.setdefault(lane_of(name), []).append(index)
    boards = Counter(lane_of(world.hosts[b.host]) for b in world.boards)
    out = {}
    for lane, members in hosts.items():
        requests = sum(fig.host_requests[h] for h in members)
        out[lane] = {
            "boards": boards[lane],
            "hosts": len(members),
            "rps": round(requests / seconds, 3),
            "busiest_host_rps": round(max(fig.host_requests[h] for h in members) / seconds, 3),
            "cooled_share": round(max(fig.host_cooldown_s[h] for h in members) / seconds, 3),
        }
    return out


def run_scale(boards: int, days: float, seed: int, rate_limited: float) -> dict:
    """The adaptive week alone, host queues on: what the schedule spends per lane."""
    started, cpu = time.perf_counter(), time.process_time()
    noise = replace(Noise(), rate_limited=rate_limited)
    world = build_world(WorldConfig(boards=boards, days=days, seed=seed, noise=noise))
    fig = Simulation(world, Adaptive(), host_queues=True).run()
    wall, cpu_s = time.perf_counter() - started, time.process_time() - cpu
    lanes = lane_rates(world, fig)
    out = {
        f"fresh_sim_{boards // 1000}k_s": round(wall, 1),
        "fresh_sim_cpu_s": round(cpu_s, 1),
        "boards": boards,
        "days": days,
        "rate_limited": rate_limited,
        "requests": fig.requests,
        "requests_per_s": round(fig.requests / world.duration_s, 2),
        "polls": fig.polls,
        "checks": fig.checks,
        "deferred": fig.deferred,
        "not_modified_share": round(fig.outcomes["not_modified"] / max(fig.polls, 1), 3),
        "unchanged_share": round(fig.outcomes["unchanged"] / max(fig.polls, 1), 3),
        "wrongful_closes": fig.wrongful_closes,
        "lanes": lanes,
    }
    for name, values in (("new", fig.new_delays), ("close", fig.close_delays)):
        for q in PERCENTILES:
            value = quantile(values, q)
            out[f"adaptive_{name}_p{round(q * 100)}_s"] = round(value) if value else value
    return out


def print_scale(result: dict) -> None:
    wall = result[f"fresh_sim_{result['boards'] // 1000}k_s"]
    print(
        f"adaptive week at {result['boards']} boards: {result['requests']} requests "
        f"({result['requests_per_s']}/s), {result['deferred']} polls refused by a host's "
        f"cooldown; simulated in {wall}s "
        f"({result['fresh_sim_cpu_s']}s of CPU)"
    )
    print(f"{'lane':<16} {'boards':>7} {'hosts':>5} {'req/s':>7} {'busiest':>8} {'cooled':>7}")
    for lane, x in sorted(result["lanes"].items(), key=lambda kv: -kv[1]["rps"]):
        print(
            f"{lane:<16} {x['boards']:>7} {x['hosts']:>5} {x['rps']:>7.2f} "
            f"{x['busiest_host_rps']:>8.2f} {x['cooled_share']:>7.0%}"
        )


def _hours(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds / 60:.0f}m" if seconds < 3600 else f"{seconds / 3600:.1f}h"


def table(figures: list[Figures]) -> str:
    head = (
        f"{'policy':<13} {'requests':>9} {'checks':>7} {'304':>5} {'unch':>5} "
        f"{'new p50':>8} {'p90':>6} {'p99':>6} {'close p50':>9} {'p90':>6} {'p99':>6} "
        f"{'wrong':>5} {'unseen':>6} {'deferred':>8}"
    )
    lines = [head, "-" * len(head)]
    for f in figures:
        polls = max(f.polls, 1)
        new = [_hours(quantile(f.new_delays, q)) for q in PERCENTILES]
        close = [_hours(quantile(f.close_delays, q)) for q in PERCENTILES]
        lines.append(
            f"{f.policy:<13} {f.requests:>9} {f.checks:>7} "
            f"{f.outcomes['not_modified'] / polls:>5.0%} {f.outcomes['unchanged'] / polls:>5.0%} "
            f"{new[0]:>8} {new[1]:>6} {new[2]:>6} {close[0]:>9} {close[1]:>6} {close[2]:>6} "
            f"{f.wrongful_closes:>5} {f.missed:>6} {f.deferred:>8}"
        )
    return "\n".join(lines)


def plot(figures: list[Figures], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, attr, label in (
        (axes[0], "new_delays", "new postings: first seen - opened"),
        (axes[1], "close_delays", "closures: closed - removed"),
    ):
        for f in figures:
            values = sorted(v / 3600 for v in getattr(f, attr))
            if values:
                ys = [(i + 1) / len(values) for i in range(len(values))]
                ax.step(values, ys, where="post", label=f.policy)
        ax.set_xscale("log")
        ax.set_xlim(0.01, 48)
        ax.set_xlabel("hours (log)")
        ax.set_title(label, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("share of postings")
    axes[0].legend(loc="lower right", fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


def _max_h(values: list[float]) -> float | None:
    return round(max(values) / 3600, 2) if values else None


def count_probe_figures(a: Figures, daily: Figures) -> dict:
    """Removals on count-probed boards of several pages. How long the probe hid one:
    from the board's first answer after the removal to the first complete read without
    it (the bound's target, <= 6 h; before that answer the board was down, failing or
    not yet due, which no read rule changes). Beside it the whole wait from the removal,
    both with a daily full read for contrast, and the requests the bound costs."""
    return {
        "fresh_close_max_h_count_probe": _max_h(a.probe_delays),
        "count_probe_removal_to_read_max_h": _max_h(a.probe_hidden),
        "count_probe_full_pass_h": round(FULL_PASS_EVERY_S / 3600, 2),
        "count_probe_removals": len(a.probe_hidden),
        "count_probe_close_max_h": _max_h(a.probe_close_delays),
        "count_probe_extra_requests_pct": round((a.requests / daily.requests - 1) * 100, 2),
        "daily_full_pass_close_max_h_count_probe": _max_h(daily.probe_delays),
        "daily_full_pass_removal_to_read_max_h": _max_h(daily.probe_hidden),
    }


def summary(figures: list[Figures], info: dict, args: argparse.Namespace) -> dict:
    by = {f.policy: f for f in figures}
    a, f = by["adaptive"], by["fixed"]
    out = {
        "fresh_new_median_ratio": _ratio(quantile(a.new_delays, 0.5), quantile(f.new_delays, 0.5)),
        "fresh_close_median_ratio": _ratio(
            quantile(a.close_delays, 0.5), quantile(f.close_delays, 0.5)
        ),
        "fresh_new_p99_ratio": _ratio(quantile(a.new_delays, 0.99), quantile(f.new_delays, 0.99)),
        # CPU seconds (one core) of building the world and simulating its week under the
        # adaptive schedule; wall time on a shared machine says more about the neighbours.
        "fresh_sim_s": info["week_cpu_s"],
        "bench_cpu_s": info["cpu_s"],
        "bench_wall_s": info["wall_s"],
        "sim_runs": info["runs"],
        "boards": args.boards,
        "days": args.days,
        "budget_requests": info["budget"],
        "fixed_interval_s": info["fixed_interval_s"],
        "cap_factor": CAP_FACTOR,
        "confirm_interval_scale": info["confirm_interval_scale"],
        "wrongful_closes": sum(x.wrongful_closes for x in figures),
        **count_probe_figures(a, info["daily_full_pass"]),
    }
    for x in figures:
        key = x.policy.replace("-", "_")
        out[f"{key}_requests"] = x.requests
        for name, values in (("new", x.new_delays), ("close", x.close_delays)):
            for q in PERCENTILES:
                value = quantile(values, q)
                out[f"{key}_{name}_p{round(q * 100)}_s"] = round(value) if value else value
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=1000)
    parser.add_argument("--days", type=float, default=7.0)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument(
        "--rate-limited",
        type=float,
        default=Noise().rate_limited,
        help="share of requests answered 429 (each cools its host down); 0: what the "
        "schedule asks for when no host pushes back",
    )
    parser.add_argument(
        "--plot", type=Path, default=ROOT / ".data" / "freshness.png", help="the delay CDFs (PNG)"
    )
    args = parser.parse_args(argv)
    cal = calibration()
    print(
        f"world: {args.boards} boards x {args.days:g} days; polled daily, "
        f"{cal['unchanged_share_daily']:.0%} of polls unchanged, "
        f"Lever 304 {cal['lever_304_share_daily']:.0%} (seed: 44%, 91%)"
    )
    if args.boards >= SCALE_BOARDS:
        scale = run_scale(args.boards, args.days, args.seed, args.rate_limited)
        print_scale(scale)
        print(json.dumps(scale))
        return 0 if scale["wrongful_closes"] == 0 else 1
    if args.rate_limited != Noise().rate_limited:
        parser.error("--rate-limited is for scale mode (--boards 50000 or more)")
    figures, info = run_all(args.boards, args.days, args.seed)
    print(
        f"budget {info['budget']} requests for every policy; fixed interval "
        f"{_hours(info['fixed_interval_s'])}; one simulated week {info['week_cpu_s']}s of CPU; "
        f"all {info['runs']} in {info['cpu_s']}s of CPU ({info['wall_s']}s wall)"
    )
    print(table(figures))
    title = f"{args.boards} boards x {args.days:g} days, budget {info['budget']} requests"
    args.plot.parent.mkdir(parents=True, exist_ok=True)
    plot(figures, args.plot, title)
    print(f"plot: {args.plot}")
    result = summary(figures, info, args)
    print(
        f"count probe: {result['count_probe_removals']} removals on Workday boards of several "
        f"pages, full read at least every {result['count_probe_full_pass_h']:g} h: hidden by "
        f"the probe at most {result['fresh_close_max_h_count_probe']} h after the board "
        f"first answered ({result['count_probe_removal_to_read_max_h']} h from the removal, "
        f"outages included); with a daily full read "
        f"{result['daily_full_pass_close_max_h_count_probe']} h; the bound costs "
        f"{result['count_probe_extra_requests_pct']:+.2f}% requests"
    )
    print(json.dumps(result))
    return 0 if result["wrongful_closes"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
