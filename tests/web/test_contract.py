"""The OpenAPI document is the API's contract: schemathesis generates requests from the
app's own /openapi.json (valid ones, and ones that break it) and runs every check on
the answers: no server error, no undocumented status, no schema-valid request refused,
no schema-violating request accepted, response bodies as documented.

The cursor is opaque (a value only the API writes, and only for its own sort order): the
run sends it empty, as a first page does; tests/web/test_api.py pages with real ones. The
seed is fixed so that a failure is the same failure on every machine; the generated
cases still reach every route and parameter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from serving_sync import value_rules
from tests.serving.conftest import start_web

SEED = "20261204"
CONFIG = '[parameters]\n"cursor" = ""\n'


def schemathesis(
    tmp_path: Path, schema: str, base_url: str, *extra: str
) -> subprocess.CompletedProcess:
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    command = [
        *(sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run"),
        *(schema, "--url", base_url, "--seed", SEED, "--no-color"),
        *extra,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)


@pytest.fixture
def unlimited(web_url: str, seeded):
    running = start_web(web_url, web_suggest_rate_limit_per_minute=0)
    try:
        yield running
    finally:
        running.stop()


def test_every_check_passes_on_requests_generated_from_the_apps_own_document(
    unlimited, tmp_path: Path
) -> None:
    run = schemathesis(
        tmp_path,
        f"{unlimited.url}/openapi.json",
        unlimited.url,
        *("--checks", "all", "--max-examples", "60"),
    )
    assert run.returncode == 0, run.stdout[-6000:]
    assert "Selected: 5/5" in run.stdout
    assert " passed" in run.stdout


def document(base_url: str) -> dict[str, Any]:
    return httpx.get(f"{base_url}/openapi.json", timeout=10).json()


def test_a_document_that_lets_an_amount_go_without_its_currency_fails_the_run(
    unlimited, tmp_path: Path
) -> None:
    """The check the contract passes can fail: the document FastAPI alone wrote (two
    separate salary parameters) lets a request through that the server refuses."""
    doc = document(unlimited.url)
    operation = doc["paths"]["/api/jobs"]["get"]
    operation["parameters"] = [p for p in operation["parameters"] if p["name"] != "salary"] + [
        {"name": "salary_min", "in": "query", "schema": {"type": "number", "minimum": 0}},
    ]
    doc["paths"] = {"/api/jobs": doc["paths"]["/api/jobs"]}
    loosened = tmp_path / "loosened.json"
    loosened.write_text(json.dumps(doc))
    run = schemathesis(
        tmp_path,
        str(loosened),
        unlimited.url,
        *("--checks", "positive_data_acceptance", "--max-examples", "60"),
    )
    assert run.returncode != 0
    assert "needs salary_currency" in run.stdout


def test_each_route_documents_every_status_it_answers(web) -> None:
    paths = document(web.url)["paths"]
    for path, operations in paths.items():
        assert {"200", "422", "429", "503"} <= set(operations["get"]["responses"]), path
    assert {"404", "410"} <= set(paths["/api/jobs/{job_id}"]["get"]["responses"])
    assert "404" in paths["/api/companies/{slug}"]["get"]["responses"]
    missing = httpx.get(f"{web.url}/api/jobs/0", timeout=10)  # and its body as documented
    assert missing.status_code == 404
    assert missing.json() == {"detail": "no such job"}


def test_query_parameters_are_present_or_absent_never_null(web) -> None:
    for operations in document(web.url)["paths"].values():
        for parameter in operations["get"]["parameters"]:
            assert "null" not in json.dumps(parameter["schema"]), parameter["name"]


def test_enumerated_parameters_list_exactly_the_values_the_server_takes(web) -> None:
    parameters = {
        p["name"]: p for p in document(web.url)["paths"]["/api/jobs"]["get"]["parameters"]
    }
    for name, allowed in value_rules.rules().items():
        items = parameters[name]["schema"]["items"]
        if allowed.values is not None:
            assert items["enum"] == ["", *allowed.values], name  # "": ignored, as forms send
        else:
            assert items["pattern"] == f"^(|{allowed.pattern[1:-1]})$", name
        assert parameters[name]["schema"]["maxItems"] == allowed.max_items
    assert "VN" in parameters["country"]["schema"]["items"]["enum"]
    assert "ZZ" not in parameters["country"]["schema"]["items"]["enum"]


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"country": "ZZ"}, "country"),  # not an assigned code: refused like remote=maybe
        ({"country": "vn"}, "country"),
        ({"country": " "}, "country"),  # an enumerated value is exact: only "" is ignored
        ({"remote": "maybe"}, "remote"),
        ({"job_type": "astronaut"}, "job_type"),
        ({"seniority": "boss"}, "seniority"),
        ({"work_mode": ["remote"] * 21}, "work_mode"),
        ({"city": "a\tb"}, "city"),
        ({"company": "x" * 201}, "company"),
        ({"experience_min": "41"}, "experience_min"),
    ],
)
def test_every_group_refuses_a_value_outside_its_rule_with_one_body_shape(
    web, params, name
) -> None:
    for path in ("/api/jobs", "/api/stats"):
        response = httpx.get(web.url + path, params=params, timeout=10)
        assert response.status_code == 422, (path, params)
        [error] = response.json()["detail"]
        assert set(error) == {"loc", "msg", "type"}
        assert error["loc"] == ["query", name]


def test_empty_values_are_ignored_as_forms_send_them(web, seeded) -> None:
    every = httpx.get(web.url + "/api/stats", timeout=10).json()["total"]
    blank = {"country": ["", ""], "city": ["", "  "], "seniority": ""}
    assert httpx.get(web.url + "/api/stats", params=blank, timeout=10).json()["total"] == every
