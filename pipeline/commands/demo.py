"""`make demo`: the whole path on the embedded default against the sandbox job web.

Starts (or reuses) the private PostgreSQL and the sandbox, runs discover ->
fetch -> parse -> check for every sandbox source, syncs serving, and prints what
happened: one line per source, the time of each phase, postings by status and a
sample search. A run that finds no closed posting then plays one employer's take-down
(`take_a_job_down`), so the demo always shows a posting closed on evidence and its 410
page. A second run finds everything unchanged and publishes nothing.
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
# The board whose employer takes a job down on a run that finds nothing closed, so
# every demo database holds a closed posting and its 410 page (not DEMO_BOARD: the
# README walkthrough changes that one).
TAKEDOWN_BOARD = ("greenhouse", "northwind")
PHASES = ("discover", "fetch", "parse", "check")
CLOSED_STATUSES = ("not_found", "expired")


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


@dataclass(frozen=True)
class Takedown:
    """One posting its employer took down, and what the engine concluded about it."""

    posting_id: int
    external_id: str
    title: str


def _closed_postings(app: App) -> int:
    with app.db.connect() as conn:
        row = conn.execute(
            "SELECT count(*) AS n FROM core.postings WHERE status = ANY(%s)",
            (list(CLOSED_STATUSES),),
        ).fetchone()
    return int(row["n"]) if row else 0


def _takedown_candidate(app: App) -> Takedown | None:
    """The active posting of TAKEDOWN_BOARD with the highest id (the board's newest)."""
    source, token = TAKEDOWN_BOARD
    with app.db.connect() as conn:
        row = conn.execute(
            """SELECT p.id, p.external_id, p.title FROM core.postings p
               JOIN crawl.boards b ON b.id = p.board_id
               WHERE p.source_id = %s AND b.board_key = %s AND p.status = 'active'
               ORDER BY p.id DESC LIMIT 1""",
            (source, token),
        ).fetchone()
    return Takedown(row["id"], row["external_id"], row["title"] or "") if row else None


@dataclass(frozen=True)
class PostingState:
    status: str
    missing_count: int
    close_reason: str | None

    def line(self) -> str:
        if self.status == "active" and self.missing_count:
            return f"absent from {self.missing_count} complete listing, still active"
        if self.close_reason:
            return f"{self.status} ({self.close_reason})"
        return self.status


def _posting_state(app: App, posting_id: int) -> PostingState:
    with app.db.connect() as conn:
        row = conn.execute(
            "SELECT status, missing_count, close_reason FROM core.postings WHERE id = %s",
            (posting_id,),
        ).fetchone()
    assert row is not None, f"posting {posting_id} vanished: postings are never deleted"
    return PostingState(row["status"], row["missing_count"], row["close_reason"])


def take_a_job_down(app: App) -> Takedown | None:
    """An employer takes one job down (for real, in the sandbox) and the engine closes it
    on evidence, as scheduled runs would over a few hours: two complete listings without
    it make it `missing`, and its own record answering 404 closes it. Only on a run that
    finds nothing closed, so every demo database shows one closed posting (and its 410
    page) and a second demo finds nothing new."""
    if _closed_postings(app):
        return None
    taken = _takedown_candidate(app)
    if taken is None:
        return None
    source, token = TAKEDOWN_BOARD
    httpx.post(
        f"{app.settings.sandbox_url}/_sandbox/remove",
        params={"platform": source, "token": token, "id": taken.external_id},
    ).raise_for_status()
    print(
        f'\nan employer takes a job down: {source}/{token} removes "{taken.title}" '
        f"(posting {taken.posting_id}), so the engine polls that source and checks again:"
    )
    for poll in (1, 2):
        discover(app, source, force=True)
        print(f"  poll {poll}: {_posting_state(app, taken.posting_id).line()}")
    check_postings(app, source)
    print(f"  check: {_posting_state(app, taken.posting_id).line()}")
    return taken


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
    if app.settings.serving_cluster == "separate" and app.urls.cluster is not None:
        print(f"serving database: {app.serving_db.redacted()}, a cluster of its own")
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
    if taken := take_a_job_down(app):
        closed = sync_serving(app).stats
        print(
            f"  sync: {closed['removed']} removed; the job's page answers 410 Gone "
            f"(jobharbor web, then /jobs/{taken.posting_id})"
        )
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
    web = "jobharbor web"
    if app.settings.serving_cluster == "separate":
        web = "JOBHARBOR_SERVING_CLUSTER=separate " + web
    print(f"open the web app: {web}, then http://127.0.0.1:8000 (API docs at /docs)")
