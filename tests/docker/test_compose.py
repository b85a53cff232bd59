"""docker-compose.yml cannot run here (no Docker engine); keep it coherent with the code."""

from __future__ import annotations

import re

import yaml

from pipeline.settings import REPO_ROOT, Settings

COMPOSE = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())


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
