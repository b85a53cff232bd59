"""`make up EXECUTOR=celery`: Redis as the broker and Celery workers by lane.

Lanes, as Airflow queues (a source DAG's tasks all go to its source's lane,
pipeline.config.source_queue):
- `workday`: Workday sources (their boards pace per data centre, pipeline.crawl);
- `browser`: sources fetched with `transport: browser` (Chromium, slow and heavy);
- `ats`: every other source (ATS JSON APIs and HTML sites over plain HTTP);
- `default`: Airflow's default queue: the sync, backfills, operations DAGs.

Each lane is served by its own pair of workers, and every worker consumes `default`
(`layout`): every lane has two workers, so one worker killed leaves every lane served,
and for any two lanes one worker serves the second without the first, so a slow lane
filling its workers leaves every other lane a worker it does not share.
`lane_layout_problems` states both rules; tests check layouts against them.

A Workday source whose boards are all in one data centre has that data centre's lane
(`workday-wd5`, pipeline.config.workday_queue). With three workers only three lanes can
keep both rules (each lane needs two of the three workers, and no lane's workers may
include another's: only the three pairs qualify), so each lane beyond three takes
a new pair, and a fourth worker comes with the fourth lane (up to six lanes), a fifth
with the seventh (up to ten). The sandbox's and the shipped sources.yaml's Workday
sources each span data centres, so they stay in `workday` and three workers run
(WORKERS).
"""

from __future__ import annotations

import itertools
import secrets
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.airflow.settings import AirflowSettings
from pipeline.config import (
    ATS_QUEUE,
    BROWSER_QUEUE,
    LANE_QUEUES,
    WORKDAY_QUEUE,
    configured_sources_file,
    lanes_in_use,
    load_sources,
)

ATS, WORKDAY, BROWSER = ATS_QUEUE, WORKDAY_QUEUE, BROWSER_QUEUE
DEFAULT = "default"  # Airflow's default queue
LANES = LANE_QUEUES
EXECUTORS = {"local": "LocalExecutor", "celery": "CeleryExecutor"}


@dataclass(frozen=True)
class Worker:
    name: str
    queues: tuple[str, ...]


def layout(lanes: Sequence[str] = LANES) -> tuple[Worker, ...]:
    """The fewest workers (at least three) that give each lane a pair of its own; the
    three base lanes get the pairs of workers 1-2, 1-3 and 2-3."""
    count = 3
    while count * (count - 1) // 2 < len(lanes):
        count += 1
    pairs = list(itertools.combinations(range(count), 2))
    serves: list[list[str]] = [[] for _ in range(count)]
    for lane, pair in zip(lanes, pairs, strict=False):
        for n in pair:
            serves[n].append(lane)
    return tuple(Worker(f"worker-{n + 1}", (*serves[n], DEFAULT)) for n in range(count))


# The layout of the three lanes: worker-1 ats+workday, worker-2 ats+browser,
# worker-3 workday+browser.
WORKERS = layout(LANES)


def configured_workers() -> tuple[Worker, ...]:
    """The layout for the lanes the configured sources file uses."""
    return layout(lanes_in_use(s for _, s in load_sources(configured_sources_file()).enabled()))


def lane_layout_problems(workers: Sequence[Worker], lanes: Sequence[str] = LANES) -> list[str]:
    """Why a layout fails the two rules (empty: it keeps them): every lane (and
    `default`) on at least two workers; for lanes A != B, a worker serving B but not A."""
    problems = []
    for lane in (*lanes, DEFAULT):
        serving = [w.name for w in workers if lane in w.queues]
        if len(serving) < 2:
            problems.append(f"{lane} is served by {serving or 'no worker'}: one kill stops it")
    for slow in lanes:
        for other in lanes:
            if other != slow and not any(
                other in w.queues and slow not in w.queues for w in workers
            ):
                problems.append(f"a slow {slow} lane can fill every worker {other} has")
    return problems


def worker_command(worker: Worker, concurrency: int) -> list[str]:
    """`airflow ...` arguments of one worker. No task-log server (`--skip-serve-logs`):
    it would bind every interface (as the scheduler's would), and every process here
    writes its task logs under the one AIRFLOW_HOME the API server reads them from."""
    return [
        "celery",
        "worker",
        "--celery-hostname",
        f"{worker.name}@%h",
        "--queues",
        ",".join(worker.queues),
        "--concurrency",
        str(concurrency),
        "--skip-serve-logs",
    ]


# ------------------------------------------------------------------ Redis


def redis_password(data_dir: Path, given: str | None) -> str:
    """The broker's password: the environment's, else one generated once into the
    private data dir (mode 0600) and reused."""
    if given:
        return given
    path = data_dir / "redis" / "password"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    password = secrets.token_urlsafe(32)
    path.touch(mode=0o600)
    path.write_text(password + "\n")
    return password


def redis_config(port: int, password: str, directory: Path) -> str:
    """redis.conf: loopback only, password required, nothing persisted (the broker's
    queue is rebuilt by the scheduler: a lost queued task is queued again)."""
    return "\n".join(
        [
            "bind 127.0.0.1",
            "protected-mode yes",
            f"port {port}",
            f"requirepass {password}",
            f"dir {directory}",
            'save ""',
            "appendonly no",
            "daemonize no",
            f"logfile {directory / 'redis.log'}",
            "",
        ]
    )


def broker_url(port: int, password: str) -> str:
    return f"redis://:{password}@127.0.0.1:{port}/0"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redis_answers(port: int, password: str, timeout_s: float = 1.0) -> bool:
    """PING with AUTH over the wire: True when a Redis with this password answers."""
    auth = f"*2\r\n$4\r\nAUTH\r\n${len(password)}\r\n{password}\r\n*1\r\n$4\r\nPING\r\n"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as sock:
            sock.sendall(auth.encode())
            answer = b""
            while b"PONG" not in answer and len(answer) < 512:
                chunk = sock.recv(512)
                if not chunk:
                    break
                answer += chunk
            return b"+OK" in answer and b"+PONG" in answer
    except OSError:
        return False


def ensure_redis(data_dir: Path, run_dir: Path, port: int | None, password: str) -> int:
    """The port of this data dir's Redis, starting it (pid in run_dir/redis.pid, so
    `make down` stops it with Airflow) unless it already answers."""
    directory = data_dir / "redis"
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    port_file = directory / "port"
    if port is None and port_file.exists():
        port = int(port_file.read_text())
    if port is not None and redis_answers(port, password):
        return port
    port = port or free_port()
    conf = directory / "redis.conf"
    conf.touch(mode=0o600)
    conf.write_text(redis_config(port, password, directory))
    # The password is in the 0600 file, never on a command line (`ps` would show it).
    process = subprocess.Popen(
        ["redis-server", str(conf)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "redis.pid").write_text(f"{process.pid}\n")
    port_file.write_text(f"{port}\n")
    deadline = time.monotonic() + 20
    while not redis_answers(port, password):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"Redis did not start on 127.0.0.1:{port}; see {directory}")
        time.sleep(0.1)
    return port


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m pipeline.airflow.workers commands`: one line per worker, its name then
    its `airflow` arguments, for scripts/airflow-up.sh."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args != ["commands"]:
        print("usage: python -m pipeline.airflow.workers commands", file=sys.stderr)
        return 2
    concurrency = AirflowSettings().celery_concurrency
    for worker in configured_workers():
        print(worker.name, shlex.join(worker_command(worker, concurrency)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
