"""The compose profile `celery` (no Docker engine here: its wiring, as far as this machine
allows): Redis and two workers only under the profile, every Airflow service on the same
executor, broker, metadata and data volume, every variable a known setting, and the
LocalExecutor stays the default."""

from __future__ import annotations

import re

import yaml

from pipeline.settings import REPO_ROOT, Settings

COMPOSE = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
AIRFLOW = [name for name, s in SERVICES.items() if name.startswith("airflow-")]
WORKERS = ["airflow-worker-1", "airflow-worker-2"]


def test_the_profile_adds_a_broker_and_two_workers_only() -> None:
    profiled = {name for name, s in SERVICES.items() if s.get("profiles")}
    assert profiled == {"redis", *WORKERS}
    assert all(SERVICES[name]["profiles"] == ["celery"] for name in profiled)
    assert [SERVICES[w]["command"] for w in WORKERS] == ["celery worker"] * 2
    assert len({SERVICES[w]["hostname"] for w in WORKERS}) == 2
    for worker in WORKERS:
        assert SERVICES[worker]["depends_on"]["redis"] == {"condition": "service_healthy"}
        assert "airflow-init" in SERVICES[worker]["depends_on"]


def test_every_airflow_service_shares_executor_broker_metadata_and_data() -> None:
    known = {f"JOBHARBOR_{name.upper()}" for name in Settings.model_fields} | {"JOBHARBOR_SOURCES"}
    first = SERVICES["airflow-scheduler"]["environment"]
    for name in AIRFLOW:
        env = SERVICES[name]["environment"]
        for key in (
            "AIRFLOW__CORE__EXECUTOR",
            "AIRFLOW__CELERY__BROKER_URL",
            "AIRFLOW__CELERY__RESULT_BACKEND",
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN",
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL",
            "JOBHARBOR_DATABASE_URL",
            "JOBHARBOR_RAW_STORE_URL",
            "JOBHARBOR_DATA_DIR",
        ):
            assert env[key] == first[key], (name, key)
        unknown = {k for k in env if k.startswith("JOBHARBOR_")} - known
        assert not unknown, (name, unknown)
        assert "jobharbor-data:/opt/jobharbor/data" in SERVICES[name]["volumes"], name
    assert first["AIRFLOW__CORE__EXECUTOR"] == "${AIRFLOW_EXECUTOR:-LocalExecutor}"
    broker = re.match(r"redis://([\w-]+):(\d+)/\d+$", first["AIRFLOW__CELERY__BROKER_URL"])
    assert broker is not None
    assert broker.group(1) == "redis"
    backend = first["AIRFLOW__CELERY__RESULT_BACKEND"]
    assert backend.startswith("db+postgresql://")
    assert "@postgres:5432/airflow" in backend
    assert "${POSTGRES_PASSWORD}" in backend  # a secret from the environment, not the file
    assert "jobharbor-data" in COMPOSE["volumes"]
