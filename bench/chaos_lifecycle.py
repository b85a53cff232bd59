"""Chaos run of the lifecycle (docs/reliability.md §2): N sandbox boards over every
platform of sandbox/sources.yaml, M cycles with random faults (429 and 503 with
Retry-After as seconds and as an HTTP date, connection resets, truncated bodies, empty
and partial listings, block pages, timeouts, login walls on
listings; 401, 403, 429, 500, soft-404s, timeouts, login walls on posting pages),
then K calm cycles, through the real discover, fetch, parse and check.

A private PostgreSQL cluster and an in-process sandbox; the run itself is
`chaos.lifecycle.run_chaos` (reused by the fault suite). Prints figures, then
ONE line of JSON with `wrongful_closes`, `stuck_missing`, `cooldown_violations`,
`postings_lost` and `missed_closes`.

Usage: python bench/chaos_lifecycle.py [--boards 24] [--cycles 10] [--calm 3] [--seed 9]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._sandbox_proc import start_sandbox_process  # noqa: E402
from chaos.lifecycle import ChaosConfig, ChaosReport, OverHttp, run_chaos  # noqa: E402
from pipeline.app import App  # noqa: E402
from pipeline.crawl.catalog import sync_catalog  # noqa: E402
from pipeline.db import migrate  # noqa: E402
from pipeline.db.connect import Database  # noqa: E402
from pipeline.db.embedded import ensure_cluster, stop_cluster  # noqa: E402
from pipeline.settings import Settings  # noqa: E402
from serving_sync import schema as serving_schema  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=24, help="spread over every source")
    parser.add_argument("--cycles", type=int, default=10, help="cycles with faults")
    parser.add_argument("--calm", type=int, default=3, help="calm cycles after them")
    parser.add_argument("--fault-rate", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=9)
    args = parser.parse_args(argv)
    config = ChaosConfig(
        cycles=args.cycles,
        calm_cycles=args.calm,
        fault_rate=args.fault_rate,
        seed=args.seed,
    )
    work = Path(tempfile.mkdtemp(prefix="jobharbor-chaos-"))
    sandbox = None
    try:
        cluster = ensure_cluster(work / "pg", databases=("chaos", "chaos_serving"))
        db = Database(cluster.url("chaos"))
        migrate.upgrade(db)
        serving_schema.upgrade(Database(cluster.url("chaos_serving")))
        sandbox, sandbox_url = start_sandbox_process(work)
        os.environ["JOBHARBOR_SANDBOX_URL"] = sandbox_url
        app = _app(
            work,
            cluster.url("chaos"),
            cluster.url("chaos_serving"),
            sandbox_url,
            args.boards,
            config,
        )
        sync_catalog(app)
        started = time.monotonic()
        report = run_chaos(app, OverHttp(sandbox_url), config)
        summary = report.summary()
        _print_figures(report, summary, time.monotonic() - started)
        print(json.dumps(summary))
        return 0
    finally:
        if sandbox is not None:
            sandbox.terminate()
            sandbox.wait(timeout=10)
        stop_cluster(work / "pg")
        shutil.rmtree(work, ignore_errors=True)


def _print_figures(report: ChaosReport, summary: dict[str, Any], elapsed_s: float) -> None:
    print(
        f"{summary['boards']} boards, {summary['platforms']} sandbox platforms, "
        f"{summary['cycles']} cycles in {elapsed_s:.0f}s"
    )
    print(f"faults injected: {dict(sorted(report.faults.items()))}")
    print(
        f"world changes: {report.changes}; closes {report.closes} "
        f"(rightful {report.rightful_closes}); reopened {report.reopened}"
    )
    print(
        f"requests {report.requests}; cooldowns asked {report.cooldowns}; first request "
        f"after a cooldown ended, ms (min, max): {summary['first_request_after_cooldown_ms']}"
    )
    print(
        f"events: {summary['events']}: {summary['event_postings_removed']} postings removed, "
        f"{summary['event_postings_open']} still open at the end"
    )
    for still in report.event_open:
        print(f"EVENT POSTING STILL OPEN {still}")
    for wrong in report.wrongful:
        print(f"WRONGFUL CLOSE {wrong}")
    for stuck in report.stuck:
        print(f"STUCK MISSING {stuck}")
    for violation in report.violations[:20]:
        print(f"COOLDOWN VIOLATION {violation}")
    for lost in report.lost[:20]:
        print(f"POSTING LOST {lost}")
    for missed in report.missed:
        print(f"MISSED CLOSE {missed}")


def _app(
    work: Path, db_url: str, serving_url: str, sandbox_url: str, boards: int, config: ChaosConfig
) -> App:
    sources = work / "sources.yaml"
    sources.write_text(yaml.safe_dump(spread_boards(boards)), encoding="utf-8")
    settings = Settings(
        database_url=db_url,
        serving_database_url=serving_url,
        raw_store_url=(work / "raw").resolve().as_uri(),
        data_dir=work,
        allow_private_networks=True,  # the sandbox is on loopback
        sources_file=sources,
        sandbox_url=sandbox_url,
        http_timeout_s=config.timeout_s,
    )
    return App.create(settings=settings)


def spread_boards(boards: int) -> dict[str, Any]:
    """sandbox/sources.yaml with `boards` boards in all: at least one per source, the
    rest dealt round-robin to the ATS sources (new sandbox tokens)."""
    data = yaml.safe_load((ROOT / "sandbox" / "sources.yaml").read_text())
    sources = data["sources"]
    lists = {n: c.get("boards", c.get("scopes")) for n, c in sources.items()}
    total = sum(len(v) for v in lists.values())
    while total > max(boards, len(sources)):  # trim the longest lists first
        name = max(lists, key=lambda n: len(lists[n]))
        lists[name].pop()
        total -= 1
    ats = [n for n, c in sources.items() if "boards" in c]
    extra = 0
    while total < boards:
        name = ats[extra % len(ats)]
        lists[name].append(extra_token(lists[name][0], extra))
        extra += 1
        total += 1
    return data


def extra_token(template: str, extra: int) -> str:
    """A new sandbox board in the form the platform's tokens take (its first board's):
    a plain slug, or host/site with a new first label of the host (Workday and Oracle
    tenants; SuccessFactors, whose sandbox boards are keyed by host, the company being a
    query parameter)."""
    if "/" not in template:
        return f"chaos-{extra}"
    host, rest = template.split("/", 1)
    return f"chaos{extra}{host[host.index('.') :]}/{rest}"


if __name__ == "__main__":
    raise SystemExit(main())
