"""`python -m chaos` (`make chaos`): the long form of the fault suite, ONE line of JSON.

Runs, in this order, each as real processes and sockets:

1. SSRF probes: every address form as a URL and as a redirect target, rebinding,
   the redirect limit, and every probe through Chromium (chaos.ssrf);
2. bad input at full size: 1 GB gzip bomb, 50 MB JSON-LD, 100,000 postings, 10 MB
   HTML, ... (chaos.bad_input), and the injection corpus in every web parameter
   (chaos.web_input);
3. fuzzing for `--fuzz-s` seconds (chaos.fuzz);
4. crash drills: phases killed with SIGKILL at named boundaries, then rerun
   (chaos.crash);
5. the chaos run of the lifecycle: `--boards` × `--cycles` with random faults, in
   its own process with its own PostgreSQL and sandbox (bench/chaos_lifecycle.py).

Prints each part's figures as it goes, then the JSON line with the keys of docs/reliability.md:
wrongful_closes, cooldown_violations, postings_lost, missed_closes,
crash_drills_passed, crash_drills_total, ssrf_probes, ssrf_requests_sent,
bad_inputs_tried, bad_input_crashes, fuzz_inputs, fuzz_crashes.

Usage: python -m chaos [--boards 200] [--cycles 20] [--calm 3] [--fuzz-s 600]
                       [--scale 1.0] [--browser-every 1] [--skip lifecycle,crash,...]
Exit status 1 when any figure that must be 0 is not.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any

from pipeline.settings import REPO_ROOT

MUST_BE_ZERO = (
    "wrongful_closes",
    "cooldown_violations",
    "postings_lost",
    "ssrf_requests_sent",
    "bad_input_crashes",
    "fuzz_crashes",
)
PARTS = ("ssrf", "bad_input", "fuzz", "crash", "lifecycle")


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    figures: dict[str, Any] = {}
    for part in PARTS:
        if part in skip:
            print(f"== {part}: skipped", flush=True)
            continue
        started = time.monotonic()
        print(f"== {part}", flush=True)
        figures.update(RUNNERS[part](args))
        print(f"   ({time.monotonic() - started:.0f}s)", flush=True)
    line = {key: figures.get(key) for key in KEYS}
    print(json.dumps(line))
    crash_ok = line["crash_drills_passed"] == line["crash_drills_total"]
    return 0 if all(not line[k] for k in MUST_BE_ZERO) and crash_ok else 1


KEYS = (
    "wrongful_closes",
    "cooldown_violations",
    "postings_lost",
    "missed_closes",
    "crash_drills_passed",
    "crash_drills_total",
    "ssrf_probes",
    "ssrf_requests_sent",
    "bad_inputs_tried",
    "bad_input_crashes",
    "fuzz_inputs",
    "fuzz_crashes",
)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m chaos", description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--calm", type=int, default=3)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--fuzz-s", type=float, default=600.0, help="fuzzing budget")
    parser.add_argument("--scale", type=float, default=1.0, help="bad-input sizes (1 = full)")
    parser.add_argument("--browser-every", type=int, default=1, help="0: no browser probes")
    parser.add_argument("--skip", default="", help=f"comma-separated parts of: {PARTS}")
    return parser.parse_args(argv)


def _ssrf(args: argparse.Namespace) -> dict[str, Any]:
    from chaos.ssrf import probe_world, run_probes

    with probe_world() as (outside, inside):
        report = run_probes(outside, inside, browser_every=args.browser_every)
    for hole in report.holes:
        print(f"   SSRF HOLE {hole}")
    print(f"   {report.summary()}")
    return report.summary()


def _bad_input(args: argparse.Namespace) -> dict[str, Any]:
    from chaos.bad_input import run_bad_inputs
    from chaos.web_input import run_web_inputs

    report = run_bad_inputs(scale=args.scale)
    run_web_inputs(report)  # every web parameter x the injection corpus, counted here too
    print(f"   web probes: {sum(1 for t in report.tried if t.layer == 'web')}")
    for crash in report.crashes:
        print(f"   BAD INPUT CRASH {crash}")
    slowest = sorted(report.tried, key=lambda t: -t.elapsed_s)[:3]
    print(f"   {report.summary()}; slowest: {[(t.name, t.elapsed_s) for t in slowest]}")
    return report.summary()


def _fuzz(args: argparse.Namespace) -> dict[str, Any]:
    from chaos.fuzz import run_fuzz

    report = run_fuzz(args.fuzz_s)
    for note in report.skipped:
        print(f"   SKIPPED {note}")
    for crash in report.crashes:
        print(f"   FUZZ CRASH {crash['target']}: {crash['error']}")
    print(f"   {report.summary()} over {len(report.targets)} targets")
    return report.summary()


def _crash(args: argparse.Namespace) -> dict[str, Any]:
    from chaos.crash import run_crash_drills

    report = run_crash_drills()
    for drill in report.drills:
        print(f"   {'PASS' if drill.passed else 'FAIL'} {drill.name}: {drill.detail}")
    return report.summary()


def _lifecycle(args: argparse.Namespace) -> dict[str, Any]:
    command = [
        sys.executable,
        str(REPO_ROOT / "bench" / "chaos_lifecycle.py"),
        f"--boards={args.boards}",
        f"--cycles={args.cycles}",
        f"--calm={args.calm}",
        f"--seed={args.seed}",
    ]
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    lines = done.stdout.strip().splitlines()
    for line in lines[:-1]:
        print(f"   {line}")
    if done.returncode != 0 or not lines:
        print(done.stderr[-4000:])
        raise SystemExit(f"the chaos run failed (exit {done.returncode})")
    summary = json.loads(lines[-1])
    return {
        k: summary.get(k)
        for k in ("wrongful_closes", "cooldown_violations", "postings_lost", "missed_closes")
    }


RUNNERS = {
    "ssrf": _ssrf,
    "bad_input": _bad_input,
    "fuzz": _fuzz,
    "crash": _crash,
    "lifecycle": _lifecycle,
}


if __name__ == "__main__":
    raise SystemExit(main())
