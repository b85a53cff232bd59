"""The environment is read only by the settings modules and the test hooks: everywhere
else a setting arrives as a value, so what configures a run is in one place per part."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHECKED = ("pipeline", "serving_sync", "web", "dags", "parsers", "sandbox")
# Settings modules (pydantic-settings classes and the few reads beside them) and the
# kill points the crash drills arm through the environment.
ALLOWED = frozenset(
    {
        "pipeline/settings.py",
        "pipeline/enrich/settings.py",
        "pipeline/airflow/settings.py",
        "web/settings.py",
        "pipeline/testhooks.py",
    }
)


def environment_reads(root: Path, allowed: frozenset[str] = ALLOWED) -> list[str]:
    """`file:line` of every `os.environ`, `os.getenv` or `environ` (from os) outside the
    allowed modules."""
    found = []
    for package in CHECKED:
        for path in sorted((root / package).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            if relative in allowed:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
            names = _os_names(tree)
            for node in ast.walk(tree):
                if _reads_environment(node, names):
                    found.append(f"{relative}:{node.lineno}")
    return sorted(set(found))


def _os_names(tree: ast.AST) -> set[str]:
    """The names `os` goes by in a module (`import os`, `import os as system`)."""
    names = {"os"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname or a.name for a in node.names if a.name == "os"}
    return names


def _reads_environment(node: ast.AST, os_names: set[str]) -> bool:
    if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv"):
        return isinstance(node.value, ast.Name) and node.value.id in os_names
    if isinstance(node, ast.ImportFrom) and node.module == "os":
        return any(alias.name in ("environ", "getenv", "putenv") for alias in node.names)
    return False


def test_only_settings_modules_and_test_hooks_read_the_environment() -> None:
    assert environment_reads(REPO) == []


def test_every_allowed_module_exists() -> None:
    """An allowed name left behind by a move would let a new module read freely."""
    assert all((REPO / name).is_file() for name in ALLOWED)


def test_a_read_outside_the_settings_is_named_with_its_line(tmp_path: Path) -> None:
    for package in CHECKED:
        (tmp_path / package).mkdir()
    (tmp_path / "pipeline" / "settings.py").write_text("import os\nX = os.environ['A']\n")
    (tmp_path / "pipeline" / "phase.py").write_text(
        "import os\n\n\ndef f():\n    return os.environ.get('A')\n"
    )
    (tmp_path / "web" / "page.py").write_text("from os import getenv\n")
    (tmp_path / "dags" / "dag.py").write_text("import os\nos.getenv('B')\n")
    (tmp_path / "sandbox" / "alias.py").write_text("import os as system\nsystem.environ['C']\n")
    assert environment_reads(tmp_path, frozenset({"pipeline/settings.py"})) == [
        "dags/dag.py:2",
        "pipeline/phase.py:5",
        "sandbox/alias.py:2",
        "web/page.py:1",
    ]
