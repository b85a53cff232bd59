"""The test infrastructure itself: the App fixture's databases, and the fast run's guard."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pipeline.settings import REPO_ROOT
from serving_sync import schema as serving_schema


def test_app_fixture_has_migrated_databases(app) -> None:
    with app.db.connect() as conn:
        boards = conn.execute(
            "SELECT source_id, board_key FROM crawl.boards ORDER BY 1, 2"
        ).fetchall()
    assert ("greenhouse", "acme-robotics") in [(b["source_id"], b["board_key"]) for b in boards]
    with app.serving_db.connect() as conn:
        versions = [
            r["version"] for r in conn.execute("SELECT version FROM serving.schema_versions")
        ]
    assert versions == [m.version for m in serving_schema.migrations()]


PROBES = """
import httpx
import psycopg


def test_reaches_for_postgresql_without_a_fixture():
    psycopg.connect("postgresql://postgres@127.0.0.1:1/postgres")


def test_reaches_for_a_server_without_a_fixture():
    httpx.get("http://127.0.0.1:1/")


def test_uses_a_database_through_its_fixture(databases):
    pass
"""


def test_the_fast_run_deselects_db_tests_and_fails_unmarked_ones_that_reach_a_service(
    tmp_path: Path,
) -> None:
    """A test that touches PostgreSQL or a server without being marked fails in `--fast`,
    instead of quietly needing what the fast run promises not to start."""
    probes = tmp_path / "test_probes.py"
    probes.write_text(PROBES)
    inner = [
        "-c",
        str(REPO_ROOT / "pyproject.toml"),
        "-p",
        "tests.conftest",
        "-p",
        "no:cacheprovider",
    ]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *inner, "--fast", "-q", str(probes)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "2 failed, 1 deselected" in result.stdout
    assert "a PostgreSQL connection in `pytest --fast`" in result.stdout
    assert "a TCP connection to ('127.0.0.1', 1) in `pytest --fast`" in result.stdout
