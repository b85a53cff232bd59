"""The README's lifecycle walkthrough, run: the demo on the sandbox world, one board
advanced, three more runs; every line the README shows for a run is what that run
prints (timings aside)."""

from __future__ import annotations

import re

import httpx
import pytest

from pipeline.app import App
from pipeline.commands.demo import DEMO_BOARD, show_demo
from pipeline.settings import REPO_ROOT

README = REPO_ROOT / "README.md"
_BLOCK = re.compile(r"<!-- walkthrough -->\n```text\n(.*?)```\n<!-- /walkthrough -->", re.S)
_RUN = re.compile(r"^# run (\d+):")
# What varies from machine to machine: a phase's seconds, and the pointer after a count.
_TIMING = re.compile(r"\s+\[\d+\.\d+s\]$")
_POINTER = "  (details: jobharbor status)"


def readme_runs(text: str) -> dict[int, list[str]]:
    """The README's expected lines by run number (comments start a run or explain it)."""
    match = _BLOCK.search(text)
    assert match, "README.md has no <!-- walkthrough --> block"
    runs: dict[int, list[str]] = {}
    current = None
    for line in match.group(1).splitlines():
        if started := _RUN.match(line):
            current = runs.setdefault(int(started.group(1)), [])
        elif line.startswith("#") or not line.strip():
            continue
        else:
            assert current is not None, f"a walkthrough line before any '# run N:': {line!r}"
            current.append(line)
    return runs


def printed_lines(output: str) -> list[str]:
    return [_TIMING.sub("", line).replace(_POINTER, "") for line in output.splitlines()]


def test_the_readme_block_is_read_run_by_run() -> None:
    runs = readme_runs(
        "<!-- walkthrough -->\n```text\n# run 2: one\n  a line\n# why\nb line\n"
        "# run 3: two\nc line\n```\n<!-- /walkthrough -->"
    )
    assert runs == {2: ["  a line", "b line"], 3: ["c line"]}
    assert printed_lines("  x  [1.25s]\nstatus: 3 active  (details: jobharbor status)") == [
        "  x",
        "status: 3 active",
    ]


def test_the_readme_walkthrough_prints_what_the_readme_says(
    app: App, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = readme_runs(README.read_text(encoding="utf-8"))
    assert sorted(expected) == [2, 3, 4], "the README walks through runs 2 to 4"
    show_demo(app)  # run 1: everything new
    assert "408 published" in capsys.readouterr().out
    platform, token = DEMO_BOARD
    httpx.post(
        f"{app.settings.sandbox_url}/_sandbox/advance",
        params={"platform": platform, "token": token},
    ).raise_for_status()
    for run in (2, 3, 4):
        show_demo(app)
        printed = printed_lines(capsys.readouterr().out)
        missing = [line for line in expected[run] if line not in printed]
        assert not missing, (
            f"run {run} did not print, as the README says:\n"
            + "\n".join(missing)
            + "\n\nit printed:\n"
            + "\n".join(printed)
        )
