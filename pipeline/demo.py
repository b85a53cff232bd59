"""`make demo`: the whole path on the embedded default against the sandbox job web.

Starts (or reuses) the private PostgreSQL and the sandbox, runs discover ->
fetch -> parse for every sandbox source, syncs serving, and prints what
happened. A second run finds everything unchanged and publishes nothing.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from typing import Any

import httpx

from pipeline.app import App
from pipeline.catalog import sync_catalog
from pipeline.db.setup import setup_databases
from pipeline.phases.check import check_postings
from pipeline.phases.common import PhaseReport
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving
from pipeline.settings import REPO_ROOT, load_settings
from pipeline.status import gather_status, render_status
from sandbox.daemon import ensure_sandbox
from serving_sync.reconcile import search

SAMPLE_QUERY = "engineer"
DEMO_BOARD = ("greenhouse", "harbor-labs")


def demo_app() -> App:
    base = load_settings()
    url = ensure_sandbox(base.data_dir)
    os.environ["JOBHARBOR_SANDBOX_URL"] = url
    # The sandbox lives on loopback: the demo (like the tests) explicitly allows it.
    settings = load_settings(
        allow_private_networks=True,
        sources_file=REPO_ROOT / "sandbox" / "sources.yaml",
        sandbox_url=url,
    )
    return App.create(settings=settings)


def _line(phase: str, source: str, report: PhaseReport, text: str) -> str:
    return f"  {phase:<9} {source:<12} {report.elapsed_s:6.2f}s  {text}"


def _discover_text(stats: dict[str, Any]) -> str:
    outcomes = (
        ", ".join(f"{n} {o}" for o, n in sorted(stats.get("outcomes", {}).items())) or "nothing due"
    )
    return (
        f"{stats.get('boards', 0)} boards polled ({outcomes}); {stats.get('postings_seen', 0)} postings found "
        f"({stats.get('postings_new', 0)} new, {stats.get('postings_changed', 0)} changed, "
        f"{stats.get('postings_missing', 0)} now missing, {stats.get('postings_reopened', 0)} reopened)"
    )


def _fetch_text(stats: dict[str, Any]) -> str:
    outcomes = ", ".join(f"{n} {o}" for o, n in sorted(stats.get("outcomes", {}).items()))
    return f"{stats.get('postings', 0)} detail pages" + (f" ({outcomes})" if outcomes else "")


def _parse_text(stats: dict[str, Any]) -> str:
    q = Counter(stats.get("quality", {}))
    return f"{stats.get('postings', 0)} parsed: {q['accepted']} accepted, {q['partial']} partial, {q['rejected']} rejected"


def _check_text(stats: dict[str, Any]) -> str:
    outcomes = ", ".join(f"{n} {o}" for o, n in sorted(stats.get("outcomes", {}).items()))
    return f"{stats.get('checked', 0)} missing postings checked" + (
        f" ({outcomes})" if outcomes else ""
    )


def run_demo(*, advance: bool = False) -> int:
    started = time.monotonic()
    app = demo_app()
    setup = setup_databases(app.db, app.serving_db)
    sync_catalog(app)
    print(
        f"jobharbor demo: sandbox {app.settings.sandbox_url}, database {app.db.redacted()} "
        f"(schema {setup.revision}), raw objects in {app.settings.effective_raw_store_url}"
    )
    if advance:
        platform, token = DEMO_BOARD
        httpx.post(
            f"{app.settings.sandbox_url}/_sandbox/advance",
            params={"platform": platform, "token": token},
        ).raise_for_status()
        print(
            f"changed sandbox board {platform}/{token}: one posting closed, one edited, one opened"
        )
    print()
    totals: Counter[str] = Counter()
    for name in app.source_names():
        found = discover(app, name, force=True)
        print(_line("discover", name, found, _discover_text(dict(found.stats))))
        fetched = fetch_details(app, name)
        print(_line("fetch", name, fetched, _fetch_text(dict(fetched.stats))))
        parsed = parse_source(app, name)
        print(_line("parse", name, parsed, _parse_text(dict(parsed.stats))))
        checked = check_postings(app, name)
        print(_line("check", name, checked, _check_text(dict(checked.stats))))
        totals["new"] += found.stats.get("postings_new", 0) + found.stats.get("postings_changed", 0)
        totals["parsed"] += parsed.stats.get("postings", 0)
        totals["closed"] += checked.stats.get("outcomes", {}).get("closed", 0)
    synced = sync_serving(app)
    s = synced.stats
    print(
        _line(
            "sync",
            "serving",
            synced,
            f"{s['source_rows']} open postings: {s['inserted']} published, {s['updated']} updated, "
            f"{s['removed']} removed, {s['unchanged']} unchanged",
        )
    )
    print()
    print(render_status(gather_status(app.db)))
    changed = s["inserted"] + s["updated"] + s["removed"]
    if not totals["new"] and not totals["parsed"] and not totals["closed"] and not changed:
        print("nothing new: every board unchanged, nothing parsed, nothing published")
    print(f'\nsearch "{SAMPLE_QUERY}" in the serving schema:')
    for row in search(app.serving_db, SAMPLE_QUERY, 5):
        print(
            f"  {row['rank']:.3f}  {row['title']} — {row['company']} ({row['location_text']}) [{row['source']}]"
        )
    print(f"\ndone in {time.monotonic() - started:.1f}s")
    return 0
