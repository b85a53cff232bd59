"""docker-compose.yml cannot run here (no Docker engine); keep it coherent with the code:
the full stack, pinned images, known settings, secrets from the environment, and the
profile `celery` (Redis and two workers only under the profile, every Airflow service on
the same executor, broker, metadata and data volume; the LocalExecutor stays the default);
valid against the Compose specification's JSON schema, and every command a service runs
in the image is one the image has (jobharbor's console script, Airflow's CLI)."""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import yaml

from pipeline.config import LANE_QUEUES
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
    # Both consume every lane the DAGs queue tasks in, and Airflow's default queue.
    lanes = ",".join((*LANE_QUEUES, "default"))
    assert [SERVICES[w]["command"] for w in WORKERS] == [f"celery worker --queues {lanes}"] * 2
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


# --- the Compose specification and the image's commands ------------------------------

IMAGE = "jobharbor-airflow:local"
DOCKERFILE = REPO_ROOT / "docker" / "Dockerfile"


def compose_errors(document: dict) -> list[str]:
    """What the Compose specification's schema says is wrong with a compose document, as
    `path: message` lines. The schema is the copy check-jsonschema ships for its
    `check-compose-spec` hook (compose-spec/compose-spec, Apache-2.0, licence beside it in
    the package): a dev dependency, so no copy is kept here."""
    vendor = resources.files("check_jsonschema.builtin_schemas.vendor")
    schema = json.loads((vendor / "compose-spec.json").read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    return sorted(
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(document)
    )


def test_the_compose_file_follows_the_compose_specification() -> None:
    assert compose_errors(COMPOSE) == []


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        (lambda c: c["services"]["web"].update(restart_policy="always"), "restart_policy"),
        (lambda c: c["services"]["web"].update(ports="8000:8000"), "ports"),
        (
            lambda c: c["services"]["web"]["depends_on"]["airflow-init"].update(condition="up"),
            "condition",
        ),
        (lambda c: c.update(service={}), "service"),
    ],
    ids=[
        "unknown key",
        "ports not a list",
        "unknown depends_on condition",
        "unknown top-level key",
    ],
)
def test_the_schema_check_refuses_what_compose_would(change, complaint: str) -> None:
    broken = copy.deepcopy(COMPOSE)
    change(broken)
    errors = compose_errors(broken)
    assert errors
    assert any(complaint in e for e in errors), errors


def _image_services() -> dict[str, dict]:
    """The services that run the image docker/Dockerfile builds."""
    return {name: s for name, s in SERVICES.items() if s.get("image") == IMAGE}


def test_every_service_of_the_image_is_built_from_the_dockerfile() -> None:
    services = _image_services()
    assert set(services) >= {"web", "airflow-init", *AIRFLOW}
    for name, service in services.items():
        assert service["build"] == {"context": ".", "dockerfile": "docker/Dockerfile"}, name


def _command(service: dict) -> list[str]:
    command = service.get("command", [])
    return shlex.split(command) if isinstance(command, str) else list(command)


def _script_lines(service: dict) -> list[list[str]]:
    """The commands of a `bash -c` script (airflow-init's), comments and `set` left out."""
    command = _command(service)
    assert command[0] == "-c", command
    lines = [line.split("#", 1)[0].strip() for line in command[1].splitlines()]
    return [shlex.split(line) for line in lines if line and not line.startswith("set ")]


def image_commands() -> tuple[list[list[str]], list[list[str]]]:
    """Every command the compose file runs in the image, as (airflow, jobharbor) argument
    lists: the Airflow image's entrypoint runs a bare command as `airflow <command>`."""
    airflow: list[list[str]] = []
    jobharbor: list[list[str]] = []
    for name, service in _image_services().items():
        entrypoint = service.get("entrypoint")
        if entrypoint is None:
            airflow.append(_command(service))
        elif entrypoint == "jobharbor":
            jobharbor.append(_command(service))
        elif entrypoint == "/bin/bash":
            for line in _script_lines(service):
                {"airflow": airflow, "jobharbor": jobharbor}[line[0]].append(line[1:])
        else:
            raise AssertionError(f"{name}: entrypoint {entrypoint!r} is not one the image has")
    return airflow, jobharbor


def test_the_image_installs_jobharbor_and_its_console_script() -> None:
    dockerfile = DOCKERFILE.read_text()
    scripts = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["jobharbor"] == "pipeline.cli:main"
    assert re.search(
        r'^RUN pip install .*"apache-airflow==3\.\d+\.\d+" -e /opt/jobharbor$', dockerfile, re.M
    )
    # Every package the project installs is in the image (the install is editable).
    for package in ("pipeline", "parsers", "serving_sync", "sandbox", "migrations", "web"):
        assert re.search(rf"^COPY .* {package} /opt/jobharbor/{package}$", dockerfile, re.M), (
            package
        )


def test_every_jobharbor_command_of_the_compose_file_exists() -> None:
    from pipeline.cli import build_parser

    _, commands = image_commands()
    assert ["web", "--host", "0.0.0.0", "--port", "8000"] in commands
    assert ["airflow", "setup"] in commands
    parser = build_parser()
    for command in commands:
        assert callable(parser.parse_args(command).func), command


AIRFLOW_PARSE = """
import json, sys
from airflow.cli import cli_parser

parser = cli_parser.get_parser()
for command in json.loads(sys.argv[1]):
    parser.parse_args(command)
"""


def _airflow_parses(commands: list[list[str]], home: Path) -> subprocess.CompletedProcess:
    """Airflow's own CLI parser on the commands, in a process of its own (importing
    Airflow configures logging and settings for the whole process)."""
    return subprocess.run(
        [sys.executable, "-c", AIRFLOW_PARSE, json.dumps(commands)],
        env={**os.environ, "AIRFLOW_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_airflow_command_of_the_compose_file_exists(tmp_path: Path) -> None:
    commands, _ = image_commands()
    assert {"api-server", "scheduler", "dag-processor", "triggerer"} <= {c[0] for c in commands}
    assert ["celery", "worker", "--queues", ",".join((*LANE_QUEUES, "default"))] in commands
    assert ["db", "migrate"] in commands
    done = _airflow_parses(commands, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    # ...and the parser refuses a command Airflow does not have.
    wrong = _airflow_parses([["schedulr"]], tmp_path)
    assert wrong.returncode != 0
    assert "invalid choice: 'schedulr'" in wrong.stderr
