"""What a human (or the scheduler's timeout sweep) does to a waiting approval, run as a
script in the Airflow environment of a test (`airflow dags test` never answers one).

    python hitl_responder.py wait DAG_ID            # the request, once the task waits ({}: not yet)
    python hitl_responder.py xcom DAG_ID PATH       # point plan's XCom at another manifest
    python hitl_responder.py respond DAG_ID OPTION REASON USER
    python hitl_responder.py timeout DAG_ID         # the deadline passed: the sweep

`respond` writes the response the way the REST API's handler does (the HITL row, then
handle_event_submit); `timeout` backdates the deadline and runs the scheduler's own
sweep. Each prints one JSON line.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from datetime import timedelta
from types import SimpleNamespace

from airflow.jobs.scheduler_job_runner import SchedulerJobRunner
from airflow.models.hitl import HITLDetail
from airflow.models.taskinstance import TaskInstance
from airflow.models.trigger import handle_event_submit
from airflow.models.xcom import XComModel
from airflow.triggers.base import TriggerEvent
from airflow.utils import timezone
from airflow.utils.session import create_session
from airflow.utils.state import TaskInstanceState
from sqlalchemy import select

WAIT_S = 15


def waiting(session, dag_id: str) -> TaskInstance | None:
    return session.scalar(
        select(TaskInstance).where(
            TaskInstance.dag_id == dag_id,
            TaskInstance.task_id == "approval",
            TaskInstance.state == TaskInstanceState.AWAITING_INPUT,
        )
    )


def wait(dag_id: str) -> dict:
    """The request, once the task waits; {} when it does not within WAIT_S (the caller
    asks again while the run is alive)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        with create_session() as session:
            ti = waiting(session, dag_id)
            if ti is not None:
                detail = session.get(HITLDetail, ti.id)
                return {
                    "run_id": ti.run_id,
                    "subject": detail.subject,
                    "body": detail.body,
                    "options": detail.options,
                    "defaults": detail.defaults,
                    "params": detail.params,
                    "timeout": ti.trigger_timeout.isoformat() if ti.trigger_timeout else None,
                }
        time.sleep(1)
    return {}


def edit_xcom(dag_id: str, path: str) -> dict:
    with create_session() as session:
        ti = waiting(session, dag_id)
        row = session.scalar(
            select(XComModel).where(
                XComModel.dag_id == dag_id,
                XComModel.run_id == ti.run_id,
                XComModel.task_id == "plan",
                XComModel.key == "return_value",
            )
        )
        row.value = {**row.value, "manifest": path}
        session.add(row)
    return {"manifest": path}


def respond(dag_id: str, option: str, reason: str, user: str) -> dict:
    with create_session() as session:
        ti = waiting(session, dag_id)
        detail = session.get(HITLDetail, ti.id)
        detail.responded_by = {"id": f"id-{user}", "name": user}
        detail.responded_at = timezone.utcnow()
        detail.chosen_options = [option]
        detail.params_input = {"reason": reason}
        session.add(detail)
        handle_event_submit(
            TriggerEvent(detail.as_resume_event_payload()), task_instance=ti, session=session
        )
    return {"responded": option}


def timeout(dag_id: str) -> dict:
    with create_session() as session:
        ti = waiting(session, dag_id)
        ti.trigger_timeout = timezone.utcnow() - timedelta(seconds=1)
        session.add(ti)
    runner = SimpleNamespace(log=logging.getLogger("sweep"))
    SchedulerJobRunner.check_awaiting_input_timeouts(runner)  # type: ignore[arg-type]
    return {"swept": True}


def main(argv: list[str]) -> None:
    command, dag_id, *rest = argv
    actions = {"wait": wait, "xcom": edit_xcom, "respond": respond, "timeout": timeout}
    print(json.dumps(actions[command](dag_id, *rest), default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
