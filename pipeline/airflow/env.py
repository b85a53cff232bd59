"""The environment `make up` runs Airflow with, printed as shell `export` lines.

The API server binds JOBHARBOR_AIRFLOW_HOST (default 127.0.0.1) on AIRFLOW_PORT
(default 8080). Airflow's metadata lives in the embedded cluster's `airflow` database (or
AIRFLOW__DATABASE__SQL_ALCHEMY_CONN when set); DAGs come from dags/; tasks poll
the sandbox job web, which this starts if it is not running.

The two jobharbor databases are resolved here, once, and handed to every task as URLs:
without them each task would make sure of the embedded cluster itself (a walk over the
PostgreSQL install, two connections and a database check), about half a second each.
"""

from __future__ import annotations

import shlex

from pipeline.airflow.settings import AirflowSettings
from pipeline.app import resolve_databases
from pipeline.db.connect import sqlalchemy_url
from pipeline.settings import REPO_ROOT, load_settings
from sandbox.daemon import ensure_sandbox


def airflow_environment() -> dict[str, str]:
    settings = load_settings()
    urls = resolve_databases(settings)
    sandbox_url = ensure_sandbox(settings.data_dir)
    home = settings.data_dir / "airflow"
    home.mkdir(parents=True, exist_ok=True)
    airflow = AirflowSettings()
    port, host = airflow.port, airflow.host
    given = airflow.metadata_url.get_secret_value() if airflow.metadata_url else None
    metadata = given or sqlalchemy_url(urls.airflow or "")
    return {
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(REPO_ROOT / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": metadata,
        "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
        # Local development only: the UI binds to loopback (unless JOBHARBOR_AIRFLOW_HOST
        # says otherwise) and needs no login.
        "AIRFLOW__API__HOST": host,
        "AIRFLOW__API__PORT": port,
        # Tasks report to the api-server's execution API: on the same port, whatever it is.
        "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": execution_api_url(host, port),
        "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
        "JOBHARBOR_SOURCES": str(REPO_ROOT / "sandbox" / "sources.yaml"),
        "JOBHARBOR_SANDBOX_URL": sandbox_url,
        "JOBHARBOR_ALLOW_PRIVATE_NETWORKS": "true",  # the sandbox is on loopback
        "JOBHARBOR_DATA_DIR": str(settings.data_dir),
        "JOBHARBOR_DATABASE_URL": urls.authoritative,
        "JOBHARBOR_SERVING_DATABASE_URL": urls.serving,
        "PYTHONPATH": str(REPO_ROOT),
    }


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
