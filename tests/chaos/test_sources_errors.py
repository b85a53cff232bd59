"""A broken sources.yaml names the file, line, key and problem (docs/reliability.md §4):
duplicate keys, a schedule that is not a valid cron line, an unknown platform, and a
secret written inline (refused, and its value never echoed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import load_sources
from pipeline.errors import ConfigError

SECRET = "sk-live-4f9c2a7e1b"

CASES = {
    "duplicate source key": (
        "sources:\n  gh:\n    platform: greenhouse\n  gh:\n    platform: lever\n",
        "{f}:4: invalid YAML: duplicate key 'gh' (first defined on line 2)",
    ),
    "duplicate key inside a source": (
        "sources:\n  gh:\n    platform: greenhouse\n    platform: lever\n",
        "{f}:4: invalid YAML: duplicate key 'platform' (first defined on line 3)",
    ),
    # sources.yaml has no schedule key (schedules are the DAGs'): a cron line written
    # there is an unknown key on its line, never silently ignored.
    "bad cron": (
        "sources:\n  gh:\n    platform: greenhouse\n    schedule: '61 * * * *'\n",
        "{f}:4: sources.gh.schedule: schedule '61 * * * *': 61 is outside 0-59",
    ),
    "unknown platform": (
        "sources:\n  gh:\n    platform: greenhousee\n",
        "{f}:3: sources.gh.platform: unknown platform 'greenhousee'",
    ),
    # Secrets live in the environment only (pipeline.settings): an inline one is refused.
    "secret written inline": (
        f"sources:\n  gh:\n    platform: greenhouse\n    api_key: {SECRET}\n",
        "{f}:4: sources.gh.api_key: unknown key",
    ),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_a_broken_sources_file_names_file_line_key_and_problem(tmp_path: Path, case: str) -> None:
    text, expected = CASES[case]
    path = tmp_path / "sources.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_sources(path, env={})
    problems = caught.value.problems
    assert len(problems) == 1, problems
    assert problems[0].startswith(expected.replace("{f}", str(path))), problems
    assert SECRET not in str(caught.value)
