"""Names say what a thing does, not when it was built: no issue numbers in code, SQL,
templates, docs or test names, and no `_next` modules or functions (a milestone's
name outlives the milestone and misleads the next reader)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHECKED_SUFFIXES = (".py", ".sql", ".html", ".js", ".css", ".md", ".yaml", ".yml", ".toml", ".sh")
# "issue 14", "issue #14", "issue_14", "Issue-14": a tracker number standing in for a reason.
ISSUE_NUMBER = re.compile(r"(?<![a-z])issue[ _#-]*#?\d+", re.IGNORECASE)
# A module or test named for the next milestone: `engine_next.py`, `def test_run_next(`
# (`has_next`, `call_next` and the like say what they do, and stay).
NEXT_NAME = re.compile(r"(?:^|/)\w+_next\.py$|\bdef\s+test_\w+_next\b|\bclass\s+\w+Next\b")


def tracked_files(root: Path) -> list[Path]:
    """The tracked files this rule reads; not this module, whose samples break it."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
    ).stdout.decode()
    own = Path(__file__).resolve()
    return [
        root / name
        for name in listed.split("\0")
        if name.endswith(CHECKED_SUFFIXES) and (root / name).resolve() != own
    ]


def history_in_names(root: Path, files: list[Path]) -> list[str]:
    """`file:line: text` of every issue number and every `_next` name in `files`."""
    found = []
    for path in files:
        relative = path.relative_to(root).as_posix()
        if NEXT_NAME.search(relative):
            found.append(f"{relative}: a module named for a milestone")
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if ISSUE_NUMBER.search(line) or NEXT_NAME.search(line):
                found.append(f"{relative}:{number}: {line.strip()[:100]}")
    return found


def test_no_issue_numbers_or_next_names_in_the_tree() -> None:
    assert history_in_names(REPO, tracked_files(REPO)) == []


def test_the_check_finds_issue_numbers_and_next_names(tmp_path: Path) -> None:
    samples = {
        "pipeline/crawl/engine_next.py": "x = 1\n",
        "pipeline/a.py": "# issue 14: the platforms next\n",
        "serving_sync/b.sql": "-- see Issue #9\n",
        "tests/test_c.py": "def test_issue_9_stays_open():\n    pass\n",
        "tests/test_d.py": "def test_fetch_next():\n    pass\n",
        "docs/e.md": "Fixed in issue-23.\n",
    }
    for name, text in samples.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = history_in_names(tmp_path, sorted(tmp_path.rglob("*.*")))
    assert {line.split(":")[0] for line in found} == set(samples)


def test_the_check_leaves_ordinary_words_alone(tmp_path: Path) -> None:
    path = tmp_path / "web" / "ok.py"
    path.parent.mkdir(parents=True)
    path.write_text(
        "# This issue is known: a page has_next when more rows follow.\n"
        "async def limit(request, call_next):\n    return await call_next(request)\n",
        encoding="utf-8",
    )
    assert history_in_names(tmp_path, [path]) == []
