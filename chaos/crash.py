"""Crash drills (docs/reliability.md §1): a phase runs as its own `jobharbor` process and is
killed with SIGKILL at a named state boundary (pipeline.testhooks); then the steps
run again from that phase, and the invariants are checked with SQL and against the
raw store:

- no raw object lost or orphaned: every row `ready` and its object intact (length
  and hash), and no object in the store without a row;
- no duplicate parse result or enrichment result: at most one current result per
  posting;
- raw cleanup: an object whose delete intent was recorded is either still present
  and not marked `deleted`, or gone and marked `deleted` (and a `deleted` row never
  has its object in the store);
- no posting closed (the sandbox world never closes one during a drill);
- no half-published serving state: serving.jobs holds exactly the open postings;
- leases released or expired, and the work picked up: no board leased after the
  rerun, every listed posting stored and parsed;
- convergence: postings, statuses, current parse content and serving rows are the
  same as after an uninterrupted run of the same steps on fresh databases.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import yaml
from psycopg.rows import dict_row

from pipeline.progress import Progress
from pipeline.settings import REPO_ROOT, load_settings
from pipeline.testhooks import KILL_ENV
from sandbox.faults import Fault
from sandbox.server import RunningSandbox

PHASES = ("discover", "fetch", "parse", "check", "sync")
# A phase name; "omit" (a partial listing: some live postings go missing); "advance"
# (the world moves one revision: a posting removed, one edited, one added); "enrich"
# (against the sandbox's Gemini endpoint); "reparse" (a re-parse backfill: preview,
# then apply); "cleanup" (raw cleanup --apply, with a retention of 0 days).
Step = str
_ADVANCED = (
    ("greenhouse", "harbor-labs"),
    ("greenhouse", "northwind"),
    ("site:vieclam", "it"),
    ("site:vieclam", "ke-toan"),
)
# Edited and removed postings leave superseded raw objects for the cleanup to delete.
CLEANUP_STEPS = (
    "discover",
    "fetch",
    "parse",
    "advance",
    "discover",
    "fetch",
    "parse",
    "sync",
    "cleanup",
)


@dataclass(frozen=True)
class Drill:
    name: str
    kill_at: str  # JOBHARBOR_TEST_KILL_AT
    phase: str  # the phase that is killed
    steps: tuple[Step, ...]  # every step of the scenario, the killed phase among them


DRILLS = (
    Drill("raw: after intent, before upload", "raw:after_intent", "discover", PHASES),
    Drill("raw: after upload, before ready", "raw:after_upload:3", "fetch", PHASES),
    Drill("discover: mid multi-page listing", "discover:mid_listing:2", "discover", PHASES),
    Drill("parse: mid batch", "parse:mid_batch", "parse", PHASES),
    Drill(
        "check: mid direct-check batch",
        "check:mid_batch",
        "check",
        # Omitted from two complete listings, the postings are `missing`: checked.
        ("discover", "fetch", "parse", "omit", "discover", "discover", "check", "sync"),
    ),
    Drill("sync: before verification", "sync:before_verify", "sync", PHASES),
    Drill("sync: after verification, before commit", "sync:after_verify", "sync", PHASES),
    Drill(
        "enrich: mid enrichment batch",
        "enrich:mid_batch:3",
        "enrich",
        ("discover", "fetch", "parse", "enrich", "sync"),
    ),
    Drill(
        "backfill: mid re-parse apply (committed, not journaled)",
        "backfill:mid_apply",
        "reparse",
        ("discover", "fetch", "parse", "reparse", "sync"),
    ),
    *(
        Drill(
            f"raw cleanup: {what}",
            kill_at,
            "cleanup",
            CLEANUP_STEPS,
        )
        for what, kill_at in (
            ("between delete intent and delete", "cleanup:after_intent"),
            ("between delete and marking the row", "cleanup:after_delete"),
        )
    ),
)


@dataclass
class DrillResult:
    name: str
    passed: bool
    detail: str


@dataclass
class CrashReport:
    drills: list[DrillResult] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        return {
            "crash_drills_passed": sum(d.passed for d in self.drills),
            "crash_drills_total": len(self.drills),
        }


@dataclass(frozen=True)
class World:
    """Where the drills run: a PostgreSQL server (superuser URL), migrated template
    databases, the sandbox, and a work directory."""

    admin_url: str
    templates: tuple[str, str]
    sandbox: RunningSandbox
    work: Path
    cluster_root: Path | None = None  # ours to stop and restart (the PostgreSQL drill)

    def url(self, database: str) -> str:
        base, _, _ = self.admin_url.rpartition("/")
        return f"{base}/{database}"

    @contextmanager
    def databases(self) -> Iterator[tuple[str, str]]:
        tag = uuid.uuid4().hex[:8]
        names = (f"crash_{tag}", f"crash_serving_{tag}")
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            for name, template in zip(names, self.templates, strict=True):
                conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        try:
            yield self.url(names[0]), self.url(names[1])
        finally:
            with psycopg.connect(self.admin_url, autocommit=True) as conn:
                for name in names:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def drill_sources(sandbox_url: str) -> dict[str, Any]:
    """Two Greenhouse boards and the paged HTML job site (listing, then detail pages)."""
    data = yaml.safe_load((REPO_ROOT / "sandbox" / "sources.yaml").read_text())
    keep = {
        "greenhouse": {**data["sources"]["greenhouse"], "boards": ["harbor-labs", "northwind"]},
        "vieclam": data["sources"]["vieclam"],
    }
    return {"version": 1, "sources": keep}


@dataclass
class _Run:
    world: World
    urls: tuple[str, str]
    data: Path
    manifest: Path | None = None  # the re-parse backfill's, once previewed

    def env(self, kill_at: str | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("JOBHARBOR_")}
        env.update(
            JOBHARBOR_DATABASE_URL=self.urls[0],
            JOBHARBOR_SERVING_DATABASE_URL=self.urls[1],
            JOBHARBOR_RAW_STORE_URL=(self.data / "raw").resolve().as_uri(),
            JOBHARBOR_DATA_DIR=str(self.data),
            # Derived artifacts (the place-name index) are shared with the caller: the
            # drill's fresh data dir would otherwise rebuild the index in every parse.
            JOBHARBOR_CACHE_DIR=str(load_settings().effective_cache_dir),
            JOBHARBOR_ALLOW_PRIVATE_NETWORKS="true",
            JOBHARBOR_SOURCES=str(self.data / "sources.yaml"),
            JOBHARBOR_SANDBOX_URL=self.world.sandbox.url,
            PYTHONPATH=str(REPO_ROOT),
            # Enrichment: the sandbox's Gemini endpoint, budgets that never make a
            # drill wait (the budget tables live in the drill's database).
            GEMINI_API_KEY="sandbox-drill-key",
            JOBHARBOR_LLM_BASE_URL=self.world.sandbox.url,
            JOBHARBOR_LLM_RPM="10000",
            JOBHARBOR_LLM_TPM="100000000",
            JOBHARBOR_LLM_RPD="1000000",
            JOBHARBOR_RAW_RETENTION_DAYS="0",  # cleanup may delete what is a second old
        )
        env.pop("GOOGLE_API_KEY", None)
        if kill_at:
            env[KILL_ENV] = kill_at
        return env

    def jobharbor(self, *args: str, kill_at: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pipeline", *args],
            cwd=REPO_ROOT,
            env=self.env(kill_at),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    def step(self, step: Step, kill_at: str | None = None) -> subprocess.CompletedProcess[str]:
        if step in ("omit", "advance"):
            self._omit() if step == "omit" else _advance(self.world, 1)
            return subprocess.CompletedProcess([step], 0, "", "")
        if step == "reparse":
            return self._reparse(kill_at)
        args = {
            "check": ("check", "--recheck-after", "0"),
            "discover": ("discover", "--force"),
            "enrich": ("enrich", "--max-requests", "1000"),
            "cleanup": ("raw", "cleanup", "--apply"),
        }
        return self.jobharbor(*args.get(step, (step,)), kill_at=kill_at)

    def _reparse(self, kill_at: str | None) -> subprocess.CompletedProcess[str]:
        """A re-parse backfill of the Greenhouse postings: their current results are
        made to look like an older parser's (version 0), previewed once, then applied
        (the rerun applies the same manifest again: it resumes from its journal)."""
        if self.manifest is None:
            with psycopg.connect(self.urls[0]) as conn:
                conn.execute(
                    "UPDATE core.parse_results AS r SET parser_version = '0' FROM core.postings p "
                    "WHERE p.id = r.posting_id AND p.source_id = 'greenhouse' AND r.is_current"
                )
            preview = self.jobharbor(
                "backfill", "reparse", "--source", "greenhouse", "--limit", "1000",
                "--parser", "greenhouse@0",
            )  # fmt: skip
            lines = [x for x in preview.stdout.splitlines() if x.startswith("manifest: ")]
            if preview.returncode != 0 or not lines:
                return preview
            self.manifest = Path(lines[-1].removeprefix("manifest: ").strip())
        return self.jobharbor("backfill", "reparse", "--apply", str(self.manifest), kill_at=kill_at)

    def _omit(self) -> None:
        """A partial listing (totals matching): two live postings of one board go missing."""
        jobs = self.world.sandbox.state.board("greenhouse", "harbor-labs").jobs
        omitted = tuple(j.job_id for j in jobs[:2])
        self.world.sandbox.state.set_fault("greenhouse", "harbor-labs", Fault(omit=omitted))


def _advance(world: World, revision: int) -> None:
    """Set (not step) the drill boards' world revision: a drill and its reference run
    see the same world whatever ran before them."""
    state = world.sandbox.state
    with state.lock:
        for key in _ADVANCED:
            state.revisions[key] = revision


def _reset_world(world: World) -> None:
    world.sandbox.state.set_fault("greenhouse", "harbor-labs", None)
    _advance(world, 0)
    httpx.post(f"{world.sandbox.url}/_sandbox/gemini/reset").raise_for_status()


def run_drill(world: World, drill: Drill) -> DrillResult:
    try:
        reference = _reference(world, drill)
        with world.databases() as urls:
            run = _prepare(world, urls, f"drill-{uuid.uuid4().hex[:6]}")
            problems = _crash_and_rerun(run, drill)
            if not problems:
                problems = (
                    invariants(run)
                    + phase_invariants(run, drill.phase)
                    + _diverges(fingerprint(run), reference)
                )
    finally:
        _reset_world(world)
    detail = "; ".join(problems) if problems else "killed, rerun, invariants hold, converged"
    return DrillResult(drill.name, not problems, detail)


def _prepare(world: World, urls: tuple[str, str], name: str) -> _Run:
    data = world.work / name
    data.mkdir(parents=True)
    (data / "sources.yaml").write_text(yaml.safe_dump(drill_sources(world.sandbox.url)))
    run = _Run(world, urls, data)
    done = run.jobharbor("sources", "sync")
    if done.returncode != 0:
        raise RuntimeError(f"sources sync failed: {done.stderr[-2000:]}")
    return run


# The uninterrupted run of a scenario, per sandbox: every drill of the same steps (most
# of them are the five phases) compares with one reference instead of running its own.
_REFERENCES: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}


def _reference(world: World, drill: Drill) -> dict[str, Any]:
    key = (world.sandbox.url, tuple(drill.steps))
    if key not in _REFERENCES:
        _REFERENCES[key] = _uninterrupted(world, drill)
    return _REFERENCES[key]


def _uninterrupted(world: World, drill: Drill) -> dict[str, Any]:
    _reset_world(world)
    with world.databases() as urls:
        run = _prepare(world, urls, f"reference-{uuid.uuid4().hex[:6]}")
        for step in drill.steps:
            run.step(step)
        _reset_world(world)
        return fingerprint(run)


def _crash_and_rerun(run: _Run, drill: Drill) -> list[str]:
    index = drill.steps.index(
        drill.phase, drill.steps.index("omit") + 1 if "omit" in drill.steps else 0
    )
    for step in drill.steps[:index]:
        run.step(step)
    killed = run.step(drill.phase, kill_at=drill.kill_at)
    if killed.returncode != -9:
        return [f"{drill.phase} was not killed at {drill.kill_at} (exit {killed.returncode})"]
    # The state the crash left, before anything repairs it.
    raws = _rows(run.urls[0], _RAWS)
    if problems := _raw_store_problems(run.data / "raw", raws, settled=False):
        return [f"after the kill: {p}" for p in problems]
    _let_leases_expire(run)
    # What the next run does first (after RECOVER_AFTER_S): resolve the crashed
    # writer's pending uploads; a lost one's work is requeued and fetched again.
    recovered = run.jobharbor("raw", "recover", "--older-than", "0")
    if recovered.returncode != 0:
        return [f"raw recover failed: {recovered.stderr.strip()[-500:]}"]
    for step in drill.steps[index:]:
        done = run.step(step)
        if done.returncode != 0:
            return [f"rerun of {step} failed: {done.stderr.strip()[-500:]}"]
    _reset_world(run.world)
    return []


def _let_leases_expire(run: _Run) -> None:
    """A killed worker cannot release its leases; they expire (10 minutes). The drill
    moves their expiry to now instead of waiting: the time travel of the drill."""
    with psycopg.connect(run.urls[0]) as conn:
        conn.execute(
            "UPDATE crawl.boards SET lease_expires_at = now() WHERE lease_owner IS NOT NULL"
        )
        conn.execute(
            "UPDATE enrich.queue SET lease_expires_at = now() WHERE lease_owner IS NOT NULL"
        )


# ---------------------------------------------------------------- invariants


def _rows(url: str, sql: str) -> list[dict[str, Any]]:
    with psycopg.connect(url, row_factory=dict_row) as conn:
        return list(conn.execute(sql).fetchall())


_RAWS = "SELECT sha256, object_key, byte_length, state, state_reason FROM crawl.raw_objects"


def invariants(run: _Run) -> list[str]:
    db, serving = run.urls
    problems = []
    raws = _rows(db, _RAWS)
    problems += [
        f"raw {r['sha256'][:12]} is {r['state']}"
        for r in raws
        if r["state"] not in ("ready", "deleted")
    ]
    problems += _raw_store_problems(run.data / "raw", raws)
    for table in ("core.parse_results", "enrich.results"):
        for row in _rows(
            db,
            f"SELECT posting_id, count(*) AS n FROM {table} WHERE is_current "
            "GROUP BY posting_id HAVING count(*) > 1",
        ):
            problems.append(f"posting {row['posting_id']} has {row['n']} current {table}")
    closed = _rows(
        db, "SELECT external_id FROM core.postings WHERE status IN ('expired', 'not_found')"
    )
    problems += [f"posting {r['external_id']} closed" for r in closed]
    leased = _rows(
        db,
        "SELECT board_key FROM crawl.boards WHERE lease_owner IS NOT NULL AND lease_expires_at > now()",
    )
    problems += [f"board {r['board_key']} still leased" for r in leased]
    unparsed = _rows(
        db,
        "SELECT external_id FROM core.postings p WHERE NOT EXISTS "
        "(SELECT 1 FROM core.parse_results r WHERE r.posting_id = p.id AND r.is_current)",
    )
    problems += [f"posting {r['external_id']} never parsed" for r in unparsed]
    open_ = {
        r["n"]
        for r in _rows(
            db, "SELECT count(*) AS n FROM core.postings WHERE status IN ('active', 'missing')"
        )
    }
    published = {r["n"] for r in _rows(serving, "SELECT count(*) AS n FROM serving.jobs")}
    if open_ != published:
        problems.append(f"serving holds {published} jobs for {open_} open postings")
    return problems


def _raw_store_problems(
    root: Path, raws: list[dict[str, Any]], *, settled: bool = True
) -> list[str]:
    """Rows against the store. Settled (after the rerun): every row's object present,
    a `deleted` row's absent, no delete intent left. Right after a kill (`settled`
    False): only what no crash may leave, whatever the moment: a `ready` row without a
    delete intent lost its object, a `deleted` row whose object is still there; a
    `pending` row, and a row whose intent was recorded, may be either."""
    problems = []
    keys = {r["object_key"]: r for r in raws}
    stored = (
        {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
        if root.exists()
        else set()
    )
    problems += [
        f"orphaned raw object {k}" for k in sorted(stored - set(keys)) if not k.endswith(".tmp")
    ]
    for key, row in keys.items():
        path = root / key
        intent = (row["state_reason"] or "").startswith("deleting: ")
        if row["state"] == "deleted":
            if path.exists():
                problems.append(f"raw object {key} is marked deleted and still in the store")
        elif intent and settled and row["state"] == "ready":
            problems.append(f"raw object {key} has a delete intent no run finished")
        elif not settled and (intent or row["state"] == "pending"):
            continue
        elif not path.exists():
            problems.append(f"raw object {key} ({row['state']}) missing from the store")
        elif len(path.read_bytes()) != row["byte_length"]:
            problems.append(f"raw object {key} has the wrong length")
    return problems


def phase_invariants(run: _Run, phase: str) -> list[str]:
    """What the killed phase itself must have finished once its rerun is done."""
    db = run.urls[0]
    checks = {
        "enrich": (
            "SELECT p.external_id || ' not enriched' AS problem FROM core.postings p "
            "WHERE p.status = 'active' AND NOT EXISTS (SELECT 1 FROM enrich.results e "
            "WHERE e.posting_id = p.id AND e.is_current) "
            "UNION ALL SELECT 'queue row ' || posting_id || ' is ' || state FROM enrich.queue "
            "WHERE state <> 'done'"
        ),
        "reparse": (
            "SELECT p.external_id || ' still parsed by greenhouse@0' AS problem "
            "FROM core.parse_results r JOIN core.postings p ON p.id = r.posting_id "
            "WHERE r.is_current AND r.parser_version = '0'"
        ),
        "cleanup": (
            "SELECT 'nothing was deleted' AS problem WHERE NOT EXISTS "
            "(SELECT 1 FROM crawl.raw_objects WHERE state = 'deleted')"
        ),
    }
    if phase not in checks:
        return []
    return [r["problem"] for r in _rows(db, checks[phase])]


def fingerprint(run: _Run) -> dict[str, Any]:
    db, serving = run.urls
    postings = _rows(
        db,
        "SELECT p.source_id, p.external_id, p.status, r.content_hash FROM core.postings p "
        "LEFT JOIN core.parse_results r ON r.posting_id = p.id AND r.is_current",
    )
    jobs = _rows(serving, "SELECT count(*) AS n FROM serving.jobs")
    enriched = _rows(
        db,
        "SELECT p.external_id, e.text_hash, e.fields::text AS fields, count(*) OVER () AS n "
        "FROM enrich.results e JOIN core.postings p ON p.id = e.posting_id",
    )
    raws = _rows(db, "SELECT sha256, state FROM crawl.raw_objects")
    return {
        "postings": sorted(
            (r["source_id"], r["external_id"], r["status"], r["content_hash"] or "")
            for r in postings
        ),
        "serving_jobs": jobs[0]["n"],
        # Every enrichment result ever stored (current or not): a rerun stores none twice.
        "enrichment": sorted((r["external_id"], r["text_hash"], r["fields"]) for r in enriched),
        "raw_objects": sorted((r["sha256"], r["state"]) for r in raws),
    }


def _diverges(got: dict[str, Any], reference: dict[str, Any]) -> list[str]:
    if got == reference:
        return []
    problems = []
    for key in ("postings", "enrichment", "raw_objects"):
        mine, theirs = got[key], reference[key]
        if mine != theirs:
            odd = sorted(set(mine) ^ set(theirs))[:2]
            problems.append(
                f"did not converge: {key} {len(mine)} vs {len(theirs)} in the uninterrupted "
                f"run (e.g. {odd})"
            )
    if got["serving_jobs"] != reference["serving_jobs"]:
        problems.append(f"serving {got['serving_jobs']} vs {reference['serving_jobs']}")
    return problems


def postgres_drill(world: World) -> DrillResult:
    """`pg_ctl stop -m immediate` while a discover is in flight (a slow listing keeps
    it there): the phase fails with a clear error, and after a restart the next runs
    converge on the uninterrupted state."""
    name = "postgres: stopped -m immediate during a discover"
    assert world.cluster_root is not None
    reference = _reference(world, Drill(name, "", "discover", PHASES))
    with world.databases() as urls:
        run = _prepare(world, urls, f"pg-{uuid.uuid4().hex[:6]}")
        problems = _kill_postgres_mid_discover(run, world.cluster_root)
        if not problems:
            _let_leases_expire(run)
            run.jobharbor("raw", "recover", "--older-than", "0")
            for step in PHASES:
                done = run.step(step)
                if done.returncode != 0:
                    problems.append(f"rerun of {step} failed: {done.stderr.strip()[-300:]}")
            problems += invariants(run) + _diverges(fingerprint(run), reference)
    detail = "; ".join(problems) if problems else "discover failed clearly, restart converged"
    return DrillResult(name, not problems, detail)


def _kill_postgres_mid_discover(run: _Run, root: Path) -> list[str]:
    import time

    from pipeline.db.embedded import _pg, _run_as_user, ensure_cluster, find_bin_dir

    sandbox = run.world.sandbox
    sandbox.state.set_fault("greenhouse", "northwind", Fault(delay_s=3.0, on="listing"))
    since = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "discover", "--force"],
        cwd=REPO_ROOT,
        env=run.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not sandbox.state.requests(token="northwind", since=since - 1):
            if process.poll() is not None or time.monotonic() - since > 60:
                return ["discover never reached the slow listing"]
            time.sleep(0.05)
        data = root.resolve() / "data"
        _pg(find_bin_dir(), _run_as_user(), "pg_ctl", "-D", str(data), "-m", "immediate", "stop")
        _, err = process.communicate(timeout=120)
    finally:
        sandbox.state.set_fault("greenhouse", "northwind", None)
        ensure_cluster(root, databases=(), durable=False, password_auth=False)
    if process.returncode == 0:
        return ["discover succeeded although its database was stopped"]
    lines = err.strip().splitlines() or ["(no error output)"]
    if "Traceback" in err or not lines[-1].startswith("error: database connection failed"):
        return [f"discover failed without a clear error: {lines[-1][:300]}"]
    return []


def run_crash_drills(world: World | None = None, drills: tuple[Drill, ...] = DRILLS) -> CrashReport:
    report = CrashReport()
    with (
        _own_world() if world is None else _given(world) as active,
        Progress("crash drills", len(drills)) as progress,
    ):
        for drill in drills:
            report.drills.append(run_drill(active, drill))
            progress.advance()
        if active.cluster_root is not None:
            report.drills.append(postgres_drill(active))
    return report


@contextmanager
def _given(world: World) -> Iterator[World]:
    yield world


@contextmanager
def _own_world() -> Iterator[World]:
    """A private PostgreSQL cluster (migrated templates) and an in-process sandbox."""
    import shutil
    import tempfile

    from pipeline.db import migrate
    from pipeline.db.connect import Database
    from pipeline.db.embedded import ensure_cluster, stop_cluster
    from sandbox.server import start_sandbox
    from serving_sync import schema as serving_schema

    work = Path(tempfile.mkdtemp(prefix="jobharbor-crash-"))
    cluster = ensure_cluster(
        work / "pg",
        databases=("crash_tpl", "crash_tpl_serving"),
        durable=False,
        password_auth=False,
    )
    sandbox = start_sandbox()
    try:
        migrate.upgrade(Database(cluster.url("crash_tpl")))
        serving_schema.upgrade(Database(cluster.url("crash_tpl_serving")))
        yield World(
            cluster.url("postgres"), ("crash_tpl", "crash_tpl_serving"), sandbox, work, work / "pg"
        )
    finally:
        sandbox.stop()
        stop_cluster(work / "pg")
        shutil.rmtree(work, ignore_errors=True)
