"""`make up-check`: `make up` proven in a real browser.

Starts Airflow standalone the way `make up` does (scripts/airflow-up.sh), then, with
headless Chromium through Playwright and Airflow's REST API:
1. logs in; 2. sees every source DAG paused; 3. triggers one source DAG and the sync
through the REST API; 4. waits for success; 5. sees the run in the UI's grid;
6. previews a re-parse backfill and sees its manifest in the task log.
Screenshots go to DATA_DIR/up-check/. Slow (minutes): not part of every test run.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SOURCE = "lever"
TIMEOUT_S = 900


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
    def __init__(self, base: str) -> None:
        self.client = httpx.Client(base_url=f"{base}/api/v2", timeout=60)
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

    def wait_for_run(self, dag_id: str, run_id: str) -> str:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            state = self.client.get(f"/dags/{dag_id}/dagRuns/{run_id}").json()["state"]
            if state in ("success", "failed"):
                return state
            time.sleep(5)
        raise TimeoutError(f"{dag_id} {run_id} did not finish")

    def task_log(self, dag_id: str, run_id: str, task_id: str) -> str:
        response = self.client.get(
            f"/dags/{dag_id}/dagRuns/{run_id}/taskInstances/{task_id}/logs/1",
            headers={"Accept": "application/json"},
        )
        return json.dumps(response.json())


def check(base: str, shots: Path) -> list[str]:
    api = Api(base)
    try:
        return _drive(api, base, shots)
    finally:
        api.pause_again()


def _drive(api: Api, base: str, shots: Path) -> list[str]:
    from playwright.sync_api import sync_playwright

    from pipeline.settings import load_settings

    api.wait_for_dag(f"jobharbor_{SOURCE}")
    api.wait_for_dag("jobharbor_backfill_reparse")
    done: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=load_settings().browser_executable)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{base}/auth/token/login?next={base}/dags")  # 1. log in
        page.wait_for_load_state("networkidle")
        page.screenshot(path=shots / "1-dags.png")
        sources = [d for d in api.dags() if d["dag_id"].startswith("jobharbor_") and "ingest" in
                   [t["name"] for t in d["tags"]]]  # fmt: skip
        require(sources, "no source DAG listed")
        require(all(d["is_paused"] for d in sources), "a source DAG is not paused")
        done.append(f"logged in; {len(sources)} source DAGs, all paused")  # 2.

        run_id = api.trigger(f"jobharbor_{SOURCE}")  # 3.
        require(api.wait_for_run(f"jobharbor_{SOURCE}", run_id) == "success", "source run failed")
        sync_id = api.trigger("jobharbor_serving_sync")
        require(api.wait_for_run("jobharbor_serving_sync", sync_id) == "success", "sync failed")
        done.append(f"jobharbor_{SOURCE} {run_id} and the sync {sync_id}: success")

        page.goto(f"{base}/dags/jobharbor_{SOURCE}/runs/{run_id}")  # 5.
        page.wait_for_load_state("networkidle")
        page.get_by_text(run_id).first.wait_for(timeout=60_000)
        page.screenshot(path=shots / "2-grid.png", full_page=True)
        done.append("the run is in the grid")

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
        browser.close()
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--keep", action="store_true", help="leave Airflow running")
    args = parser.parse_args(argv)
    from pipeline.settings import load_settings

    shots = load_settings().data_dir / "up-check"
    shots.mkdir(parents=True, exist_ok=True)
    port = args.port or free_port()
    start_airflow(port)
    try:
        for line in check(f"http://127.0.0.1:{port}", shots):
            print(f"ok: {line}")
        print(f"screenshots: {shots}")
    finally:
        if not args.keep:
            subprocess.run(["bash", str(REPO / "scripts" / "airflow-down.sh")], cwd=REPO)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
