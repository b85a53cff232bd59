"""`make demo SERVING=separate` (JOBHARBOR_SERVING_CLUSTER=separate): the serving database
in a second private cluster under the data dir, the web role there alone, the web app
served without the pipeline's cluster, and `jobharbor db stop` stopping both."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from pipeline.app import SERVING_CLUSTER_DIR, resolve_databases, resolve_serving
from pipeline.cli import cmd_db_stop
from pipeline.commands.setup import setup_databases
from pipeline.db.connect import Database
from pipeline.db.embedded import stop_cluster
from pipeline.settings import Settings
from serving_sync import roles

pytestmark = pytest.mark.db  # each test starts clusters of its own


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("JOBHARBOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("JOBHARBOR_SERVING_CLUSTER", "separate")
    try:
        yield tmp_path
    finally:
        stop_cluster(tmp_path / "pg")
        stop_cluster(tmp_path / SERVING_CLUSTER_DIR)


def _one(url: str, query: str) -> object:
    with psycopg.connect(url) as conn:
        row = conn.execute(query).fetchone()
    return row[0] if row else None


def _running(root: Path) -> bool:
    return (root / "data" / "postmaster.pid").exists()


def test_the_separate_layout_keeps_serving_and_the_web_role_out_of_the_pipelines_cluster(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings()
    assert settings.serving_cluster == "separate"
    urls = resolve_databases(settings)
    pipeline, serving = conninfo_to_dict(urls.authoritative), conninfo_to_dict(urls.serving)
    assert pipeline["port"] != serving["port"]
    assert _running(data_dir / SERVING_CLUSTER_DIR)

    monkeypatch.setenv(roles.PASSWORD_ENV, "separate-secret")
    setup_databases(Database(urls.authoritative), Database(urls.serving))
    role = f"SELECT to_regrole('{roles.WEB_ROLE}') IS NOT NULL"
    assert _one(urls.serving, role) is True
    assert _one(urls.authoritative, role) is False
    # No serving database is made beside the pipeline's when serving lives elsewhere.
    databases = "SELECT array_agg(datname::text ORDER BY datname) FROM pg_database"
    assert "jobharbor_serving" not in _one(urls.authoritative, databases)

    # The web app's address needs only the serving cluster: the pipeline's stays down.
    stop_cluster(data_dir / "pg")
    web = resolve_serving(Settings())
    assert (web.url, web.cluster_dir) == (urls.serving, data_dir / SERVING_CLUSTER_DIR)
    assert not _running(data_dir / "pg")
    with psycopg.connect(roles.reader_url(web.url, "separate-secret")) as conn:
        assert conn.execute("SELECT current_user").fetchone() == (roles.WEB_ROLE,)

    assert cmd_db_stop(None) == 0  # type: ignore[arg-type]
    assert "embedded serving PostgreSQL stopped" in capsys.readouterr().out
    assert not _running(data_dir / SERVING_CLUSTER_DIR)


def test_an_explicit_serving_url_wins_over_the_separate_cluster(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JOBHARBOR_DATABASE_URL", "postgresql://a@db.invalid/jobharbor")
    monkeypatch.setenv("JOBHARBOR_SERVING_DATABASE_URL", "postgresql://b@serving.invalid/s")
    urls = resolve_databases(Settings())
    assert (urls.authoritative, urls.serving) == (
        "postgresql://a@db.invalid/jobharbor",
        "postgresql://b@serving.invalid/s",
    )
    assert not (data_dir / SERVING_CLUSTER_DIR).exists()
