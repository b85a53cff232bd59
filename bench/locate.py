"""Benchmark and accuracy report for location normalization (`make bench`).

Measures, on one core:
- build: building the place-name index from the data packages, in a child
  process (its peak memory is reported apart; it happens once per code/data version);
- startup_s: importing the package and loading the cached index;
- strings_per_s: distinct real location strings per second, repeated and
  shuffled, with the result memo off (every call does the full work);
- peak_rss_mb: this process's peak resident memory after all of the above;
- calibration_ms: a fixed pure-Python loop (about 45 ms on the quiet 2-core
  development machine), to tell a busy machine from a slow normalizer;
- accuracy on the Ashby answer key (see pipeline/normalize/locations/evaluate.py).

The last line printed is one JSON object with every figure.
Usage: python bench/locate.py [--seconds 5] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BUILD_SNIPPET = """
import time
from pipeline.normalize.locations import gazetteer
started = time.perf_counter()
gazetteer.load_or_build()
print(time.perf_counter() - started)
"""


def build_in_child() -> tuple[float, float]:
    """Build (or load) the index in a child process: (seconds, child peak RSS in MB)."""
    out = subprocess.run(
        [sys.executable, "-c", BUILD_SNIPPET],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return float(out.stdout.strip().splitlines()[-1]), round(peak, 1)


def real_strings() -> tuple[list[str], bool]:
    from pipeline.normalize.locations import evaluate

    base = evaluate.real_fixtures_dir()
    if not (base / evaluate.ASHBY_KEY).exists():
        return [], False
    strings = [row.location for row in evaluate.read_ashby_key()]
    for values in evaluate.other_location_sets().values():
        strings.extend(values)
    return sorted(set(strings)), True


def fallback_strings() -> list[str]:
    """Without the real fixtures: the test grid's forms, so the bench still runs."""
    return [
        "San Francisco, CA",
        "New York, NY; San Francisco, CA",
        "US-CA-San Francisco",
        "AMER - Canada - Ontario - Toronto",
        "Remote - US",
        "London",
        "Hà Nội & 2 nơi khác",
        "Amsterdam, Noord-Holland, Nederland",
        "Remote (Canada)",
        "Paris, France",
    ]


def throughput(strings: list[str], seconds: float, repeat: int) -> tuple[float, int]:
    from pipeline.normalize.locations import api

    api.set_result_cache(0)
    work = strings * repeat
    random.Random(7).shuffle(work)
    calls = 0
    # CPU time of this process: the figure is per core, and other work on a
    # shared machine does not count against it.
    started = time.process_time()
    while True:
        for text in work:
            api.locate(text)
        calls += len(work)
        elapsed = time.process_time() - started
        if elapsed >= seconds:
            return calls / elapsed, calls


def calibration_ms() -> float:
    """CPU time of a fixed pure-Python loop: tells a slow or busy machine from a slow normalizer."""
    best = float("inf")
    for _ in range(5):
        started = time.process_time()
        table: dict[int, int] = {}
        for i in range(1_000_000):
            table[i & 1023] = i
        best = min(best, time.process_time() - started)
    return round(best * 1000, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="minimum timed run")
    parser.add_argument("--repeat", type=int, default=3, help="copies of each string per pass")
    args = parser.parse_args(argv)

    build_s, build_peak = build_in_child()
    print(f"index build/load in a child process: {build_s:.2f}s, peak {build_peak} MB")

    started = time.perf_counter()
    from pipeline.normalize.locations import evaluate, gazetteer, locate

    gazetteer.get_index()
    locate("San Francisco, CA")
    startup_s = time.perf_counter() - started
    print(f"startup (import + cached index + first call): {startup_s:.2f}s")

    strings, have_real = real_strings()
    if not have_real:
        print("real fixtures not found: throughput measured on built-in strings, no accuracy")
        strings = fallback_strings()
    rate, calls = throughput(strings, args.seconds, args.repeat)
    print(f"throughput: {rate:,.0f} strings/s ({len(strings)} distinct, {calls} calls, memo off)")

    figures: dict[str, object] = {
        "strings_per_s": round(rate),
        "startup_s": round(startup_s, 3),
        "peak_rss_mb": 0.0,
        "us_recall": None,
        "country_agreement": None,
        "coverage": None,
        "distinct_strings": len(strings),
        "calibration_ms": calibration_ms(),
        "index_build_s": round(build_s, 2),
        "index_build_peak_rss_mb": build_peak,
    }
    if have_real:
        scores = evaluate.score_ashby(evaluate.read_ashby_key(), locate).summary()
        print("Ashby answer key:", json.dumps(scores))
        figures.update(
            us_recall=scores["us_recall"],
            country_agreement=scores["country_agreement"],
            coverage=scores["coverage"],
            country_exact=scores["country_exact"],
            recall=scores["recall"],
            ashby_rows=scores["rows"],
        )
        for name, values in evaluate.other_location_sets().items():
            counts = evaluate.resolve_counts(values, locate)
            print(f"{name}: {json.dumps(counts)}")
            figures[f"resolved_{name}"] = counts
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(figures, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
