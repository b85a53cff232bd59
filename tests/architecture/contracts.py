"""The layout's contracts, checked from source with `ast` (nothing is imported).

Each check takes a repository root, so the tests run it on the real tree and on a
small tree in tmp_path that breaks a rule on purpose.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

FIRST_PARTY = ("pipeline", "parsers", "serving_sync", "sandbox", "dags", "web")
# What "a database module" means for the pure rules: a driver or ORM, or our own
# database package or any module that stores rows (they all import one of these).
DATABASE_MODULES = ("psycopg", "psycopg_pool", "sqlalchemy", "alembic", "pipeline.db")
# Pure decision modules: they may not reach a database module, even indirectly.
PURE_MODULES = (
    "pipeline.lifecycle.rules",
    "pipeline.lifecycle.check_rules",
    "pipeline.lifecycle.identity",
    "pipeline.crawl.schedule",
)
# Composition roots for local development that start the sandbox job web: the demo,
# the Airflow environment of `make up`, and the CLI's `sandbox` commands.
SANDBOX_USERS = frozenset({"pipeline.commands.demo", "pipeline.airflow.env", "pipeline.cli"})
# `jobharbor web` starts the web app: the CLI is the one composition root that may load it
# (inside the command, never at import), as it may start the sandbox.
WEB_USERS = frozenset({"pipeline.cli"})
MAX_FUNCTION_LINES = 60
# argparse set-up reads best as one block; nothing else is exempt.
LONG_FUNCTIONS_ALLOWED = frozenset({("pipeline.cli", "build_parser")})


@dataclass(frozen=True)
class ImportSite:
    module: str  # the importing module
    target: str  # what it imports, absolute (a module, or module.name)
    line: int
    module_level: bool  # runs at import (not inside a function)
    type_checking: bool = False  # only under `if TYPE_CHECKING:` (never runs)


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def python_files(root: Path, top: str) -> Iterator[Path]:
    base = root / top
    if base.is_file():
        yield base
    elif base.is_dir():
        yield from sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def imports_of(root: Path, path: Path, *, type_checking: bool = False) -> list[ImportSite]:
    """Every import in a file, with whether it runs at import time; imports under
    `if TYPE_CHECKING:` are skipped unless `type_checking` (then they are marked)."""
    module = module_name(root, path)
    is_package = path.name == "__init__.py"
    sites: list[ImportSite] = []

    def visit(node: ast.AST, module_level: bool, typing_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                if type_checking:
                    for body in child.body:
                        visit_one(body, module_level, True)
                for other in child.orelse:
                    visit_one(other, module_level, typing_only)
                continue
            visit_one(child, module_level, typing_only)

    def visit_one(child: ast.AST, module_level: bool, typing_only: bool) -> None:
        if isinstance(child, ast.Import):
            for alias in child.names:
                sites.append(
                    ImportSite(module, alias.name, child.lineno, module_level, typing_only)
                )
        elif isinstance(child, ast.ImportFrom):
            base = _absolute(module, is_package, child)
            for alias in child.names:
                target = f"{base}.{alias.name}" if alias.name != "*" else base
                sites.append(ImportSite(module, target, child.lineno, module_level, typing_only))
        inner = module_level and not isinstance(
            child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
        )
        visit(child, inner, typing_only)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), True, False)
    return sites


def within(target: str, prefix: str) -> bool:
    return target == prefix or target.startswith(prefix + ".")


def all_imports(
    root: Path, tops: Iterable[str] = FIRST_PARTY, *, type_checking: bool = False
) -> dict[str, list[ImportSite]]:
    return {
        module_name(root, path): imports_of(root, path, type_checking=type_checking)
        for top in tops
        for path in [*python_files(root, top), *python_files(root, f"{top}.py")]
    }


# ---------------------------------------------------------------- the rules


def parsers_import_no_pipeline(root: Path) -> list[str]:
    return [
        f"{s.module}:{s.line} imports {s.target}"
        for sites in all_imports(root, ["parsers"]).values()
        for s in sites
        if within(s.target, "pipeline")
    ]


def pipeline_imports_no_outer_layer(root: Path) -> list[str]:
    """Nothing under pipeline/ imports dags/, web/ or sandbox/ (but the dev composition roots
    may start the sandbox, and the CLI's `web` command the web app, inside the command)."""
    return [
        f"{s.module}:{s.line} imports {s.target}"
        for sites in all_imports(root, ["pipeline"]).values()
        for s in sites
        if _outer(s)
    ]


def _outer(site: ImportSite) -> bool:
    if within(site.target, "dags"):
        return True
    if within(site.target, "web"):
        return site.module not in WEB_USERS or site.module_level
    return within(site.target, "sandbox") and site.module not in SANDBOX_USERS


# What a DAG file may import of ours at module level: the sources and settings, and the
# alert callbacks and deadline (Airflow needs the callables when it parses the DAG; the
# module imports only the standard library and settings, Airflow's own parts lazily).
DAG_IMPORTS = ("pipeline.config", "pipeline.airflow.alerts")


def dags_import_only_config(root: Path) -> list[str]:
    """At module level a DAG file imports nothing of ours but DAG_IMPORTS."""
    return [
        f"{s.module}:{s.line} imports {s.target} at module level"
        for sites in all_imports(root, ["dags"]).values()
        for s in sites
        if s.module_level
        and any(within(s.target, top) for top in FIRST_PARTY)
        and not any(within(s.target, allowed) for allowed in DAG_IMPORTS)
    ]


def resolve_module(target: str, modules: set[str]) -> str | None:
    """The first-party module an import loads (longest known prefix)."""
    parts = target.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in modules:
            return candidate
    return None


def _loads(module: str, graph: dict[str, list[ImportSite]]) -> set[str]:
    """Modules importing `module` executes directly: its imports and its parent packages."""
    modules = set(graph)
    loaded = {m for s in graph.get(module, []) if (m := resolve_module(s.target, modules))}
    parts = module.split(".")
    loaded |= {".".join(parts[:n]) for n in range(1, len(parts))} & modules
    return loaded


def reaches_database(root: Path, start: str) -> list[str] | None:
    """The import chain from `start` to a database module, or None if there is none."""
    graph = all_imports(root)
    chains: dict[str, list[str]] = {start: [start]}
    todo = [start]
    while todo:
        module = todo.pop()
        for site in graph.get(module, []):
            if any(within(site.target, db) for db in DATABASE_MODULES):
                return [*chains[module], site.target]
        for nxt in sorted(_loads(module, graph)):
            if nxt not in chains:
                chains[nxt] = [*chains[module], nxt]
                todo.append(nxt)
    return None


def pure_modules_reach_no_database(root: Path, modules: Iterable[str] = PURE_MODULES) -> list[str]:
    found = []
    for module in modules:
        chain = reaches_database(root, module)
        if chain is not None:
            found.append(" -> ".join(chain))
    return found


def long_functions(root: Path, top: str = "pipeline") -> list[str]:
    found = []
    for path in python_files(root, top):
        module = module_name(root, path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MAX_FUNCTION_LINES and (module, node.name) not in LONG_FUNCTIONS_ALLOWED:
                found.append(f"{module}.{node.name}: {lines} lines")
    return found


_SQL_WORDS = ("SELECT ", "INSERT ", "UPDATE ", "DELETE ", " WHERE ", " FROM ", " SET ")


def _constant(node: ast.expr) -> bool:
    """A module constant (UPPER_CASE name, possibly module.UPPER_CASE)."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return isinstance(node, ast.Name | ast.Attribute) and name.lstrip("_").isupper()


def sql_fstrings(root: Path, top: str = "pipeline/phases") -> list[str]:
    """f-strings that look like SQL and interpolate anything but a constant."""
    found = []
    for path in python_files(root, top):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.JoinedStr):
                continue
            text = "".join(
                v.value
                for v in node.values
                if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
            if not any(word in f" {text} " for word in _SQL_WORDS):
                continue
            for value in node.values:
                if isinstance(value, ast.FormattedValue) and not _constant(value.value):
                    found.append(
                        f"{module_name(root, path)}:{node.lineno} interpolates {ast.unparse(value.value)}"
                    )
    return found


# A statement starts with one of these (upper case, as all our SQL is written); prose
# in messages ("Insert the result") and docstrings do not count.
_SQL_START = re.compile(r"(SELECT|INSERT|UPDATE|DELETE|WITH)\b")


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the docstring constants of a module and its classes and functions."""
    owners = [tree, *(n for n in ast.walk(tree) if isinstance(n, _DOC_OWNERS))]
    return {
        id(body[0].value)
        for body in (owner.body for owner in owners)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    }


_DOC_OWNERS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _sql_text(node: ast.AST) -> str | None:
    """The literal text of a string or f-string (its constant parts), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        # Only an f-string that starts with literal text can start with a statement.
        return "".join(
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        )
    return None


def phase_sql(root: Path, top: str = "pipeline/phases") -> list[str]:
    """SQL written in a phase module: a string constant (module-level or inline) or an
    f-string that starts with a statement. A phase's SQL lives in the store module named
    for what it stores (pipeline/crawl/*_store.py, pipeline/lifecycle/*store.py, ...)."""
    found = []
    for path in python_files(root, top):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree) | {
            id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values
        }
        hits = sorted(
            (node.lineno, "an f-string" if isinstance(node, ast.JoinedStr) else "a string")
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant | ast.JoinedStr)
            and id(node) not in skip
            and _SQL_START.match((_sql_text(node) or "").strip())
        )
        found += [f"{module_name(root, path)}:{line} SQL in {kind}" for line, kind in hits]
    return found
