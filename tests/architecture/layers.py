"""The layers inside `pipeline/`, and the import rules that keep them, checked with `ast`.

A unit is a first-level module or package of `pipeline` (`pipeline.crawl`,
`pipeline.app`, ...) or another first-party top-level package (`parsers`,
`serving_sync`, `web`). `LAYERS` lists them lowest first; a unit may import its own
layer and the layers below, never one above. A lower layer takes what it needs as
arguments (or as a `Protocol` it declares); it never reaches for the one that calls it.

Run `python -m tests.architecture.layers [ROOT]` for the figures and every offender.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.architecture.contracts import (
    ImportSite,
    all_imports,
    python_files,
    resolve_module,
    within,
)

# Lowest first. Peers share a layer: they may import each other one way (never both).
LAYERS: tuple[tuple[str, ...], ...] = (
    # pure parsers: bytes in, frozen dataclasses out
    ("parsers",),
    # error types, the test hooks, the platform names, Workday's board tokens and the
    # progress helper every layer may use
    (
        "pipeline.errors",
        "pipeline.testhooks",
        "pipeline.platform_names",
        "pipeline.workday_sites",
        "pipeline.progress",
    ),
    # the environment and sources.yaml, validated
    ("pipeline.settings", "pipeline.config"),
    # connections, the embedded cluster, the schema, migrations
    ("pipeline.db",),
    # stores and pure rules over one database: raw objects, locations, lifecycle, enrichment
    ("pipeline.rawstore", "pipeline.normalize", "pipeline.lifecycle", "pipeline.enrich"),
    # asking hosts (queue, pacing, fetcher, platforms) and the serving schema with its reconcile
    ("pipeline.crawl", "serving_sync"),
    # the composition root: settings -> databases, raw store, parsers, fetcher
    ("pipeline.app",),
    # discover, fetch, parse, check, enrich, sync: thin I/O around the pure parts
    ("pipeline.phases",),
    # re-parse, re-check, re-enrich, re-sync and raw cleanup: preview first, then apply
    ("pipeline.backfill",),
    # operator commands and what the Airflow tasks call
    ("pipeline.commands", "pipeline.airflow"),
    # entry points: the `jobharbor` command and the web app
    ("pipeline.cli", "pipeline.__main__", "web"),
)
# Where the cycle and mutual-import rules look (tests/ and bench/ are outside the layers).
SCANNED = ("pipeline", "parsers", "serving_sync", "web", "sandbox", "dags")
# A function-level import of pipeline's own modules is an exception, each one commented.
MAX_FUNCTION_LEVEL = 15


def layer_of(unit: str) -> int | None:
    return next((n for n, units in enumerate(LAYERS) if unit in units), None)


def unit_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "pipeline" and len(parts) > 1 else parts[0]


@dataclass(frozen=True)
class Edge:
    site: ImportSite
    target: str  # the first-party module the import loads

    def __str__(self) -> str:
        return f"{self.site.module}:{self.site.line} imports {self.site.target}"


def edges(root: Path, tops: Iterable[str] = SCANNED, *, type_checking: bool = False) -> list[Edge]:
    """Imports between two different first-party modules (by the module each one loads)."""
    graph = all_imports(root, tops, type_checking=type_checking)
    modules = set(graph)
    found = []
    for module, sites in graph.items():
        for site in sites:
            target = resolve_module(site.target, modules)
            if target is not None and target != module:
                found.append(Edge(site, target))
    return found


# ---------------------------------------------------------------- the rules


def climbing_imports(root: Path) -> list[str]:
    """Imports (module- or function-level, or for type checking only) into a higher layer,
    and pipeline units no layer declares."""
    found = []
    for edge in _statements(edges(root, type_checking=True)):
        low, high = layer_of(unit_of(edge.site.module)), layer_of(unit_of(edge.target))
        if low is not None and high is not None and high > low:
            found.append(f"{edge} ({unit_of(edge.site.module)} is below {unit_of(edge.target)})")
    units = {unit_of(module_name) for module_name in _modules(root, "pipeline")} - {"pipeline"}
    found += [
        f"{unit} is in no layer (add it to LAYERS)"
        for unit in sorted(units)
        if layer_of(unit) is None
    ]
    return found


def mutual_packages(root: Path) -> list[str]:
    """Pairs of units that import each other at module level, with the imports each way."""
    by_pair: dict[tuple[str, str], list[Edge]] = defaultdict(list)
    for edge in edges(root):
        a, b = unit_of(edge.site.module), unit_of(edge.target)
        if edge.site.module_level and a != b:
            by_pair[(a, b)].append(edge)
    return [
        f"{a} <-> {b}: {by_pair[(a, b)][0]}; {by_pair[(b, a)][0]}"
        for a, b in sorted(by_pair)
        if a < b and (b, a) in by_pair
    ]


def import_cycles(root: Path) -> list[str]:
    """Modules that import each other round a loop, at module or function level (a cycle a
    function-level import holds together is still a cycle): one loop per group."""
    graph: dict[str, set[str]] = defaultdict(set)
    for edge in edges(root):
        graph[edge.site.module].add(edge.target)
    return [" -> ".join(_loop(group, graph)) for group in _strong_groups(graph)]


def private_imports(root: Path) -> list[str]:
    """`from module import _name` across first-party modules (bench/ included): a private
    name is the business of its own module."""
    found = []
    for edge in edges(root, [*SCANNED, "bench"], type_checking=True):
        name = edge.site.target.rsplit(".", 1)[-1]
        if name.startswith("_") and not name.startswith("__") and edge.target != edge.site.target:
            found.append(str(edge))
    return found


def function_level_imports(root: Path) -> list[Edge]:
    """Import statements inside functions under pipeline/ that load pipeline's own modules
    (one per statement)."""
    return _statements(
        e
        for e in edges(root, ["pipeline"])
        if not e.site.module_level and within(e.target, "pipeline")
    )


def function_level_problems(root: Path, limit: int = MAX_FUNCTION_LEVEL) -> list[str]:
    """More function-level imports than `limit`, or one without a comment saying why (on
    its line or the line above)."""
    sites = function_level_imports(root)
    found = [f"{len(sites)} function-level imports of pipeline modules (at most {limit})"]
    found = found if len(sites) > limit else []
    for edge in sites:
        lines = _source(root, edge.site.module)
        here, above = lines[edge.site.line], lines[edge.site.line - 1].strip()
        if "#" not in here and not above.startswith("#"):
            found.append(f"{edge}: a function-level import without a comment saying why")
    return found


# ---------------------------------------------------------------- the figures


def pipeline_lines(root: Path) -> int:
    return sum(
        len(p.read_text(encoding="utf-8").splitlines()) for p in python_files(root, "pipeline")
    )


def figures(root: Path) -> dict[str, float]:
    lines = pipeline_lines(root)
    function_level = len(function_level_imports(root))
    return {
        "climbing imports": len(climbing_imports(root)),
        "mutual package pairs": len(mutual_packages(root)),
        "import cycles": len(import_cycles(root)),
        "private names across modules": len(private_imports(root)),
        "function-level imports of pipeline modules": function_level,
        "  per 1,000 lines": round(1000 * function_level / lines, 2),
        "pipeline lines": lines,
    }


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(__file__).resolve().parents[2]
    checks = {
        "climbing": climbing_imports,
        "mutual": mutual_packages,
        "cycles": import_cycles,
        "private": private_imports,
        "function-level": lambda r: [str(e) for e in function_level_imports(r)],
    }
    for name, check in checks.items():
        for problem in check(root):
            print(f"{name}: {problem}")
    for name, value in figures(root).items():
        print(f"{name:45} {value}")
    return 0


# ---------------------------------------------------------------- helpers


def _statements(found: Iterable[Edge]) -> list[Edge]:
    """One edge per import statement and target unit (`from x import a, b` is one import)."""
    seen: dict[tuple[str, int, str], Edge] = {}
    for edge in found:
        seen.setdefault((edge.site.module, edge.site.line, unit_of(edge.target)), edge)
    return sorted(seen.values(), key=lambda e: (e.site.module, e.site.line))


def _modules(root: Path, top: str) -> list[str]:
    return sorted(all_imports(root, [top]))


def _source(root: Path, module: str) -> list[str]:
    base = root / module.replace(".", "/")
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    return ["", *path.read_text(encoding="utf-8").splitlines()]


def _strong_groups(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of two or more modules (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def _loop(group: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest loop from the group's first module back to itself, inside the group."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    todo = [start]
    while todo:
        node = todo.pop(0)
        for nxt in sorted(graph[node] & members):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                todo.append(nxt)
    return group  # unreachable for a strongly connected group


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
