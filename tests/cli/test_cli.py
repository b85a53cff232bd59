"""The `jobharbor` command as a newcomer meets it: help, checks, exit codes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.config import load_sources
from pipeline.settings import REPO_ROOT


def jobharbor(*args: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_help_lists_the_commands_a_newcomer_needs() -> None:
    result = jobharbor("--help")
    assert result.returncode == 0
    for command in ("sources", "db", "discover", "fetch", "parse", "sync", "run", "search", "demo"):
        assert f"    {command}" in result.stdout
    assert "JOBHARBOR_DATABASE_URL" in result.stdout


@pytest.mark.parametrize(
    "command", ["discover", "fetch", "parse", "sync", "sources check", "db url"]
)
def test_every_command_has_help(command: str) -> None:
    result = jobharbor(*command.split(), "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: jobharbor")


def test_sources_check_passes_on_the_shipped_files(capsys: pytest.CaptureFixture[str]) -> None:
    sandbox_sources = load_sources(REPO_ROOT / "sandbox" / "sources.yaml", env={}).sources
    assert main(["sources", "check", str(REPO_ROOT / "sandbox" / "sources.yaml")]) == 0
    out = capsys.readouterr().out
    count = len(sandbox_sources)
    assert f"OK: {count} sources ({count} enabled)" in out
    assert "greenhouse" in out
    assert "vieclam" in out


def test_sources_check_fails_with_every_problem_and_exit_code_2(tmp_path: Path) -> None:
    bad = tmp_path / "sources.yaml"
    bad.write_text(
        "sources:\n  gh:\n    platform: greenhouse\n    boardz: [a]\n    pacing: {burst: 0, rate_per_s: 1}\n"
    )
    result = jobharbor("sources", "check", str(bad))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "configuration error:",
        f"  {bad}:4: sources.gh.boardz: unknown key (allowed: api_base, boards, display_name, enabled, exclude_titles, pacing, parser, platform, robots, schedule, transport, validation)",
        f"  {bad}:5: sources.gh.pacing.burst: Input should be greater than or equal to 1",
    ]


def test_unknown_source_is_a_clear_error(
    app, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.setenv("JOBHARBOR_DATABASE_URL", app.db.url)
    monkeypatch.setenv("JOBHARBOR_SERVING_DATABASE_URL", app.serving_db.url)
    assert main(["--sources", str(app.sources.path), "discover", "--source", "nope"]) == 2
    known = ", ".join(app.sources.sources)
    assert f"no source named 'nope' (known: {known})" in capsys.readouterr().err


def test_run_then_search_from_the_command_line(
    app, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.setenv("JOBHARBOR_DATABASE_URL", app.db.url)
    monkeypatch.setenv("JOBHARBOR_SERVING_DATABASE_URL", app.serving_db.url)
    monkeypatch.setenv("JOBHARBOR_RAW_STORE_URL", app.settings.effective_raw_store_url)
    monkeypatch.setenv("JOBHARBOR_ALLOW_PRIVATE_NETWORKS", "true")
    assert main(["--sources", str(app.sources.path), "run", "--force"]) == 0
    out = capsys.readouterr().out
    assert "discover greenhouse: succeeded" in out
    assert "sync: succeeded" in out
    assert main(["search", "engineer", "--limit", "3"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3
    sources = set(app.sources.sources)
    assert all(line.rsplit("[", 1)[-1].rstrip("]") in sources for line in lines)
    assert main(["sync", "--dry-run"]) == 0
    assert "inserted=0, updated=0, removed=0" in capsys.readouterr().out
