"""Counts of untyped rows in the phases, the crawl engine and the lifecycle.

Two measures, both by `ast` over the source tree:

- string-keyed subscripts of a database row, `board["id"]` or `row["status"]`: a row
  read from the store should be a frozen dataclass, reached by attribute, so a
  misspelt column fails in mypy rather than at run time;
- function signatures annotated with a loose mapping (`dict[str, Any]`,
  `Mapping[str, Any]`, `dict[str, object]` or a bare `dict`/`Mapping`), which say
  nothing of what the mapping holds.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

ROW_NAMES = frozenset({"board", "row"})
SUBSCRIPT_PACKAGES = ("pipeline/phases", "pipeline/crawl")
SIGNATURE_PACKAGES = ("pipeline/phases", "pipeline/crawl", "pipeline/lifecycle")
LOOSE = re.compile(r"\b(dict|Mapping)\[str, Any\]|^(dict|Mapping)$|\b(dict|Mapping)\[str, object\]")


def _files(root: Path, packages: Iterable[str]) -> Iterator[Path]:
    for package in packages:
        yield from sorted((root / package).rglob("*.py"))


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def row_subscripts(root: Path, packages: Iterable[str] = SUBSCRIPT_PACKAGES) -> list[str]:
    """`path:line name["key"]` for each string-keyed subscript of a row name."""
    found = []
    for path in _files(root, packages):
        for node in ast.walk(_tree(path)):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Name)
                and node.value.id in ROW_NAMES
                and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)
            ):
                where = path.relative_to(root)
                found.append(f"{where}:{node.lineno} {node.value.id}[{node.slice.value!r}]")
    return found


def _annotations(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.expr]:
    arguments = function.args
    for arg in [
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        *(a for a in (arguments.vararg, arguments.kwarg) if a is not None),
    ]:
        if arg.annotation is not None:
            yield arg.annotation
    if function.returns is not None:
        yield function.returns


def loose_signatures(root: Path, packages: Iterable[str] = SIGNATURE_PACKAGES) -> list[str]:
    """`path:line name` for each function with a loose mapping in its signature."""
    found = []
    for path in _files(root, packages):
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if any(LOOSE.search(ast.unparse(a)) for a in _annotations(node)):
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name}")
    return found
