"""The Airflow UI's address, and writing a DAG run's note from one of its tasks.

A task cannot set its run's note through the Task SDK (the execution API has no such
call), so the note is written through the public REST API
(`PATCH /api/v2/dags/{dag_id}/dagRuns/{run_id}`) as `make up`'s operator, with a token
from `POST /auth/token` and the password from the simple auth manager's passwords file
(pipeline.airflow.auth). Anywhere else (no passwords file, a real auth manager, no API
server as under `airflow dags test`) the note is not written and the caller says so;
the decision itself is recorded in the database.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import httpx

from pipeline.airflow.auth import LoginFailed, token_from_file

TIMEOUT_S = 10.0


def ui_base_url() -> str | None:
    """`api.base_url` when configured, else the API server this task reports to (its
    execution API address without `/execution/`)."""
    from airflow.configuration import conf

    base = conf.get("api", "base_url", fallback=None)
    if not base:
        execution = conf.get("core", "execution_api_server_url", fallback=None) or ""
        base = execution.removesuffix("/").removesuffix("/execution") or None
    return base.rstrip("/") if base else None


def configured_passwords_file() -> Path | None:
    """The simple auth manager's passwords file of the Airflow this task runs under."""
    from airflow.configuration import conf

    value = conf.get("core", "simple_auth_manager_passwords_file", fallback=None)
    return Path(value) if value else None


def write_run_note(dag_id: str, run_id: str, note: str) -> str | None:
    """Set the run's note; None when written, else why not (never raises)."""
    base = ui_base_url()
    if not base:
        return "no API address configured"
    logins = configured_passwords_file()
    if not logins or not logins.exists():
        return "no credentials (no simple auth manager passwords file)"
    try:
        with httpx.Client(base_url=base, timeout=TIMEOUT_S) as client:
            token = token_from_file(client, logins)
            answer = client.patch(
                f"/api/v2/dags/{quote(dag_id, safe='')}/dagRuns/{quote(run_id, safe='')}",
                params={"update_mask": "note"},
                json={"note": note},
                headers={"Authorization": f"Bearer {token}"},
            )
    except (httpx.HTTPError, LoginFailed, KeyError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    if answer.status_code >= 400:
        return f"PATCH dagRuns: {answer.status_code} {answer.text[:200]}"
    return None
