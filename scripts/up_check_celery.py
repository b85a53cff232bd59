"""`make up-check EXECUTOR=celery`: the crawl spread over Celery workers, one killed.

scripts/up_check.py calls this when JOBHARBOR_AIRFLOW_EXECUTOR=celery. It starts the
stack as `make up EXECUTOR=celery` does (Redis, three workers by lane pair), with every
sandbox source on one tight budget (CHECK_BUDGET, so the budget binds), claims that
last LEASE_S and task heartbeats that time out after HEARTBEAT_TIMEOUT_S. Then:
0. every listener of the stack (workers and Redis included) is on loopback, and no
   task-log server listens;
1. every sandbox board moves one revision on (a posting closes, one changes, one
   opens), and the sandbox answers some boards slowly and some with 429 + Retry-After;
2. every source DAG is triggered at once (forced: every board polled now);
3. when the slow board of KILL_SOURCE is leased, the worker running that discover is
   killed with SIGKILL, with everything it started;
4. once every run is over, from the sandbox's request log and the database
   (chaos/across_workers.py): no host got more than its budget, nothing arrived inside
   a cooldown, nothing was claimed by two runs at once, the killed worker's boards were
   released by their leases running out and polled again by another worker, its crawl
   runs ended `failed` (abandoned) rather than left `running`, every run succeeded, no
   listed posting is missing and none is duplicated; Redis's password is in no log.
It ends with one JSON line (workers, dag_runs, requests, budget_exceeded,
cooldown_violations, double_claims, worker_killed_recovered, killed_runs_left_running,
postings_lost) and fails unless workers >= 2, the three counts are 0,
worker_killed_recovered is true and killed_runs_left_running and postings_lost are 0.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import psutil
import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from up_check import (  # noqa: E402  (this directory, beside REPO on sys.path)
    COMPONENTS,
    Api,
    CheckFailed,
    check_listeners,
    free_port,
    require,
    start_airflow,
)

from chaos.across_workers import (  # noqa: E402
    Arrival,
    Claim,
    RunRow,
    double_claims,
    inside_cooldowns,
    lost_postings,
    over_budget,
    stranded_runs,
)

# One budget for every sandbox source: they share one host (the sandbox), so the host's
# bucket is this one, and it binds (a forced pass makes hundreds of requests).
CHECK_BUDGET = {"rate_per_s": 10.0, "burst": 5}
LEASE_S = 40
HEARTBEAT_TIMEOUT_S = 40
TIMEOUT_S = 1500
# Source -> the listing delay of its first board; KILL_SOURCE's is the one the kill
# waits for, long enough to find its lease held (below the fetcher's 20 s timeout).
SLOW = {"greenhouse": 15.0, "ashby": 6.0, "workday": 6.0}
KILL_SOURCE = "greenhouse"
# Source -> the Retry-After (seconds) its first board answers once with a 429.
LIMITED = {"lever": "3", "recruitee": "2"}


def check_sources(data_dir: Path) -> Path:
    """sandbox/sources.yaml with every source on CHECK_BUDGET."""
    config = yaml.safe_load((REPO / "sandbox" / "sources.yaml").read_text())
    for source in config["sources"].values():
        source["pacing"] = dict(CHECK_BUDGET)
    path = data_dir / "up-check-celery" / "sources.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    return path


def check_environment(sources: Path) -> dict[str, str]:
    return {
        "JOBHARBOR_AIRFLOW_EXECUTOR": "celery",
        "JOBHARBOR_AIRFLOW_SOURCES": str(sources),
        "JOBHARBOR_LEASE_S": str(LEASE_S),
        "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT": str(HEARTBEAT_TIMEOUT_S),
        "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT_DETECTION_INTERVAL": "5",
    }


@dataclass(frozen=True)
class Board:
    id: int
    source: str
    platform: str  # the sandbox's platform and token (its routes)
    token: str


@dataclass
class Kill:
    worker: str
    at: datetime
    owner: str  # the lease owner whose boards the kill stranded
    boards: tuple[int, ...]
    pids: tuple[int, ...]


@dataclass
class Observed:
    runs: dict[int, str] = field(default_factory=dict)  # crawl run id -> worker
    kill: Kill | None = None


class Drill:
    def __init__(self, api: Api, data_dir: Path, sources: Path) -> None:
        from pipeline.airflow.env import airflow_environment
        from pipeline.app import App
        from pipeline.settings import load_settings

        env = airflow_environment()
        self.api, self.data_dir = api, data_dir
        self.run_dir = Path(env["AIRFLOW_HOME"]) / "run"
        self.sandbox = httpx.Client(base_url=env["JOBHARBOR_SANDBOX_URL"], timeout=60)
        os.environ["JOBHARBOR_SANDBOX_URL"] = env["JOBHARBOR_SANDBOX_URL"]
        self.app = App.create(settings=load_settings(sources_file=sources))
        self.observed = Observed()
        self.revisions: dict[int, int] = {}  # board id -> the sandbox revision it lists

    # ------------------------------------------------------------ helpers

    def sql(self, query: str, params: Any = None) -> list[dict[str, Any]]:
        with self.app.db.connect() as conn:
            return conn.execute(query, params or {}).fetchall()

    def workers(self) -> dict[int, str]:
        return {int(p.read_text()): p.stem for p in self.run_dir.glob("worker-*.pid") if p.exists()}

    def worker_of(self, pid: int) -> str | None:
        """The Celery worker a task process runs under (its ancestors' pid files)."""
        workers = self.workers()
        try:
            process = psutil.Process(pid)
            chain = [process, *process.parents()]
        except psutil.NoSuchProcess:
            return None
        return next((workers[p.pid] for p in chain if p.pid in workers), None)

    def boards(self) -> list[Board]:
        from chaos.lifecycle import sandbox_key
        from pipeline.crawl.catalog import sync_catalog

        sync_catalog(self.app)  # what every discover task does first
        rows = self.sql(
            "SELECT id, source_id, url FROM crawl.boards WHERE enabled AND state <> 'retired'"
            " ORDER BY id"
        )
        return [Board(r["id"], r["source_id"], *sandbox_key(r["url"])) for r in rows]

    def fault(self, board: Board, spec: dict[str, Any]) -> None:
        self.sandbox.post(
            "/_sandbox/fault",
            params={"platform": board.platform, "token": board.token},
            json=spec,
        ).raise_for_status()

    def _advance(self, boards: list[Board]) -> dict[int, int]:
        """No faults left from before, and every board one revision past its last (one
        posting closes, one changes, one opens): each check has new work to fetch. Boards
        of two sources can be one sandbox board (Workable's widget and its v3 API): each
        sandbox board is advanced once, and all its boards list that revision."""
        before = self.sandbox.get("/_sandbox/state").json()["revisions"]
        self.sandbox.post("/_sandbox/reset").raise_for_status()
        reached: dict[tuple[str, str], int] = {}
        for key in dict.fromkeys((b.platform, b.token) for b in boards):
            platform, token = key
            steps = int(before.get(f"{platform}/{token}", 0)) + 1
            answer = self.sandbox.post(
                "/_sandbox/advance",
                params={"platform": platform, "token": token, "steps": steps},
            )
            reached[key] = int(answer.raise_for_status().json()["revision"])
        return {b.id: reached[(b.platform, b.token)] for b in boards}

    # ------------------------------------------------------------ the run

    def run(self) -> tuple[dict[str, Any], list[str]]:
        boards = self.boards()
        first = {b.source: b for b in reversed(boards)}
        self.revisions = self._advance(boards)
        for source, delay in SLOW.items():
            self.fault(first[source], {"delay_s": delay, "times": 1, "on": "listing"})
        for source, wait in LIMITED.items():
            self.fault(first[source], {"status": 429, "retry_after": wait, "times": 1})
        since = self.sql("SELECT now() AS t")[0]["t"]
        log_since = float(self.sandbox.get("/_sandbox/log", params={"since": 1e12}).json()["now"])
        sources = [d["dag_id"] for d in self.api.dags() if "ingest" in [t["name"] for t in d["tags"]]]  # fmt: skip
        started = time.monotonic()
        runs = {dag_id: self.api.trigger(dag_id, {"force": True}) for dag_id in sources}
        done = [f"triggered {len(runs)} source DAGs at once (forced)"]
        done.append(self._watch(runs, first[KILL_SOURCE], started, since))
        states = {d: self.api.run(d, r)["state"] for d, r in runs.items()}
        took = time.monotonic() - started
        done.append(f"every run over after {took:.0f}s: {sorted(set(states.values()))}")
        report, said = self._judge(boards, states, since, log_since)
        return report, done + said

    def _watch(self, runs: dict[str, str], target: Board, started: float, since: datetime) -> str:
        """Until every DAG run is over: the kill, while a thread notes which worker runs
        each crawl run."""
        pending, checked, said = dict(runs), 0.0, "no worker killed"
        stop = threading.Event()
        sampler = threading.Thread(target=self._sample, args=(since, stop), daemon=True)
        sampler.start()
        try:
            while pending:
                took = time.monotonic() - started
                require(took < TIMEOUT_S, f"runs not over: {sorted(pending)}")
                if self.observed.kill is None:
                    said = self._kill_when_leased(target) or said
                if time.monotonic() - checked > 5:
                    checked = time.monotonic()
                    for dag_id, run_id in list(pending.items()):
                        if self.api.run(dag_id, run_id)["state"] in ("success", "failed"):
                            del pending[dag_id]
                time.sleep(0.25)
        finally:
            stop.set()
            sampler.join(timeout=10)
        return said

    def _sample(self, since: datetime, stop: threading.Event) -> None:
        """Every 0.1 s: the worker of each new crawl run, from its process's ancestors
        while it lives (a phase run may last a second; its task process a little more)."""
        with self.app.db.connect(autocommit=True) as conn:
            while not stop.is_set():
                rows = conn.execute(
                    "SELECT id, worker FROM crawl.runs WHERE started_at >= %s"
                    " AND id <> ALL(%s::bigint[])",
                    (since, list(self.observed.runs)),
                ).fetchall()
                for row in rows:
                    worker = self.worker_of(int(row["worker"].rsplit(":", 1)[1]))
                    if worker:
                        self.observed.runs[row["id"]] = worker
                stop.wait(0.1)

    def _kill_when_leased(self, target: Board) -> str | None:
        rows = self.sql(
            "SELECT lease_owner FROM crawl.boards WHERE id = %s AND lease_expires_at > now()",
            (target.id,),
        )
        if not rows or not rows[0]["lease_owner"]:
            return None
        owner = rows[0]["lease_owner"]
        pid = int(owner.rsplit(":", 2)[1])
        worker = self.worker_of(pid)
        require(worker, f"the lease owner {owner} runs under no Celery worker")
        assert worker is not None
        mid_run = check_listeners(self.data_dir, self.api_port, celery_components())
        worker_pid = next(p for p, name in self.workers().items() if name == worker)
        family = [psutil.Process(worker_pid), *psutil.Process(worker_pid).children(recursive=True)]
        for process in family:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGKILL)
        at = self.sql("SELECT now() AS t")[0]["t"]
        leased = self.sql("SELECT id FROM crawl.boards WHERE lease_owner = %s", (owner,))
        self.observed.kill = Kill(
            worker, at, owner, tuple(r["id"] for r in leased), tuple(p.pid for p in family)
        )
        return (
            f"mid-run: {mid_run}; then killed {worker} ({len(family)} processes, SIGKILL) while"
            f" it held the lease on {len(leased)} board(s) of {target.source}"
        )

    # ------------------------------------------------------------ judgments

    def _judge(
        self, boards: list[Board], states: dict[str, str], since: datetime, log_since: float
    ) -> tuple[dict[str, Any], list[str]]:
        said: list[str] = []
        log = [
            Arrival(e["at"], e["path"], e["status"], e.get("cooldown_until"))
            for e in self.sandbox.get("/_sandbox/log", params={"since": log_since}).json()[
                "requests"
            ]
            if not e["path"].startswith("/_sandbox/")
        ]
        over = over_budget([a.at for a in log], **CHECK_BUDGET)
        inside = inside_cooldowns(log)
        limited = [a for a in log if a.cooldown_until is not None]
        said.append(
            f"{len(log)} requests reached the sandbox, {len(over)} beyond {CHECK_BUDGET};"
            f" {len(limited)} answered 429 + Retry-After, {len(inside)} arrived inside a wait"
        )
        doubles = double_claims(self._claims(since))
        said.append(f"claims (board scans, posting fetches, phase runs): {len(doubles)} doubled")
        recovered, why = self._recovered(states, since)
        said.append(why)
        stranded, why = self._stranded(since)
        said.append(why)
        lost, read = self._lost(boards, since)
        said.append(f"{read}: {len(lost)} of those jobs not stored as postings")
        duplicated = self.sql(
            "SELECT count(*) AS n FROM (SELECT source_id, url FROM core.postings"
            " GROUP BY source_id, url HAVING count(*) > 1) d"
        )[0]["n"]
        require(duplicated == 0, f"{duplicated} URLs stored as more than one posting")
        said.append(self._no_password_logged())
        report = {
            "workers": len(set(self.observed.runs.values())),
            "dag_runs": len(states),
            "requests": len(log),
            "budget_exceeded": len(over),
            "cooldown_violations": len(inside),
            "double_claims": len(doubles),
            "worker_killed_recovered": recovered,
            "killed_runs_left_running": len(stranded),
            "postings_lost": len(lost),
        }
        return report, said

    def _claims(self, since: datetime) -> list[Claim]:
        kill = self.observed.kill
        killed_end = kill.at if kill else None
        scans = self.sql(
            "SELECT board_id, run_id, started_at, finished_at FROM crawl.scans"
            " WHERE started_at >= %s AND finished_at IS NOT NULL",
            (since,),
        )
        fetches = self.sql(
            "SELECT posting_id, run_id, min(attempted_at) AS first, max(attempted_at) AS last"
            " FROM crawl.fetch_attempts WHERE attempted_at >= %s AND posting_id IS NOT NULL"
            " GROUP BY posting_id, run_id",
            (since,),
        )
        # Runs that did work (not refused by a lock); a killed run ended with its worker.
        runs = self.sql(
            "SELECT id, phase, source_id, status, started_at, finished_at FROM crawl.runs"
            " WHERE started_at >= %s AND status <> 'skipped'",
            (since,),
        )
        claims = [
            Claim(f"board {r['board_id']}", f"run {r['run_id']}", r["started_at"], r["finished_at"])
            for r in scans
        ]
        claims += [
            Claim(f"posting {r['posting_id']}", f"run {r['run_id']}", r["first"], r["last"])
            for r in fetches
        ]
        for r in runs:
            end = r["finished_at"] or killed_end
            if end is not None:
                claims.append(
                    Claim(f"{r['phase']} {r['source_id']}", f"run {r['id']}", r["started_at"], end)
                )
        return claims

    def _recovered(self, states: dict[str, str], since: datetime) -> tuple[bool, str]:
        """The killed worker's boards: lease run out (none held now), each polled again
        after the kill by a run of another worker, and every DAG run succeeded."""
        kill = self.observed.kill
        if kill is None:
            return False, "no worker was killed: the slow board's lease was never seen"
        held = self.sql(
            "SELECT count(*) AS n FROM crawl.boards WHERE lease_expires_at > now()"
            " OR lease_owner = %s",
            (kill.owner,),
        )[0]["n"]
        again = self.sql(
            "SELECT s.board_id, s.run_id, r.worker FROM crawl.scans s"
            " JOIN crawl.runs r ON r.id = s.run_id"
            " WHERE s.board_id = ANY(%s) AND s.started_at > %s AND s.complete",
            (list(kill.boards), kill.at),
        )
        by = {r["board_id"]: self._worker_after_kill(r["run_id"], r["worker"]) for r in again}
        polled = {b for b, worker in by.items() if worker != kill.worker}
        failed = sorted(d for d, s in states.items() if s != "success")
        stranded = self.sql(
            "SELECT count(*) AS n FROM crawl.runs WHERE started_at >= %s AND status = 'running'",
            (since,),
        )[0]["n"]
        ok = bool(kill.boards) and held == 0 and polled == set(kill.boards) and not failed
        return ok, (
            f"killed {kill.worker} held {len(kill.boards)} board(s); after the kill"
            f" {len(polled)} of them were read completely by {sorted(set(by.values()))};"
            f" leases held now: {held}; DAG runs not successful: {failed or 'none'};"
            f" crawl runs left 'running' by the kill: {stranded}"
        )

    def _stranded(self, since: datetime) -> tuple[list[RunRow], str]:
        """The killed worker's crawl runs: each must end not `running` (the next phase
        run marks a run whose process died `failed`, pipeline.crawl.runs)."""
        kill = self.observed.kill
        rows = [
            RunRow(r["id"], r["worker"], r["status"], r["error"])
            for r in self.sql(
                "SELECT id, worker, status, error FROM crawl.runs WHERE started_at >= %s",
                (since,),
            )
        ]
        pids = kill.pids if kill else ()
        killed = [r for r in rows if r.pid in pids]
        stranded = stranded_runs(rows, pids)
        abandoned = [r.id for r in killed if (r.error or "").startswith("abandoned:")]
        return stranded, (
            f"the killed worker's crawl runs: {len(killed)}, marked failed as abandoned:"
            f" {abandoned or 'none'}, still 'running': {[r.id for r in stranded] or 'none'}"
        )

    def _worker_after_kill(self, run_id: int, worker: str) -> str:
        """The worker of a run (as sampled), else, for a process the kill did not take
        (every process of the killed worker is dead), another worker's."""
        kill = self.observed.kill
        assert kill is not None
        if run_id in self.observed.runs:
            return self.observed.runs[run_id]
        pid = int(worker.rsplit(":", 1)[1])
        return kill.worker if pid in kill.pids else f"a surviving worker (pid {pid})"

    def _lost(self, boards: list[Board], since: datetime) -> tuple[list[tuple[int, int]], str]:
        """Jobs the world lists on the boards read completely in this check with no
        posting stored. A board not read completely (a 429 of its own, or deferred while
        the host cooled down: a forced run defers, it does not wait) is due again later
        and judged only as a killed worker's board (see _recovered)."""
        from chaos.lifecycle import job_keys
        from sandbox.world import build_board

        seed = int(self.sandbox.get("/_sandbox/state").json()["seed"])
        scans = self.sql(
            "SELECT board_id, bool_or(complete) AS complete FROM crawl.scans"
            " WHERE started_at >= %s GROUP BY board_id",
            (since,),
        )
        read = {r["board_id"] for r in scans if r["complete"]}
        listed = {
            b.id: {
                job.job_id: job_keys(job)
                for job in build_board(seed, b.platform, b.token, self.revisions[b.id]).jobs
            }
            for b in boards
            if b.id in read
        }
        stored = {
            (r["board_id"], r["external_id"])
            for r in self.sql("SELECT board_id, external_id FROM core.postings")
        }
        jobs = sum(len(j) for j in listed.values())
        return lost_postings(listed, stored), (
            f"{len(read)} of {len(boards)} boards read completely, listing {jobs} jobs"
        )

    def _no_password_logged(self) -> str:
        password = (self.data_dir / "redis" / "password").read_text().strip()
        home = self.run_dir.parent
        logs = [*home.glob("*.log"), *home.glob("logs/**/*.log"), self.data_dir / "redis" / "redis.log"]  # fmt: skip
        leaked = [str(p) for p in logs if p.is_file() and password in p.read_text(errors="replace")]
        require(not leaked, f"Redis's password is in {leaked}")
        return f"Redis's password is in none of {len(logs)} log files"

    api_port = 0


def celery_components() -> tuple[str, ...]:
    from pipeline.airflow.workers import configured_workers

    return (*COMPONENTS, "redis", *(w.name for w in configured_workers()))


PASS = {
    "budget_exceeded": 0,
    "cooldown_violations": 0,
    "double_claims": 0,
    "worker_killed_recovered": True,
    "killed_runs_left_running": 0,
    "postings_lost": 0,
}


def passed(report: dict[str, Any]) -> bool:
    return report["workers"] >= 2 and all(report[k] == v for k, v in PASS.items())


def main(keep: bool = False, port: int = 0) -> int:
    from pipeline.settings import load_settings

    data_dir = load_settings().data_dir
    sources = check_sources(data_dir)
    os.environ.update(check_environment(sources))
    port = port or free_port()
    started = time.monotonic()
    start_airflow(port)
    try:
        print(f"ok: {check_listeners(data_dir, port, celery_components())}")
        api = Api(f"http://127.0.0.1:{port}")
        try:
            api.wait_for_dag(f"jobharbor_{KILL_SOURCE}")
            drill = Drill(api, data_dir, sources)
            drill.api_port = port
            report, said = drill.run()
        finally:
            api.pause_again()
        for line in said:
            print(f"ok: {line}")
        print(f"took {time.monotonic() - started:.0f}s")
        print(json.dumps(report))
        if not passed(report):
            raise CheckFailed(f"across workers: {report}")
    finally:
        if not keep:
            subprocess.run(["bash", str(REPO / "scripts" / "airflow-down.sh")], cwd=REPO)
    return 0
