"""`jobharbor backfill ...` and `jobharbor raw cleanup`: a preview prints its manifest
path, an apply of it succeeds; progress is a bar on a terminal and rate-limited plain
lines otherwise."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from pipeline.app import App
from pipeline.cli import main
from pipeline.progress import Progress


@pytest.fixture
def cli_env(parsed_lever: App, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> App:
    settings = parsed_lever.settings
    monkeypatch.setenv("JOBHARBOR_DATABASE_URL", settings.database_url.get_secret_value())
    monkeypatch.setenv(
        "JOBHARBOR_SERVING_DATABASE_URL", settings.serving_database_url.get_secret_value()
    )
    monkeypatch.setenv("JOBHARBOR_RAW_STORE_URL", settings.effective_raw_store_url)
    monkeypatch.setenv("JOBHARBOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("JOBHARBOR_SOURCES", str(settings.sources_file))
    return parsed_lever


def test_reparse_preview_then_apply_from_the_cli(cli_env: App, capsys) -> None:
    with cli_env.db.connect() as conn:
        conn.execute("UPDATE core.parse_results SET parser_version = '0'")
        conn.commit()
    assert main(["backfill", "reparse", "--source", "lever"]) == 2  # --limit is required
    assert "needs --limit" in capsys.readouterr().err
    assert main(["backfill", "reparse", "--source", "lever", "--limit", "100", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "reparse backfill: " in out
    (path,) = re.findall(r"^manifest: (\S+)$", out, re.M)
    assert main(["backfill", "reparse", "--apply", path]) == 0
    assert "parse lever: succeeded" in capsys.readouterr().out


def test_a_check_preview_needs_its_status_and_its_apply_needs_only_the_manifest(
    cli_env: App, capsys
) -> None:
    assert main(["backfill", "check", "--source", "lever", "--limit", "10"]) == 2
    assert "needs --status" in capsys.readouterr().err
    preview = ["backfill", "check", "--source", "lever", "--status", "active", "--limit", "10"]
    assert main([*preview, "--active-days", "0"]) == 0
    (path,) = re.findall(r"^manifest: (\S+)$", capsys.readouterr().out, re.M)
    assert main(["backfill", "check", "--apply", path]) == 0
    out = capsys.readouterr().out
    assert "'status': 'succeeded'" in out
    assert int(re.search(r"'checked': (\d+)", out).group(1)) > 0  # the manifest's postings


def test_limit_above_the_cap_is_refused(cli_env: App, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["backfill", "reparse", "--source", "lever", "--limit", "50001"])
    assert "must be between 1 and 50000" in capsys.readouterr().err


def test_raw_cleanup_is_a_dry_run_unless_applied(cli_env: App, capsys) -> None:
    assert main(["raw", "cleanup"]) == 0
    out = capsys.readouterr().out
    assert "raw cleanup would free 0 objects, 0 bytes" in out
    assert "dry run: nothing deleted" in out
    assert main(["raw", "cleanup", "--apply"]) == 0
    assert "raw cleanup freed 0 objects" in capsys.readouterr().out


def test_progress_is_a_bar_on_a_terminal_and_plain_lines_in_logs() -> None:
    tty = io.StringIO()
    bar = Progress("reparse", 4, stream=tty, tty=True)
    for _ in range(4):
        bar.advance()
    assert "\r" in tty.getvalue()
    assert tty.getvalue().endswith("[##############################] 4/4 100%\n")

    log = io.StringIO()
    lines = Progress("reparse", 1000, stream=log, tty=False, every_s=3600)
    for _ in range(1000):
        lines.advance()
    # The first line, then nothing for an hour, then the last: not 1000 lines.
    assert log.getvalue().count("\n") == 2
    assert "reparse: 1000/1000 done" in log.getvalue()
