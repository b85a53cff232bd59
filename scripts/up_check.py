"""`make up-check`: `make up` proven in a real browser.

Starts Airflow the way `make up` does (scripts/airflow-up.sh), then, with headless
Chromium through Playwright and Airflow's REST API:
0. lists the listening sockets of every process `make up` started: all on loopback,
   nothing on the task-log ports 8793/8794;
1. logs in as the analyst through the login page (the REST calls are the operator's,
   each with a JWT from `POST /auth/token`); 2. sees every source DAG paused;
3. triggers one source DAG twice, quickly, and while the first run's discover holds
   the source's lock runs the same phase from the CLI twice (once refused at once,
   once with --wait); 4. waits for success: the two
   runs did not overlap, the refused CLI run said who holds the lock, no two runs of a
   phase overlapped, nothing duplicated or closed; then triggers the sync; 5. sees both
   runs in the UI's grid; 6. previews a re-parse backfill and sees its manifest in the
   task log; 7. to 13. (scripts/up_check_decisions.py): a forced poll, a re-parse
   approved and one rejected on the approval screen, an empty preview that asks nobody,
   `limit` over its cap refused in the trigger form, a failure alert that reaches an
   SMTP sink this check starts (given to `make up` as JOBHARBOR_ALERT_*), the Assets page.
Between 4. and the sync it triggers the source DAG once more, with nothing due (the
drill's runs just polled every board), and times it from the trigger (the run's
queued_at) to its end: a run's fixed cost, whatever it has to do.
Screenshots go to DATA_DIR/up-check/. Slow (minutes): not part of every test run. The
last line is JSON: `{"ok": true, "checks": N, "nothing_due_trigger_to_success_s": S,
"nothing_due_tasks_s": {task: seconds}, ...}` with one key per decision step
(up_check_decisions.KEYS), true only when that step was shown. A copy of those steps'
screenshots, compressed, goes to docs/screenshots/airflow/ (--docs).
With JOBHARBOR_AIRFLOW_EXECUTOR=celery (`make up-check EXECUTOR=celery`) the check is
scripts/up_check_celery.py instead: the crawl across Celery workers, one killed.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from up_check_decisions import ALERT_TO, publish  # noqa: E402

from pipeline.airflow.auth import ANALYST  # noqa: E402
from tests.airflow.sinks import Received, smtp_sink  # noqa: E402  (the tests' SMTP sink)

SOURCE = "lever"
TIMEOUT_S = 900
COMPONENTS = ("api-server", "scheduler", "dag-processor", "triggerer")
TASK_LOG_PORTS = (8793, 8794)
# The first run's listing answers this slowly, so its discover holds the lock long
# enough for the CLI runs to meet it (the fetcher's timeout is 20 s).
LISTING_DELAY_S = 15


class CheckFailed(RuntimeError):
    pass


def require(condition: object, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_airflow(port: int) -> None:
    env = {**os.environ, "AIRFLOW_PORT": str(port), "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}  # fmt: skip
    subprocess.run(["bash", str(REPO / "scripts" / "airflow-up.sh")], env=env, check=True, cwd=REPO)


class Api:
    """Airflow's REST API as `make up`'s operator (a JWT from `POST /auth/token`)."""

    def __init__(self, base: str) -> None:
        from pipeline.airflow.auth import passwords_file, token_from_file
        from pipeline.settings import load_settings

        with httpx.Client(base_url=base, timeout=60) as login:
            token = token_from_file(login, passwords_file(load_settings().data_dir))
        self.client = httpx.Client(
            base_url=f"{base}/api/v2", timeout=60, headers={"Authorization": f"Bearer {token}"}
        )
        self.unpaused: set[str] = set()

    def pause_again(self) -> None:
        """Leave every DAG paused, as `make up` made it, for the next check."""
        for dag_id in self.unpaused:
            self.client.patch(f"/dags/{dag_id}", json={"is_paused": True})

    def wait_for_dag(self, dag_id: str) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            response = self.client.get(f"/dags/{dag_id}")
            if response.status_code == 200:
                return response.json()
            time.sleep(3)
        raise TimeoutError(f"{dag_id} never appeared")

    def dags(self) -> list[dict[str, Any]]:
        return self.client.get("/dags", params={"limit": 100}).json()["dags"]

    def trigger(self, dag_id: str, conf: dict[str, Any] | None = None) -> str:
        self.client.patch(f"/dags/{dag_id}", json={"is_paused": False}).raise_for_status()
        self.unpaused.add(dag_id)
        response = self.client.post(
            f"/dags/{dag_id}/dagRuns", json={"logical_date": None, "conf": conf or {}}
        )
        response.raise_for_status()
        return response.json()["dag_run_id"]

    def run(self, dag_id: str, run_id: str) -> dict[str, Any]:
        response = self.client.get(f"/dags/{dag_id}/dagRuns/{run_id}")
        response.raise_for_status()
        return response.json()

    def wait_for_run(self, dag_id: str, run_id: str) -> str:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            state = self.client.get(f"/dags/{dag_id}/dagRuns/{run_id}").json()["state"]
            if state in ("success", "failed"):
                return state
            time.sleep(5)
        raise TimeoutError(f"{dag_id} {run_id} did not finish")

    def tasks(self, dag_id: str, run_id: str) -> list[dict[str, Any]]:
        response = self.client.get(f"/dags/{dag_id}/dagRuns/{run_id}/taskInstances")
        response.raise_for_status()
        return response.json()["task_instances"]

    def hitl_details(self, dag_id: str, run_id: str, *, pending: bool) -> list[dict[str, Any]]:
        """The run's human-in-the-loop requests (only those not answered yet: pending)."""
        params = {"response_received": "false"} if pending else {}
        response = self.client.get(f"/dags/{dag_id}/dagRuns/{run_id}/hitlDetails", params=params)
        response.raise_for_status()
        return response.json()["hitl_details"]

    def xcom(self, dag_id: str, run_id: str, task_id: str) -> Any:
        response = self.client.get(
            f"/dags/{dag_id}/dagRuns/{run_id}/taskInstances/{task_id}/xcomEntries/return_value",
            params={"deserialize": "true"},
        )
        return response.json().get("value") if response.status_code == 200 else None

    def refused_trigger(self, dag_id: str, conf: dict[str, Any]) -> str:
        """Why the API refuses this trigger (a run it creates fails the check)."""
        response = self.client.post(
            f"/dags/{dag_id}/dagRuns", json={"logical_date": None, "conf": conf}
        )
        require(response.status_code == 400, f"{dag_id} {conf}: {response.status_code}")
        return str(response.json().get("detail"))[:200]

    def assets(self) -> list[dict[str, Any]]:
        response = self.client.get("/assets", params={"limit": 100})
        response.raise_for_status()
        return response.json()["assets"]

    def dependencies(self) -> tuple[int, dict[str, Any]]:
        """The UI's DAG/asset graph (/ui/dependencies, what the Assets page draws)."""
        url = str(self.client.base_url).removesuffix("/").removesuffix("/api/v2")
        response = self.client.get(f"{url}/ui/dependencies")
        try:
            return response.status_code, response.json()
        except ValueError:
            return response.status_code, {"text": response.text[:300]}

    def run_count(self, dag_id: str) -> int:
        response = self.client.get(f"/dags/{dag_id}/dagRuns", params={"limit": 1})
        response.raise_for_status()
        return int(response.json()["total_entries"])

    def task_log(self, dag_id: str, run_id: str, task_id: str) -> str:
        response = self.client.get(
            f"/dags/{dag_id}/dagRuns/{run_id}/taskInstances/{task_id}/logs/1",
            headers={"Accept": "application/json"},
        )
        return json.dumps(response.json())


def make_up_pids(data_dir: Path) -> dict[str, int]:
    """The processes `make up` started: Airflow's components (scripts/airflow-up.sh's
    pid files), the sandbox and the embedded PostgreSQL (when they are the ones used)."""
    pids = {p.stem: int(p.read_text()) for p in (data_dir / "airflow" / "run").glob("*.pid")}
    sandbox = data_dir / "sandbox.json"
    if sandbox.exists():
        pids["sandbox"] = int(json.loads(sandbox.read_text())["pid"])
    postmaster = data_dir / "pg" / "data" / "postmaster.pid"
    if postmaster.exists():
        pids["postgresql"] = int(postmaster.read_text().split()[0])
    return pids


def check_listeners(data_dir: Path, api_port: int, components: tuple[str, ...] = COMPONENTS) -> str:
    """Every listening TCP socket of those processes and their children is on loopback,
    and no task-log server listens (docs/reliability.md §3): with EXECUTOR=celery the
    components include Redis and the Celery workers, whose log port is 8793 too."""
    from chaos.listeners import exposed, listeners

    pids = make_up_pids(data_dir)
    require(set(components) <= set(pids), f"a component's pid file is missing: {sorted(pids)}")
    found = listeners(pids.values())
    require(any(p == api_port for _, _, p in found), f"nothing listens on {api_port}: {found}")
    require(not exposed(found), f"listening beyond loopback: {exposed(found)}")
    task_logs = [s for s in found if s[2] in TASK_LOG_PORTS]
    require(not task_logs, f"task-log servers listen: {task_logs}")
    sockets = ", ".join(f"{address}:{port}" for _, address, port in found)
    return (
        f"{len(found)} listening sockets of {', '.join(sorted(pids))}: {sockets}; none on 8793/8794"
    )


OVERLAPS = """
SELECT a.phase, a.id AS first, b.id AS second FROM crawl.runs a
JOIN crawl.runs b ON b.phase = a.phase AND b.source_id = a.source_id AND b.id > a.id
WHERE a.source_id = %(source)s AND a.started_at >= %(since)s
  AND a.status = 'succeeded' AND b.status = 'succeeded'
  AND tstzrange(a.started_at, a.finished_at) && tstzrange(b.started_at, b.finished_at)
"""
# What must hold for the source once every run is over: each query counts what must be 0.
MUST_BE_NONE = {
    "runs still running": "SELECT count(*) AS n FROM crawl.runs"
    " WHERE source_id = %(source)s AND started_at >= %(since)s AND status = 'running'",
    "postings sharing a URL": "SELECT count(*) AS n FROM (SELECT url FROM core.postings"
    " WHERE source_id = %(source)s GROUP BY url HAVING count(*) > 1) d",
    "postings closed or missing": "SELECT count(*) AS n FROM core.postings"
    " WHERE source_id = %(source)s AND status IN ('missing', 'expired', 'not_found')",
    "board leases held": "SELECT count(*) AS n FROM crawl.boards"
    " WHERE source_id = %(source)s AND lease_expires_at > now()",
    "raw objects pending": "SELECT count(*) AS n FROM crawl.raw_objects"
    " WHERE source_id = %(source)s AND state = 'pending'",
}
BOARDS_DUE = (
    "UPDATE crawl.boards SET due_at = now() WHERE source_id = %(source)s AND enabled RETURNING id"
)
DISCOVER_RUNS = (
    "SELECT status, error FROM crawl.runs"
    " WHERE phase = 'discover' AND source_id = %(source)s AND started_at >= %(since)s"
)


class ConcurrentRuns:
    """The locks under real concurrency, on the real scheduler: two quick manual triggers of one source
    DAG, and two CLI runs of the same source's discover while the first run's discover
    holds the source's advisory lock (docs/operations.md#locks)."""

    def __init__(self, api: Api, data_dir: Path, api_port: int) -> None:
        from pipeline.airflow.env import airflow_environment
        from pipeline.app import resolve_databases
        from pipeline.db.connect import Database
        from pipeline.settings import load_settings

        self.api, self.data_dir, self.api_port = api, data_dir, api_port
        self.dag_id = f"jobharbor_{SOURCE}"
        self.env = {**os.environ, **airflow_environment()}  # what the tasks see
        self.db = Database(resolve_databases(load_settings()).authoritative)
        self.run_ids = ("", "")
        self.refusal = (
            f"skipped: another discover run of {SOURCE} holds jobharbor:discover:{SOURCE}"
        )

    def run(self) -> list[str]:
        since = self._sql("SELECT now() AS t")[0]["t"]
        # Due again, as after their interval (an earlier check polled them): the first
        # run's discover must read the slow listing to hold its lock for a while.
        self._sql(BOARDS_DUE, {"source": SOURCE})
        self._slow_listing()
        first, second = self.api.trigger(self.dag_id), self.api.trigger(self.dag_id)
        self.run_ids = (first, second)
        self._wait_for_running_discover(since)
        done = [f"mid-run: {check_listeners(self.data_dir, self.api_port)}"]
        waiting = subprocess.Popen(self._cli("--wait", "600"), **self._pipes())
        done.append(self._refused())
        state = self.api.run(self.dag_id, second)["state"]
        require(state == "queued", f"the second run is {state} while the first one runs")
        for run_id in (first, second):
            require(self.api.wait_for_run(self.dag_id, run_id) == "success", f"{run_id} failed")
        done.append(self._one_after_the_other(first, second))
        out, err = waiting.communicate(timeout=TIMEOUT_S)
        report = [line for line in out.splitlines() if line.startswith(f"discover {SOURCE}:")]
        require(
            waiting.returncode == 0 and report and ": succeeded" in report[-1],
            f"the CLI run with --wait: {out[-1500:]} {err[-1500:]}",
        )
        done.append(f"a CLI discover with --wait 600 waited for the lock, then: {report[-1]}")
        done.append(self._consistent(since))
        return done

    def _sql(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        with self.db.connect() as conn:
            return conn.execute(query, params or {}).fetchall()

    def _cli(self, *extra: str) -> list[str]:
        return [sys.executable, "-m", "pipeline", "discover", "--source", SOURCE, *extra]

    def _pipes(self) -> dict[str, Any]:
        return {
            "env": self.env,
            "cwd": REPO,
            "text": True,
            "stdout": subprocess.PIPE,
            "stderr": subprocess.PIPE,
        }

    def _slow_listing(self) -> None:
        """The next listing request of one board answers late (a sandbox fault, once)."""
        fault = {"delay_s": LISTING_DELAY_S, "times": 1, "on": "listing"}
        httpx.post(
            f"{self.env['JOBHARBOR_SANDBOX_URL']}/_sandbox/fault",
            params={"platform": SOURCE, "token": "harbor-labs"},
            json=fault,
        ).raise_for_status()

    def _wait_for_running_discover(self, since: object) -> None:
        params = {"source": SOURCE, "since": since}
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            states = {r["status"] for r in self._sql(DISCOVER_RUNS, params)}
            if "running" in states:
                return
            require(not states, f"the first run's discover ended before the CLI met it: {states}")
            require(time.monotonic() < deadline, "the first run's discover never started")
            time.sleep(0.3)

    def _refused(self) -> str:
        started = time.monotonic()
        result = subprocess.run(self._cli(), timeout=300, **self._pipes())
        require(
            result.returncode == 0 and self.refusal in result.stdout,
            f"the CLI discover was not refused: {result.stdout} {result.stderr[-1500:]}",
        )
        took = time.monotonic() - started
        return f"a CLI discover during the first run's discover was refused in {took:.1f}s: {self.refusal}"

    def _one_after_the_other(self, first: str, second: str) -> str:
        a, b = self.api.run(self.dag_id, first), self.api.run(self.dag_id, second)
        dates = [datetime.fromisoformat(r[k]) for r in (a, b) for k in ("start_date", "end_date")]
        require(
            dates[2] >= dates[1],
            f"the runs overlapped: {first} ended {a['end_date']}, {second} started {b['start_date']}",
        )
        return (
            f"{self.dag_id} {first} ({a['start_date']} - {a['end_date']}) then {second} "
            f"({b['start_date']} - {b['end_date']}): both success, no overlap"
        )

    def _consistent(self, since: object) -> str:
        params = {"source": SOURCE, "since": since}
        overlaps = self._sql(OVERLAPS, params)
        require(not overlaps, f"runs of one phase overlapped: {overlaps}")
        runs = self._sql(DISCOVER_RUNS, params)
        skipped = [r for r in runs if r["status"] == "skipped"]
        require(
            len(skipped) == 1 and self.refusal in (skipped[0]["error"] or ""),
            f"the refusal is not recorded once: {runs}",
        )
        for what, query in MUST_BE_NONE.items():
            n = self._sql(query, params)[0]["n"]
            require(n == 0, f"{SOURCE}: {n} {what}")
        count = "SELECT count(*) AS n FROM core.postings WHERE source_id = %(source)s"
        postings = self._sql(count, params)[0]["n"]
        require(postings > 0, f"no {SOURCE} posting stored")
        return (
            f"crawl.runs: no two runs of one phase overlapped, the refusal is recorded as "
            f"skipped; {postings} {SOURCE} postings, none duplicated or closed, no lease "
            f"held, no raw object pending"
        )


def seconds_between(start: str | None, end: str | None) -> float:
    if not start or not end:
        return float("nan")
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def nothing_due_run(api: Api, dag_id: str = f"jobharbor_{SOURCE}") -> dict[str, Any]:
    """Trigger a source DAG whose boards were all just polled (nothing is due) and time it
    from the trigger (the run's queued_at) to its end, with each task's own duration: the
    fixed cost every run pays, whatever it has to do."""
    run_id = api.trigger(dag_id)
    deadline = time.monotonic() + TIMEOUT_S
    while (state := api.run(dag_id, run_id)["state"]) not in ("success", "failed"):
        require(time.monotonic() < deadline, f"{dag_id} {run_id} did not finish")
        time.sleep(0.5)
    require(state == "success", f"the nothing-due run {run_id} failed")
    run = api.run(dag_id, run_id)
    tasks = {
        t["task_id"]: round(seconds_between(t["start_date"], t["end_date"]), 1)
        for t in api.tasks(dag_id, run_id)
        if t["start_date"]
    }
    return {
        "run_id": run_id,
        "trigger_to_success_s": round(seconds_between(run["queued_at"], run["end_date"]), 1),
        "tasks_s": tasks,
    }


def check(
    base: str, shots: Path, data_dir: Path, inbox: Received
) -> tuple[list[str], dict[str, Any]]:
    api = Api(base)
    try:
        figures: dict[str, Any] = {}
        return _drive(api, base, shots, data_dir, figures, inbox), figures
    finally:
        api.pause_again()


def _drive(
    api: Api, base: str, shots: Path, data_dir: Path, figures: dict[str, Any], inbox: Received
) -> list[str]:
    from playwright.sync_api import sync_playwright

    from pipeline.settings import load_settings

    api.wait_for_dag(f"jobharbor_{SOURCE}")
    api.wait_for_dag("jobharbor_backfill_reparse")
    done: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=load_settings().browser_executable)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        log_in(page, base, shots)  # 1.
        page.screenshot(path=shots / "1-dags.png")
        sources = [d for d in api.dags() if d["dag_id"].startswith("jobharbor_") and "ingest" in
                   [t["name"] for t in d["tags"]]]  # fmt: skip
        require(sources, "no source DAG listed")
        require(all(d["is_paused"] for d in sources), "a source DAG is not paused")
        done.append(f"logged in as {ANALYST}; {len(sources)} source DAGs, all paused")  # 2.

        drill = ConcurrentRuns(api, data_dir, int(base.rsplit(":", 1)[1]))  # 3. and 4.
        done.extend(drill.run())
        run_id, second = drill.run_ids
        # Before the sync is unpaused: its asset-triggered runs would take the whole pool.
        idle = nothing_due_run(api)
        figures["nothing_due_trigger_to_success_s"] = idle["trigger_to_success_s"]
        figures["nothing_due_tasks_s"] = idle["tasks_s"]
        done.append(
            f"a run with nothing due ({idle['run_id']}): {idle['trigger_to_success_s']} s from"
            f" trigger to success; tasks {idle['tasks_s']}"
        )
        sync_id = api.trigger("jobharbor_serving_sync")
        require(api.wait_for_run("jobharbor_serving_sync", sync_id) == "success", "sync failed")
        done.append(f"the sync {sync_id}: success")

        page.goto(f"{base}/dags/jobharbor_{SOURCE}/runs")  # 5.
        page.wait_for_load_state("networkidle")
        page.get_by_text(run_id).first.wait_for(timeout=60_000)
        page.get_by_text(second).first.wait_for(timeout=60_000)
        page.screenshot(path=shots / "2-runs.png", full_page=True)
        page.goto(f"{base}/dags/jobharbor_{SOURCE}/runs/{second}")
        page.wait_for_load_state("networkidle")
        page.get_by_text(second).first.wait_for(timeout=60_000)
        page.screenshot(path=shots / "2-grid.png", full_page=True)
        done.append("both runs are in the runs list and the grid")

        conf = {"source": SOURCE, "limit": 100}  # 6.
        backfill = api.trigger("jobharbor_backfill_reparse", conf)
        require(api.wait_for_run("jobharbor_backfill_reparse", backfill) == "success", "preview")
        log = api.task_log("jobharbor_backfill_reparse", backfill, "plan")
        require("fingerprint" in log, f"no manifest in the plan log: {log[-2000:]}")
        page.goto(f"{base}/dags/jobharbor_backfill_reparse/runs/{backfill}/tasks/plan")
        page.wait_for_load_state("networkidle")
        page.get_by_text("fingerprint").first.wait_for(timeout=60_000)
        page.screenshot(path=shots / "3-preview-log.png", full_page=True)
        done.append("the re-parse preview's manifest is in the plan task's log")

        from up_check_decisions import Decisions  # 7. to 13.: the decisions in the UI

        decided, shown = Decisions(api, page, base, shots, inbox).run()
        done.extend(decided)
        figures.update(shown)
        browser.close()
    return done


def log_in(page: Any, base: str, shots: Path) -> None:
    """The login page, as a person uses it: the analyst's name and password typed in,
    then the DAGs list. Every decision the browser makes is the analyst's."""
    from pipeline.airflow.auth import passwords_file, read_passwords
    from pipeline.settings import load_settings

    password = read_passwords(passwords_file(load_settings().data_dir))[ANALYST]
    page.goto(f"{base}/dags")  # not logged in: Airflow sends the browser to its login page
    page.wait_for_url("**/auth/login**", timeout=60_000)
    page.get_by_label("Username").fill(ANALYST)
    page.get_by_label("Password").fill(password)
    page.screenshot(path=shots / "0-login.png")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/dags**", timeout=60_000)
    page.wait_for_load_state("networkidle")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--keep", action="store_true", help="leave Airflow running")
    parser.add_argument(
        "--docs",
        type=Path,
        default=REPO / "docs" / "screenshots" / "airflow",
        help="where the compressed set of the decisions' screenshots goes",
    )
    args = parser.parse_args(argv)
    from pipeline.airflow.settings import AirflowSettings
    from pipeline.settings import load_settings

    if AirflowSettings().executor == "celery":  # `make up-check EXECUTOR=celery`
        from up_check_celery import main as across_workers

        return across_workers(keep=args.keep, port=args.port)

    data_dir = load_settings().data_dir
    shots = data_dir / "up-check"
    shots.mkdir(parents=True, exist_ok=True)
    port = args.port or free_port()
    # Failure alerts go to an SMTP sink on loopback for the run (the freshness step):
    # Airflow's components, and so the tasks, take JOBHARBOR_ALERT_* from this process.
    with smtp_sink() as (smtp_port, inbox):
        os.environ["JOBHARBOR_ALERT_SMTP_URL"] = f"smtp://127.0.0.1:{smtp_port}"
        os.environ["JOBHARBOR_ALERT_EMAIL_TO"] = ALERT_TO
        start_airflow(port)
        try:
            print(f"ok: {check_listeners(data_dir, port)}")  # 0.
            done, figures = check(f"http://127.0.0.1:{port}", shots, data_dir, inbox)
            for line in done:
                print(f"ok: {line}")
            print(f"screenshots: {shots}; for docs/: {publish(shots, args.docs)}")
            print(json.dumps({"ok": True, "checks": len(done) + 1, **figures}))
        finally:
            if not args.keep:
                subprocess.run(["bash", str(REPO / "scripts" / "airflow-down.sh")], cwd=REPO)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
