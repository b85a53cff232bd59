"""The backfill DAGs for real (`airflow dags test`): Airflow refuses a bad param before
the run; a preview writes a manifest and nothing else; an apply re-parses; a preview that
finds nothing says why and ends the run before approval; an apply of a manifest whose
selection changed fails at once (no retry); check, sync and enrich run in both modes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.app import App
from tests.airflow.harness import (
    AirflowCli,
    airflow_cli,
    airflow_db,
    airflow_template,
    jobharbor_env,
    last_json_line,
    run_states,
)
from tests.backfill.conftest import lever_versions
from tests.backfill.snapshot import table_snapshot

# Each test runs several DAGs of seconds to tens of seconds: more than the 300 s default.
pytestmark = [pytest.mark.airflow, pytest.mark.timeout(1200)]
__all__ = ["airflow_db", "airflow_template"]  # the fixtures, imported for this module's tests


# Secret values the tasks get (the test cluster trusts loopback, so the passwords in the
# URLs are accepted and ignored): none may appear in any task log.
SECRETS = {
    "db": "db-pass-Zq81x",
    "serving": "serving-pass-Kw27y",
    "s3": "s3-secret-Jm44v",
    "gemini": "gemini-key-Hp63u",
}


def with_password(url: str, password: str) -> str:
    return url.replace("postgresql://postgres@", f"postgresql://postgres:{password}@", 1)


@pytest.fixture
def cli(
    tmp_path: Path, databases, sandbox, airflow_db: str, parsed_lever: App
) -> Iterator[AirflowCli]:
    env = jobharbor_env(
        tmp_path,
        databases,
        sandbox,
        airflow_db,
        JOBHARBOR_DATABASE_URL=with_password(databases.db.url, SECRETS["db"]),
        JOBHARBOR_SERVING_DATABASE_URL=with_password(databases.serving.url, SECRETS["serving"]),
        JOBHARBOR_S3_ACCESS_KEY="jobharbor",
        JOBHARBOR_S3_SECRET_KEY=SECRETS["s3"],
        JOBHARBOR_GEMINI_API_KEY=SECRETS["gemini"],
        AIRFLOW__LOGGING__LOGGING_LEVEL="INFO",  # the reports are INFO lines
    )
    with airflow_cli(env) as running:
        yield running


OUTPUTS: list[str] = []


def task_logs(cli: AirflowCli) -> str:
    return "\n".join(
        p.read_text(errors="replace") for p in Path(cli.env["AIRFLOW_HOME"]).rglob("*.log")
    )


def dags_test(cli: AirflowCli, dag_id: str, conf: dict) -> tuple[int, str]:
    """Exit code, and the run's output followed by every task log so far (where the
    tasks' own lines and errors are)."""
    result = cli("dags", "test", dag_id, "-c", json.dumps(conf))
    OUTPUTS.append(result.stdout + result.stderr)
    return result.returncode, result.stdout + result.stderr + "\n" + task_logs(cli)


def assert_no_secret_in_logs(cli: AirflowCli) -> None:
    home = Path(cli.env["AIRFLOW_HOME"])
    logs = [p.read_text(errors="replace") for p in home.rglob("*.log")]
    texts = logs + OUTPUTS
    assert texts
    for name, secret in SECRETS.items():
        assert not [t for t in texts if secret in t], f"the {name} secret is in a task log"


def task_states(cli: AirflowCli, dag_id: str) -> dict[str, str]:
    runs = cli("dags", "list-runs", dag_id, "-o", "json")
    run_id = json.loads(last_json_line(runs.stdout))[0]["run_id"]
    listed = cli("tasks", "states-for-dag-run", dag_id, run_id, "-o", "json")
    return {t["task_id"]: t["state"] for t in json.loads(last_json_line(listed.stdout))}


def manifests(cli: AirflowCli) -> list[Path]:
    found = (Path(cli.env["JOBHARBOR_DATA_DIR"]) / "backfills").glob("*.json")
    return sorted(found, key=lambda p: p.stat().st_mtime_ns)  # oldest first


def test_reparse_dag_refuses_bad_params_previews_read_only_applies_and_refuses_changes(
    cli: AirflowCli, parsed_lever: App
) -> None:
    app = parsed_lever
    # Results "from an older parser": lever@0 with other titles, so lever@1 has work.
    with app.db.connect() as conn:
        conn.execute(
            """UPDATE core.parse_results SET parser_version = '0', title = 'old ' || title
               WHERE posting_id IN (SELECT id FROM core.postings WHERE source_id = 'lever')"""
        )
        conn.commit()
    postings = lever_versions(app)["0"]

    code, output = dags_test(cli, "jobharbor_backfill_reparse", {"source": "lever", "limit": 10**6})
    assert code != 0
    assert "limit" in output
    assert "maximum" in output
    code, output = dags_test(cli, "jobharbor_backfill_reparse", {"source": "lever"})
    assert code != 0  # limit is required

    before = table_snapshot(app.db)
    code, output = dags_test(cli, "jobharbor_backfill_reparse", {"source": "lever", "limit": 500})
    assert code == 0, output[-4000:]
    assert table_snapshot(app.db) == before  # the preview wrote nothing
    assert task_states(cli, "jobharbor_backfill_reparse") == {
        "plan": "success", "route": "success", "approval": "skipped", "decision": "skipped",
        "no_approval": "skipped", "apply": "skipped",
    }  # fmt: skip
    (preview,) = manifests(cli)
    manifest = json.loads(preview.read_text())
    assert len(manifest["items"]) == postings
    assert manifest["sample"][0]["changes"]["title"][0].startswith("old ")

    code, output = dags_test(
        cli, "jobharbor_backfill_reparse", {"source": "lever", "limit": 500, "dry_run": False}
    )
    assert code == 0, output[-4000:]
    assert task_states(cli, "jobharbor_backfill_reparse")["apply"] == "success"
    assert lever_versions(app) == {"1": postings}

    # Every posting is at the current parser now: a preview finds nothing, says why, and
    # the run ends there even though it asked for an approved apply.
    conf = {"source": "lever", "limit": 500, "dry_run": False, "approve": True}
    code, output = dags_test(cli, "jobharbor_backfill_reparse", conf)
    assert code == 0, output[-4000:]
    assert task_states(cli, "jobharbor_backfill_reparse") == {
        "plan": "success", "route": "success", "approval": "skipped", "decision": "skipped",
        "no_approval": "skipped", "apply": "skipped",
    }  # fmt: skip
    why = f"0 postings to re-parse: all {postings} matching postings are already at parser lever@1"
    assert f"nothing to apply: {why}" in output
    assert json.loads(manifests(cli)[-1].read_text())["why_empty"] == why
    assert lever_versions(app) == {"1": postings}

    # A preview, then the data changes, then an apply of that preview: refused, no retry.
    with app.db.connect() as conn:
        conn.execute("UPDATE core.parse_results SET parser_version = '0.9' WHERE is_current")
        conn.commit()
    code, _ = dags_test(cli, "jobharbor_backfill_reparse", {"source": "lever", "limit": 500})
    assert code == 0
    stale = manifests(cli)[-1]
    first = json.loads(stale.read_text())["items"][0]
    with app.db.connect() as conn:
        conn.execute(
            """UPDATE core.postings SET content_raw_sha256 = (
                   SELECT sha256 FROM crawl.raw_objects WHERE sha256 <> %s LIMIT 1) WHERE id = %s""",
            (first[1], first[0]),
        )
        conn.commit()
    conf = {"source": "lever", "limit": 500, "dry_run": False, "manifest": str(stale)}
    code, output = dags_test(cli, "jobharbor_backfill_reparse", conf)
    assert "the selection changed since the preview" in output
    states = task_states(cli, "jobharbor_backfill_reparse")
    assert states["apply"] == "failed"
    assert run_states(cli, "jobharbor_backfill_reparse")[0] == "failed"
    assert lever_versions(app) == {"0.9": postings}


def test_check_sync_and_enrich_dags_preview_and_apply(cli: AirflowCli, parsed_lever: App) -> None:
    app = parsed_lever
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE core.postings SET status = 'missing' WHERE id = (SELECT min(id) FROM core.postings)"
        )
        conn.commit()
    for dag_id, conf in (
        ("jobharbor_backfill_check", {"source": "lever", "status": "missing", "limit": 10}),
        ("jobharbor_backfill_sync", {"limit": 1000}),
        ("jobharbor_backfill_enrich", {"source": "lever", "limit": 10}),
    ):
        code, output = dags_test(cli, dag_id, conf)
        assert code == 0, output[-4000:]
        assert task_states(cli, dag_id)["apply"] == "skipped"
    check, sync, enrich = manifests(cli)[-3:]  # written in this order
    assert [json.loads(p.read_text())["kind"] for p in (check, sync, enrich)] == [
        "check", "sync", "enrich",
    ]  # fmt: skip

    code, output = dags_test(cli, "jobharbor_backfill_check", {
        "source": "lever", "status": "missing", "limit": 10, "dry_run": False})  # fmt: skip
    assert code == 0, output[-4000:]
    with app.db.connect() as conn:
        attempts = conn.execute(
            "SELECT count(*) AS n FROM crawl.fetch_attempts WHERE outcome LIKE 'check_%%'"
        ).fetchone()["n"]
    assert attempts == 1  # the one missing posting was checked directly

    code, output = dags_test(cli, "jobharbor_backfill_sync", {"limit": 1000, "dry_run": False})
    assert code == 0, output[-4000:]
    with app.serving_db.connect() as conn:
        published = conn.execute("SELECT count(*) AS n FROM serving.jobs").fetchone()["n"]
    assert published == json.loads(sync.read_text())["counts"]["source_rows"] > 0

    code, output = dags_test(cli, "jobharbor_backfill_enrich", {
        "source": "lever", "limit": 10, "dry_run": False})  # fmt: skip
    # The apply task ran the real enrichment entry point (its outcome is the enrichment's).
    assert task_states(cli, "jobharbor_backfill_enrich")["apply"] in {"success", "failed"}
    assert_no_secret_in_logs(cli)


def _raw_states(app: App) -> dict[str, int]:
    with app.db.connect() as conn:
        rows = conn.execute(
            "SELECT state, count(*) AS n FROM crawl.raw_objects GROUP BY 1"
        ).fetchall()
    return {r["state"]: r["n"] for r in rows}


def test_raw_cleanup_and_freshness_dags_in_both_modes(cli: AirflowCli, parsed_lever: App) -> None:
    app = parsed_lever
    code, output = dags_test(cli, "jobharbor_backfill_sync", {"limit": 1000, "dry_run": False})
    assert code == 0, output[-4000:]
    code, output = dags_test(cli, "jobharbor_freshness", {})
    assert code == 0, output[-4000:]
    assert "freshness (raw object -> searchable row):" in output
    code, output = dags_test(cli, "jobharbor_freshness", {"max_lag_s": 0.001})
    assert code != 0
    # One short line says what failed; each source's figures are in the log group below it.
    assert "freshness: 1 source stale over 0.001 s (lever " in output
    assert "::group::over the threshold (" in output
    assert "lever: lag_p95_s = " in output
    assert run_states(cli, "jobharbor_freshness")[0] == "failed"

    with app.db.connect() as conn:  # old listings of closed postings, no longer the newest
        conn.execute("UPDATE crawl.raw_objects SET fetched_at = now() - interval '90 days'")
        conn.execute("UPDATE core.postings SET status = 'expired'")
        conn.execute("UPDATE crawl.scans SET raw_sha256 = NULL")
        conn.commit()
    ready = _raw_states(app)["ready"]
    code, output = dags_test(cli, "jobharbor_raw_cleanup", {})
    assert code == 0, output[-4000:]
    assert f"raw cleanup would free {ready} objects" in output
    assert _raw_states(app) == {"ready": ready}  # the dry run deleted nothing
    code, output = dags_test(cli, "jobharbor_raw_cleanup", {"dry_run": False})
    assert code == 0, output[-4000:]
    assert _raw_states(app) == {"deleted": ready}
    assert not list(
        (Path(cli.env["JOBHARBOR_RAW_STORE_URL"].removeprefix("file://"))).rglob("*.json")
    )
    assert_no_secret_in_logs(cli)
