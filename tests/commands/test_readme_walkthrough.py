"""The README's lifecycle walkthrough, run: the demo on the sandbox world (whose first
run plays one employer's take-down and closes that posting on evidence), one board
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


def _takedown_lines(text: str) -> list[str]:
    """The README's first-run lines from the take-down to the status line after it."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("an employer takes"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("postings by status"))
    return printed_lines("\n".join(lines[start : end + 1]))


# A posting's id depends on the database it lands in: the README shows the demo's.
_POSTING_ID = re.compile(r"(?<=posting )\d+|(?<=/jobs/)\d+")


def printed_lines(output: str) -> list[str]:
    return [
        _POSTING_ID.sub("ID", _TIMING.sub("", line).replace(_POINTER, ""))
        for line in output.splitlines()
    ]


def test_the_readme_block_is_read_run_by_run() -> None:
    runs = readme_runs(
        "<!-- walkthrough -->\n```text\n# run 2: one\n  a line\n# why\nb line\n"
        "# run 3: two\nc line\n```\n<!-- /walkthrough -->"
    )
    assert runs == {2: ["  a line", "b line"], 3: ["c line"]}
    assert printed_lines(
        "  x  [1.25s]\nstatus: 3 active  (details: jobharbor status)\n(posting 26) /jobs/26"
    ) == ["  x", "status: 3 active", "(posting ID) /jobs/ID"]


def test_the_readme_walkthrough_prints_what_the_readme_says(
    app: App, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = readme_runs(README.read_text(encoding="utf-8"))
    assert sorted(expected) == [2, 3, 4], "the README walks through runs 2 to 4"
    show_demo(app)  # run 1: everything new, then one employer takes a job down
    first = printed_lines(capsys.readouterr().out)
    assert "serving: 408 open postings: 408 published, 0 updated, 0 removed, 0 unchanged" in first
    taken = _takedown_lines(README.read_text(encoding="utf-8"))
    assert len(taken) == 6, taken  # the take-down, two polls, the check, the sync, status
    missing = [line for line in taken if line not in first]
    assert not missing, "run 1 did not close a posting as the README says:\n" + "\n".join(first)
    platform, token = DEMO_BOARD
    httpx.post(
        f"{app.settings.sandbox_url}/_sandbox/advance",
        params={"platform": platform, "token": token},
    ).raise_for_status()
    for run in (2, 3, 4):
        show_demo(app)
        printed = printed_lines(capsys.readouterr().out)
        missing = [line for line in expected[run] if line not in printed]
        assert not any(line.startswith("an employer takes") for line in printed), (
            f"run {run} took a second job down although one is closed already"
        )
        assert not missing, (
            f"run {run} did not print, as the README says:\n"
            + "\n".join(missing)
            + "\n\nit printed:\n"
            + "\n".join(printed)
        )
