"""docker-compose.yml cannot run here (no Docker engine); keep it coherent with the code:
the full stack, pinned images, known settings, secrets from the environment, and the
profile `celery` (Redis and two workers only under the profile, every Airflow service on
the same executor, broker, metadata and data volume; the LocalExecutor stays the default)."""

from __future__ import annotations

import re

import yaml

from pipeline.settings import REPO_ROOT, Settings
from web.settings import WebSettings

COMPOSE = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
AIRFLOW = [name for name, s in SERVICES.items() if name.startswith("airflow-")]
WORKERS = ["airflow-worker-1", "airflow-worker-2"]


def test_services_of_the_full_stack_are_declared() -> None:
    assert set(COMPOSE["services"]) >= {
        "postgres",
        "postgres-serving",
        "minio",
        "airflow-init",
        "airflow-api-server",
        "airflow-scheduler",
        "airflow-dag-processor",
        "airflow-triggerer",
        "web",
    }


def test_images_are_pinned_to_versions() -> None:
    for name, service in COMPOSE["services"].items():
        image = service.get("image", "")
        if image and not image.endswith(":local"):
            assert re.search(r":[\w.-]*\d[\w.-]*$", image), f"{name}: {image}"
            assert not image.endswith(":latest"), f"{name}: {image}"
    dockerfile = (REPO_ROOT / "docker" / "Dockerfile").read_text()
    assert re.search(r"^FROM apache/airflow:3\.\d+\.\d+-python3\.11$", dockerfile, re.M)


def test_every_jobharbor_variable_is_a_real_setting() -> None:
    env = COMPOSE["services"]["airflow-scheduler"]["environment"]
    known = {f"JOBHARBOR_{name.upper()}" for name in Settings.model_fields} | {"JOBHARBOR_SOURCES"}
    used = {key for key in env if key.startswith("JOBHARBOR_")}
    assert used
    assert used <= known, used - known
    assert env["AIRFLOW__CORE__EXECUTOR"] == "${AIRFLOW_EXECUTOR:-LocalExecutor}"
    assert env["JOBHARBOR_RAW_STORE_URL"].startswith("s3://")


def test_secrets_come_from_the_environment_not_the_file() -> None:
    text = (REPO_ROOT / "docker-compose.yml").read_text()
    for variable in (
        "POSTGRES_PASSWORD",
        "SERVING_POSTGRES_PASSWORD",
        "MINIO_ROOT_PASSWORD",
        "AIRFLOW_JWT_SECRET",
    ):
        assert "${" + variable in text
    assert not re.search(r"PASSWORD:\s*[\"']?[A-Za-z0-9]{6,}[\"']?\s*$", text, re.M)


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
    fields = {*Settings.model_fields, *WebSettings.model_fields}  # airflow-init sets the web role
    known = {f"JOBHARBOR_{name.upper()}" for name in fields} | {"JOBHARBOR_SOURCES"}
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


def test_the_web_app_logs_in_as_the_web_role_with_no_pipeline_secret() -> None:
    web = COMPOSE["services"]["web"]
    assert web["entrypoint"] == "jobharbor"
    assert web["command"][0] == "web"
    assert set(web["environment"]) == {"JOBHARBOR_SERVING_READER_URL"}
    reader = web["environment"]["JOBHARBOR_SERVING_READER_URL"]
    assert reader.startswith("postgresql://jobharbor_web:${JOBHARBOR_WEB_DB_PASSWORD")
    assert all(port.startswith("127.0.0.1:") for port in web["ports"])
    # The role gets that password from the one service that sets both schemas up.
    init = COMPOSE["services"]["airflow-init"]["environment"]
    assert init["JOBHARBOR_WEB_DB_PASSWORD"].startswith("${JOBHARBOR_WEB_DB_PASSWORD")
    assert (
        "JOBHARBOR_WEB_DB_PASSWORD" not in COMPOSE["services"]["airflow-scheduler"]["environment"]
    )
    dockerfile = (REPO_ROOT / "docker" / "Dockerfile").read_text()
    assert re.search(r"^COPY .* web /opt/jobharbor/web$", dockerfile, re.M)
