"""The layout's contracts hold on the repository, and each one fails when broken on purpose."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.architecture import contracts

REPO = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- the repository


def test_parsers_import_nothing_from_pipeline() -> None:
    assert contracts.parsers_import_no_pipeline(REPO) == []


def test_nothing_under_pipeline_imports_dags_web_or_sandbox_but_the_dev_composition_roots() -> None:
    assert contracts.pipeline_imports_no_outer_layer(REPO) == []


def test_dags_import_only_pipeline_config_and_the_alert_callbacks_at_module_level() -> None:
    assert contracts.dags_import_only_config(REPO) == []


def test_lifecycle_rules_and_the_schedule_reach_no_database_module() -> None:
    assert contracts.pure_modules_reach_no_database(REPO) == []


def test_no_function_in_pipeline_is_longer_than_60_lines_but_argparse_set_up() -> None:
    assert contracts.long_functions(REPO) == []


def test_no_phase_module_builds_sql_from_anything_but_constants() -> None:
    assert contracts.sql_fstrings(REPO) == []


def test_the_checked_modules_exist() -> None:
    """A rule about a module that was renamed away would pass vacuously."""
    for module in [*contracts.PURE_MODULES, *contracts.SANDBOX_USERS]:
        path = REPO / (module.replace(".", "/") + ".py")
        assert path.is_file(), module
    assert any(contracts.python_files(REPO, "dags"))


# ---------------------------------------------------------------- broken on purpose


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for package in ("pipeline", "pipeline/lifecycle", "pipeline/crawl", "pipeline/db", "parsers"):
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").touch()
    return root


def test_a_parser_importing_pipeline_breaks_the_contract(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"parsers/html.py": "def f():\n    from pipeline.app import App\n"})
    assert contracts.parsers_import_no_pipeline(root) == ["parsers.html:2 imports pipeline.app.App"]


def test_a_relative_import_into_pipeline_is_seen_too(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"parsers/html.py": "from ..pipeline import config\n"})
    assert contracts.parsers_import_no_pipeline(root) == ["parsers.html:1 imports pipeline.config"]


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("import psycopg\n", "psycopg"),
        ("from pipeline.db.connect import DictConnection\n", "pipeline.db.connect.DictConnection"),
        ("def later():\n    import sqlalchemy\n", "sqlalchemy"),
    ],
)
def test_a_lifecycle_rule_importing_a_database_module_breaks_the_contract(
    tmp_path: Path, source: str, target: str
) -> None:
    root = _tree(tmp_path, {"pipeline/lifecycle/rules.py": source})
    found = contracts.pure_modules_reach_no_database(root, ["pipeline.lifecycle.rules"])
    assert found == [f"pipeline.lifecycle.rules -> {target}"]


def test_reaching_a_database_module_through_another_module_breaks_the_contract(
    tmp_path: Path,
) -> None:
    root = _tree(
        tmp_path,
        {
            "pipeline/crawl/schedule.py": "from pipeline.crawl import helpers\n",
            "pipeline/crawl/helpers.py": "from pipeline.lifecycle.store import x\n",
            "pipeline/lifecycle/store.py": "import psycopg\nx = 1\n",
        },
    )
    found = contracts.pure_modules_reach_no_database(root, ["pipeline.crawl.schedule"])
    assert found == [
        "pipeline.crawl.schedule -> pipeline.crawl.helpers -> pipeline.lifecycle.store -> psycopg"
    ]


def test_a_database_import_in_a_parent_package_breaks_the_contract(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"pipeline/lifecycle/rules.py": "X = 1\n"})
    (root / "pipeline/lifecycle/__init__.py").write_text("from pipeline.db import connect\n")
    found = contracts.pure_modules_reach_no_database(root, ["pipeline.lifecycle.rules"])
    assert found == ["pipeline.lifecycle.rules -> pipeline.lifecycle -> pipeline.db.connect"]


def test_a_type_checking_import_does_not_count(tmp_path: Path) -> None:
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import psycopg\n"
    root = _tree(tmp_path, {"pipeline/lifecycle/rules.py": source})
    assert contracts.pure_modules_reach_no_database(root, ["pipeline.lifecycle.rules"]) == []


def test_a_dag_importing_more_than_config_at_module_level_breaks_the_contract(
    tmp_path: Path,
) -> None:
    source = (
        "import os\n"
        "from airflow.sdk import DAG\n"
        "from pipeline.config import load_sources\n"
        "from pipeline.app import App\n"
        "from pipeline.airflow.alerts import on_task_failure\n"
        "from pipeline.airflow.tasks import run_fetch\n"
        "def task():\n"
        "    from pipeline.airflow.tasks import run_discover\n"
    )
    root = _tree(tmp_path, {"dags/jobs.py": source})
    assert contracts.dags_import_only_config(root) == [
        "dags.jobs:4 imports pipeline.app.App at module level",
        "dags.jobs:6 imports pipeline.airflow.tasks.run_fetch at module level",
    ]


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("pipeline/phases/fetch.py", "from sandbox.daemon import ensure_sandbox\n"),
        ("pipeline/commands/status.py", "import web.app\n"),
        ("pipeline/crawl/queue.py", "def f():\n    import dags.jobharbor_dags\n"),
        ("pipeline/commands/demo.py", "from dags import jobharbor_dags\n"),
    ],
)
def test_pipeline_importing_dags_web_or_sandbox_breaks_the_contract(
    tmp_path: Path, module: str, source: str
) -> None:
    root = _tree(tmp_path, {module: source})
    assert len(contracts.pipeline_imports_no_outer_layer(root)) == 1


def test_the_demo_may_start_the_sandbox(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"pipeline/commands/demo.py": "from sandbox.daemon import x\n"})
    assert contracts.pipeline_imports_no_outer_layer(root) == []


def test_a_function_over_60_lines_breaks_the_contract(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(60))
    root = _tree(
        tmp_path,
        {
            "pipeline/crawl/queue.py": f"def claim():\n{body}",
            "pipeline/cli.py": f"def build_parser():\n{body}",
            "pipeline/crawl/short.py": "def ok():\n" + body[: body.index("    x59")],
        },
    )
    assert contracts.long_functions(root) == ["pipeline.crawl.queue.claim: 61 lines"]


def test_a_phase_building_sql_from_a_variable_breaks_the_contract(tmp_path: Path) -> None:
    source = (
        "COLUMNS = 'id, title'\n"
        "def ok(): return f'SELECT {COLUMNS} FROM core.postings'\n"
        "def bad(table): return f'SELECT id FROM {table} WHERE id = 1'\n"
        "def text(n): return f'{n} postings'\n"
    )
    root = _tree(tmp_path, {"pipeline/phases/check.py": source})
    assert contracts.sql_fstrings(root) == ["pipeline.phases.check:3 interpolates table"]


def test_no_phase_module_holds_sql_its_statements_live_in_store_modules() -> None:
    assert contracts.phase_sql(REPO) == []


def test_sql_constants_and_sql_fstrings_in_a_phase_break_the_contract(tmp_path: Path) -> None:
    source = (
        '"""SELECT in a docstring is prose."""\n'
        "_TODO = '''\n  SELECT id FROM core.postings\n'''\n"
        "COLUMNS = 'id, title'\n"
        "def insert(conn):\n"
        "    '''INSERT the row (a docstring).'''\n"
        "    conn.execute('UPDATE core.postings SET status = %s', ('active',))\n"
        "    return f'WITH x AS (SELECT {COLUMNS} FROM core.postings) SELECT 1'\n"
        "def text(n): return f'Insert {n} postings', 'DELETED rows are kept', f'{n} SELECT'\n"
    )
    root = _tree(tmp_path, {"pipeline/phases/parse.py": source})
    assert contracts.phase_sql(root) == [
        "pipeline.phases.parse:2 SQL in a string",
        "pipeline.phases.parse:8 SQL in a string",
        "pipeline.phases.parse:9 SQL in an f-string",
    ]


def test_sql_in_a_store_module_is_where_it_belongs(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"pipeline/crawl/detail_store.py": "DUE = 'SELECT id FROM x'\n"})
    assert contracts.phase_sql(root) == []
