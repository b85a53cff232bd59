"""The environment `make up` runs Airflow with, printed as shell `export` lines.

The API server binds JOBHARBOR_AIRFLOW_HOST (default 127.0.0.1) on AIRFLOW_PORT
(default 8080). Airflow's metadata lives in the embedded cluster's `airflow` database (or
AIRFLOW__DATABASE__SQL_ALCHEMY_CONN when set); DAGs come from dags/; tasks poll
the sandbox job web, which this starts if it is not running.

The two jobharbor databases are resolved here, once, and handed to every task as URLs:
without them each task would make sure of the embedded cluster itself (a walk over the
PostgreSQL install, two connections and a database check), about half a second each.

With JOBHARBOR_AIRFLOW_EXECUTOR=celery (`make up EXECUTOR=celery`) this also starts the
data dir's Redis (pipeline.airflow.workers) and sets the CeleryExecutor. The broker URL,
which holds Redis's password, is not exported: Airflow reads it with
AIRFLOW__CELERY__BROKER_URL_CMD from a 0600 file in the data dir, so it is in no
process's environment or command line. JOBHARBOR_AIRFLOW_SOURCES, when set, is the
sources file the DAGs and tasks use instead of sandbox/sources.yaml.

Nobody uses the UI or the REST API without logging in: the users and their passwords
file are pipeline.airflow.auth's (made sure of here, before Airflow starts).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from pipeline.airflow.auth import ensure_passwords, passwords_file, users_setting
from pipeline.airflow.settings import AirflowSettings, AlertSettings
from pipeline.airflow.workers import EXECUTORS, broker_url, ensure_redis, redis_password
from pipeline.app import resolve_databases
from pipeline.db.connect import sqlalchemy_url
from pipeline.settings import REPO_ROOT, load_settings
from sandbox.daemon import ensure_sandbox

# A source, sync, enrich or operations run not finished this long after it was queued
# raises a deadline alert under `make up` (pipeline.airflow.alerts.dag_deadline).
MAKE_UP_DEADLINE_MINUTES = 120


def airflow_environment() -> dict[str, str]:
    settings = load_settings()
    urls = resolve_databases(settings)
    sandbox_url = ensure_sandbox(settings.data_dir)
    home = settings.data_dir / "airflow"
    home.mkdir(parents=True, exist_ok=True)
    airflow = AirflowSettings()
    port, host = airflow.port, airflow.host
    given = airflow.metadata_url.get_secret_value() if airflow.metadata_url else None
    metadata = given or metadata_url(urls.airflow or "")
    sources = airflow.sources or REPO_ROOT / "sandbox" / "sources.yaml"
    logins = passwords_file(settings.data_dir)
    ensure_passwords(logins, airflow.given_passwords())
    env = {
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(REPO_ROOT / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": metadata,
        "AIRFLOW__CORE__EXECUTOR": EXECUTORS[airflow.executor],
        # The UI binds to loopback unless JOBHARBOR_AIRFLOW_HOST says otherwise.
        "AIRFLOW__API__HOST": host,
        "AIRFLOW__API__PORT": port,
        # Tasks report to the api-server's execution API: on the same port, whatever it is.
        "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": execution_api_url(host, port),
        # Named users with passwords (pipeline.airflow.auth): a decision names who made it.
        "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "False",
        "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS": users_setting(),
        "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE": str(logins),
        "JOBHARBOR_SOURCES": str(sources),
        "JOBHARBOR_SANDBOX_URL": sandbox_url,
        "JOBHARBOR_ALLOW_PRIVATE_NETWORKS": "true",  # the sandbox is on loopback
        "JOBHARBOR_DATA_DIR": str(settings.data_dir),
        "JOBHARBOR_DATABASE_URL": urls.authoritative,
        "JOBHARBOR_SERVING_DATABASE_URL": urls.serving,
        "PYTHONPATH": str(REPO_ROOT),
    }
    deadline = make_up_deadline_minutes(AlertSettings())
    if deadline is not None:
        env["JOBHARBOR_ALERT_DEADLINE_MINUTES"] = str(deadline)
    if airflow.executor == "celery":
        env.update(celery_environment(airflow, settings.data_dir, home))
    return env


def make_up_deadline_minutes(alerts: AlertSettings) -> int | None:
    """The deadline alert `make up` turns on when JOBHARBOR_ALERT_DEADLINE_MINUTES is not
    set (None: it is set, and passes through as given, 0 turning it off). Off by default
    elsewhere: `airflow dags test` crashes at the end of a successful run of a DAG with a
    deadline (Airflow 3.3.2), and `make up` runs DAGs only through the scheduler."""
    return None if "deadline_minutes" in alerts.model_fields_set else MAKE_UP_DEADLINE_MINUTES


def celery_environment(airflow: AirflowSettings, data_dir: Path, home: Path) -> dict[str, str]:
    """The broker (this data dir's Redis, started if need be) and the executor's settings."""
    given = airflow.redis_password.get_secret_value() if airflow.redis_password else None
    password = redis_password(data_dir, given)
    port = ensure_redis(data_dir, home / "run", airflow.redis_port, password)
    url_file = data_dir / "redis" / "broker-url"
    url_file.touch(mode=0o600)
    url_file.write_text(broker_url(port, password) + "\n")
    return {
        "AIRFLOW__CELERY__BROKER_URL_CMD": f"cat {shlex.quote(str(url_file))}",
        "AIRFLOW__CELERY__WORKER_CONCURRENCY": str(airflow.celery_concurrency),
        "JOBHARBOR_REDIS_PORT": str(port),
    }


def metadata_url(url: str) -> str:
    """Airflow's metadata database through psycopg2. Through psycopg 3 (the platform's
    own driver) Airflow 3.3.2's `SerializedDagModel.get_dag_dependencies` fails, and with
    it the UI's /ui/dependencies and the Assets graph: SQLAlchemy's psycopg dialect sends
    the path of `data #> '{dag,dag_dependencies}'` cast to varchar, and PostgreSQL has no
    `jsonb #> character varying`; psycopg2 sends it untyped, read as text[]."""
    return sqlalchemy_url(url).replace("postgresql+psycopg://", "postgresql+psycopg2://", 1)


def execution_api_url(host: str, port: str) -> str:
    """Where tasks on this machine reach the API server bound to `host`: a wildcard bind
    on loopback, a named address as itself (bracketed when IPv6)."""
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/execution/"


def main() -> int:
    for key, value in airflow_environment().items():
        print(f"export {key}={shlex.quote(value)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
