"""`make up EXECUTOR=celery` (pipeline.airflow.workers): lanes as queues, the workers'
layout and commands, Redis's settings and password. The running stack is proven by
`make up-check EXECUTOR=celery` (scripts/up_check_celery.py)."""

from __future__ import annotations

import json
import shlex
import stat
import sys
from pathlib import Path

import pytest

from pipeline.airflow.settings import AirflowSettings
from pipeline.airflow.workers import (
    ATS,
    BROWSER,
    DEFAULT,
    WORKDAY,
    WORKERS,
    Worker,
    broker_url,
    lane_layout_problems,
    layout,
    main,
    redis_config,
    redis_password,
    worker_command,
)
from pipeline.config import lanes_in_use, load_sources, source_lane, source_queue, workday_queue
from pipeline.settings import REPO_ROOT
from tests.airflow.harness import airflow_env, run


def test_each_source_goes_to_its_lane() -> None:
    assert source_queue("workday") == WORKDAY
    assert source_queue("greenhouse") == ATS
    assert source_queue("html_site") == ATS
    # A browser source is in the browser lane whatever its platform.
    assert source_queue("html_site", "browser") == BROWSER
    assert source_queue("workday", "browser") == BROWSER


def test_a_workday_source_in_one_data_centre_gets_that_data_centres_lane() -> None:
    assert workday_queue(["acme.wd5/Careers", "beta.wd5/Jobs"]) == "workday-wd5"
    assert workday_queue(["wd3.myworkdaysite.com/recruiting/acme/Careers"]) == "workday-wd3"
    assert source_queue("workday", boards=["acme.wd1/Careers"]) == "workday-wd1"
    # Boards in several data centres, or none named: the one Workday lane.
    assert workday_queue(["acme.wd5/Careers", "beta.wd1/Jobs"]) == WORKDAY
    assert workday_queue([]) == WORKDAY
    # A browser source stays in the browser lane.
    assert source_queue("workday", "browser", ["acme.wd5/Careers"]) == BROWSER


def test_the_configured_workday_sources_span_data_centres_and_keep_one_lane() -> None:
    for path in (REPO_ROOT / "sources.yaml", REPO_ROOT / "sandbox" / "sources.yaml"):
        sources = load_sources(path, env={}).sources
        assert source_lane(sources["workday"]) == WORKDAY, path
        assert lanes_in_use(sources.values()) == (ATS, WORKDAY, BROWSER), path


def test_the_layout_of_the_three_lanes_is_three_workers_each_serving_two() -> None:
    assert [w.queues for w in WORKERS] == [
        (ATS, WORKDAY, DEFAULT),
        (ATS, BROWSER, DEFAULT),
        (WORKDAY, BROWSER, DEFAULT),
    ]


@pytest.mark.parametrize("centres", [1, 3, 4, 7])
def test_data_centre_lanes_add_workers_and_keep_both_rules(centres: int) -> None:
    lanes = (ATS, WORKDAY, BROWSER, *(f"workday-wd{n}" for n in range(1, centres + 1)))
    workers = layout(lanes)
    assert lane_layout_problems(workers, lanes) == []
    assert len(workers) == {1: 4, 3: 4, 4: 5, 7: 5}[centres]
    assert all(DEFAULT in w.queues for w in workers)


def test_four_lanes_on_three_workers_cannot_keep_both_rules() -> None:
    """Why a fourth lane brings a fourth worker: three workers fail one rule or the other."""
    lanes = (ATS, WORKDAY, BROWSER, "workday-wd5")
    squeezed = [
        Worker("worker-1", (ATS, WORKDAY, "workday-wd5", DEFAULT)),
        Worker("worker-2", (ATS, BROWSER, DEFAULT)),
        Worker("worker-3", (WORKDAY, BROWSER, "workday-wd5", DEFAULT)),
    ]
    assert "a slow workday-wd5 lane can fill every worker workday has" in lane_layout_problems(
        squeezed, lanes
    )


def test_the_shipped_layout_keeps_every_lane_alive_and_unstarved() -> None:
    assert lane_layout_problems(WORKERS) == []
    assert len(WORKERS) >= 2
    assert all(DEFAULT in w.queues for w in WORKERS)


def test_a_layout_with_one_worker_per_lane_fails_the_kill_rule() -> None:
    single = [Worker("a", (ATS, DEFAULT)), Worker("b", (WORKDAY, BROWSER, DEFAULT))]
    problems = lane_layout_problems(single)
    assert "ats is served by ['a']: one kill stops it" in problems
    assert any(p.startswith("workday is served by") for p in problems)


def test_workers_that_all_serve_every_lane_fail_the_starvation_rule() -> None:
    shared = [Worker(f"w{i}", (ATS, WORKDAY, BROWSER, DEFAULT)) for i in range(3)]
    problems = lane_layout_problems(shared)
    assert "a slow workday lane can fill every worker ats has" in problems
    assert not any("one kill" in p for p in problems)


def test_a_worker_command_names_its_queues_and_serves_no_task_logs() -> None:
    args = worker_command(Worker("worker-9", (ATS, DEFAULT)), concurrency=3)
    assert args[:2] == ["celery", "worker"]
    assert args[args.index("--queues") + 1] == "ats,default"
    assert args[args.index("--celery-hostname") + 1] == "worker-9@%h"
    assert args[args.index("--concurrency") + 1] == "3"
    assert "--skip-serve-logs" in args


def test_the_installed_airflow_accepts_the_worker_commands() -> None:
    """A provider upgrade that drops a flag fails here, not in front of a user."""
    from airflow.cli.cli_parser import get_parser

    parser = get_parser()
    for worker in WORKERS:
        parsed = parser.parse_args(worker_command(worker, 2))
        assert parsed.queues == ",".join(worker.queues)
        assert parsed.skip_serve_logs is True


def test_the_commands_line_printed_for_airflow_up_splits_back(capsys) -> None:
    assert main(["commands"]) == 0
    lines = capsys.readouterr().out.splitlines()
    concurrency = AirflowSettings().celery_concurrency
    assert [line.split(" ", 1)[0] for line in lines] == [w.name for w in WORKERS]
    for line, worker in zip(lines, WORKERS, strict=True):
        assert shlex.split(line)[1:] == worker_command(worker, concurrency)


def test_airflow_up_starts_the_printed_workers_only_for_celery() -> None:
    script = (REPO_ROOT / "scripts" / "airflow-up.sh").read_text()
    assert "python -m pipeline.airflow.workers commands" in script
    assert '[ "${JOBHARBOR_AIRFLOW_EXECUTOR:-local}" = celery ] && celery=true' in script


def test_redis_listens_on_loopback_with_a_password_and_keeps_nothing(tmp_path: Path) -> None:
    conf = redis_config(6390, "s3cret", tmp_path)
    lines = conf.splitlines()
    assert "bind 127.0.0.1" in lines
    assert "port 6390" in lines
    assert "requirepass s3cret" in lines
    assert 'save ""' in lines
    assert broker_url(6390, "s3cret") == "redis://:s3cret@127.0.0.1:6390/0"


def test_a_generated_password_is_private_and_reused(tmp_path: Path) -> None:
    first = redis_password(tmp_path, None)
    assert len(first) >= 32
    path = tmp_path / "redis" / "password"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert redis_password(tmp_path, None) == first
    # The environment's password wins and is not written anywhere.
    assert redis_password(tmp_path / "other", "given") == "given"
    assert not (tmp_path / "other").exists()


QUEUES_PROBE = """
import json, os
from airflow.dag_processing.dagbag import DagBag
bag = DagBag(dag_folder=os.environ["AIRFLOW__CORE__DAGS_FOLDER"])
print(json.dumps({"errors": list(bag.import_errors),
                  "queues": {d: sorted({t.queue for t in dag.tasks}) for d, dag in bag.dags.items()}}))
"""


@pytest.mark.airflow
def test_every_task_of_a_source_dag_is_queued_in_its_lane(tmp_path: Path) -> None:
    result = run([sys.executable, "-c", QUEUES_PROBE], airflow_env(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    bag = json.loads(result.stdout.strip().splitlines()[-1])
    assert bag["errors"] == []
    sources = load_sources(REPO_ROOT / "sandbox" / "sources.yaml", env={}).enabled()
    for name, source in sources:
        assert bag["queues"][f"jobharbor_{name}"] == [source_lane(source)]
    assert bag["queues"]["jobharbor_workday"] == [WORKDAY]
    assert bag["queues"]["jobharbor_greenhouse"] == [ATS]
    # Everything else stays on Airflow's default queue, which every worker consumes.
    assert bag["queues"]["jobharbor_serving_sync"] == [DEFAULT]
