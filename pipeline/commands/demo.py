"""`make demo`: the whole path on the embedded default against the sandbox job web.

Starts (or reuses) the private PostgreSQL and the sandbox, runs discover ->
fetch -> parse -> check for every sandbox source, syncs serving, and prints what
happened: one line per source, the time of each phase, postings by status and a
sample search. A second run finds everything unchanged and publishes nothing.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from pipeline.app import App
from pipeline.commands.enrich_demo import demo_enrichment, published_skills
from pipeline.commands.setup import setup_databases
from pipeline.commands.status import gather_status
from pipeline.crawl.catalog import sync_catalog
from pipeline.phases.check import check_postings
from pipeline.phases.common import PhaseReport
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving
from pipeline.settings import REPO_ROOT, Settings, load_settings
from sandbox.daemon import ensure_sandbox
from serving_sync.quality import one_line, read_quality
from serving_sync.reconcile import search

SAMPLE_QUERY = "engineer"
DEMO_BOARD = ("greenhouse", "harbor-labs")
PHASES = ("discover", "fetch", "parse", "check")


def demo_app() -> App:
    base = load_settings()
    url = ensure_sandbox(base.data_dir)
    return App.create(settings=demo_settings(base, url))


def demo_settings(base: Settings, sandbox_url: str) -> Settings:
    """The sandbox lives on loopback: the demo (like the tests) explicitly allows it,
    and may reach nothing else (a URL on a real public host fails loudly instead)."""
    return load_settings(
        allow_private_networks=True,
        egress_allowlist=base.egress_allowlist or urlsplit(sandbox_url).netloc,
        sources_file=REPO_ROOT / "sandbox" / "sources.yaml",
        sandbox_url=sandbox_url,
    )


def _counts(values: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {key}" for key, n in sorted(values.items()) if n) or "-"


@dataclass(frozen=True)
class SourceRun:
    name: str
    reports: Mapping[str, PhaseReport]

    def stats(self, phase: str) -> dict[str, Any]:
        return dict(self.reports[phase].stats)

    def line(self) -> str:
        found, fetched = self.stats("discover"), self.stats("fetch")
        parsed, checked = self.stats("parse"), self.stats("check")
        postings = {
            "new": found.get("postings_new", 0),
            "changed": found.get("postings_changed", 0),
            "now missing": found.get("postings_missing", 0),
            "reopened": found.get("postings_reopened", 0),
        }
        seconds = sum(r.elapsed_s for r in self.reports.values())
        return (
            f"  {self.name:<16} {found.get('boards', 0):>3} boards ({_counts(found.get('outcomes', {}))}); "
            f"postings: {_counts(postings)}; detail pages: {fetched.get('postings', 0)}; "
            f"parsed: {_counts(parsed.get('quality', {}))}; "
            f"checked: {_counts(checked.get('outcomes', {}))}  [{seconds:.2f}s]"
        )

    def news(self) -> int:
        found = self.stats("discover")
        return (
            found.get("postings_new", 0)
            + found.get("postings_changed", 0)
            + found.get("postings_missing", 0)
            + self.stats("parse").get("postings", 0)
            + self.stats("check").get("outcomes", {}).get("closed", 0)
        )


def _run_source(app: App, name: str) -> SourceRun:
    return SourceRun(
        name,
        {
            "discover": discover(app, name, force=True),
            "fetch": fetch_details(app, name),
            "parse": parse_source(app, name),
            "check": check_postings(app, name),
        },
    )


def _advance(app: App) -> None:
    platform, token = DEMO_BOARD
    httpx.post(
        f"{app.settings.sandbox_url}/_sandbox/advance",
        params={"platform": platform, "token": token},
    ).raise_for_status()
    print(f"changed sandbox board {platform}/{token}: one posting closed, one edited, one opened")


def run_demo(*, advance: bool = False) -> int:
    show_demo(demo_app(), advance=advance)
    return 0


def show_demo(app: App, *, advance: bool = False) -> None:
    """One demo run on `app` (the README's walkthrough test runs it on test databases)."""
    started = time.monotonic()
    setup = setup_databases(app.db, app.serving_db)
    sync_catalog(app)
    print(
        f"jobharbor demo: sandbox {app.settings.sandbox_url}, database {app.db.redacted()} "
        f"(schema {setup.revision}), raw objects in {app.settings.effective_raw_store_url}"
    )
    if advance:
        _advance(app)
    print(
        "\nper source: boards polled (outcomes); postings; detail pages; parse quality; direct checks"
    )
    runs = [_run_source(app, name) for name in app.source_names()]
    for run in runs:
        print(run.line())

    print("\n" + "\n".join(demo_enrichment(app)))
    synced = sync_serving(app)
    s = synced.stats
    phase_times = "  ".join(
        f"{phase} {sum(r.reports[phase].elapsed_s for r in runs):.2f}s" for phase in PHASES
    )
    print(f"\nphase times: {phase_times}  sync {synced.elapsed_s:.2f}s")
    print(
        f"serving: {s['source_rows']} open postings: {s['inserted']} published, "
        f"{s['updated']} updated, {s['removed']} removed, {s['unchanged']} unchanged"
    )
    print(published_skills(app))  # the enrichment ran before the sync: skills are published
    statuses: Counter[str] = Counter()
    for info in gather_status(app.db)["sources"].values():
        statuses.update(info["postings"])
    print(f"postings by status: {_counts(statuses)}  (details: jobharbor status)")
    if not any(run.news() for run in runs) and not (s["inserted"] + s["updated"] + s["removed"]):
        print("nothing new: every board unchanged, nothing parsed, nothing published")
    print(f'\nsearch "{SAMPLE_QUERY}" in the serving schema:')
    for row in search(app.serving_db, SAMPLE_QUERY, 5):
        print(
            f"  {row['rank']:.3f}  {row['title']} — {row['company']} ({row['location_text']}) [{row['source']}]"
        )
    with app.serving_db.connect() as conn:
        print("\n" + one_line(read_quality(conn)) + "  (details: jobharbor quality --json)")
    print(f"\ndone in {time.monotonic() - started:.1f}s")
    print("open the web app: jobharbor web, then http://127.0.0.1:8000 (API docs at /docs)")
