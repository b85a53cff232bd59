"""The serving schema as files, read and put in order (no database here; serving_sync.schema
applies them).

- `migrations/NNNN_name.sql`: tables, indexes and data changes, frozen once released and
  applied once each, in order.
- `sql/<kind>/<name>.sql`: the one current definition of each function, view, trigger,
  role, grant and policy, written to be applied any number of times. A file is applied
  again when its text changes (its checksum), with everything that refers to it, in
  dependency order: the order comes from the names each file mentions.
"""

from __future__ import annotations

import hashlib
import heapq
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import FatalError
from serving_sync.text import FOLD_FROM, FOLD_TO, sql_literal

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
OBJECTS_DIR = Path(__file__).parent / "sql"
# The first migration. A database built by the numbered files it replaced recorded
# versions 1..13 and is at it; one that stopped before 13 cannot be upgraded from here.
BASELINE = 13
# The kinds of object file, in the order they are applied where no reference orders them.
KINDS = ("roles", "functions", "views", "triggers", "policies", "grants")
# The names a file of these kinds gives others to refer to (`serving.<name>`, or the
# role's own name).
_QUALIFIED = frozenset({"functions", "views"})
# Applied whenever anything else is: a function created again by DROP + CREATE has lost
# its grants (the default privileges say nothing of the web role).
AFTER_ANY_CHANGE = frozenset({"grants"})

_MIGRATION_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
_OBJECT_NAME = re.compile(r"^([a-z0-9_]+)\.sql$")
_COMMENT = re.compile(r"--[^\n]*")
# A name, schema-qualified or not, not part of a longer one (`serving.web_facet` is not in
# `serving.web_facet_bits`, nor in `j.serving`).
_IDENTIFIER = re.compile(r"(?<![\w.$])([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?)(?![\w$])")


class SchemaError(FatalError):
    """The serving SQL files, or the state a database recorded, cannot be applied."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


@dataclass(frozen=True)
class SqlObject:
    path: str  # relative to the objects folder: "functions/web_search.sql"
    kind: str
    name: str
    sql: str  # as applied ({{FOLD_FROM}} and {{FOLD_TO}} filled in)
    requires: frozenset[str]  # the paths of the files it refers to

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode("utf-8")).hexdigest()


def render(sql: str) -> str:
    """The file's text as applied: the fold table is Python's (serving_sync.text)."""
    return sql.replace("{{FOLD_FROM}}", sql_literal(FOLD_FROM)).replace(
        "{{FOLD_TO}}", sql_literal(FOLD_TO)
    )


def migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    found = []
    for path in sorted(directory.glob("*.sql")):
        match = _MIGRATION_NAME.match(path.name)
        if not match:
            raise SchemaError(f"serving migration {path.name} is not named NNNN_name.sql")
        found.append(
            Migration(int(match.group(1)), match.group(2), render(path.read_text("utf-8")))
        )
    versions = [m.version for m in found]
    if versions != list(range(BASELINE, BASELINE + len(found))):
        raise SchemaError(
            f"serving migrations must be numbered {BASELINE}..N without gaps, found {versions}"
        )
    return found


def pending_migrations(found: Sequence[Migration], recorded: Collection[int]) -> list[Migration]:
    """The migrations a database that recorded these versions still needs."""
    if recorded and BASELINE not in recorded:
        raise SchemaError(
            f"the serving schema is at version {max(recorded)}, older than the oldest this code "
            f"upgrades ({BASELINE}): bring it to {BASELINE} with the serving_sync of commit "
            "5babc43 or any release up to it, or drop the schema `serving` and rebuild it "
            "(`jobharbor db up`, then `jobharbor sync --full`)",
            versions=sorted(recorded),
        )
    known = {m.version for m in found} | set(range(1, BASELINE))
    if unknown := sorted(set(recorded) - known):
        # Newer code migrated this database: its files, not these, are current there.
        raise SchemaError(
            f"the serving schema has versions {unknown} this code does not know (it knows up "
            f"to {max(known)}): run the newer code that applied them"
        )
    return [m for m in found if m.version not in recorded]


def objects(directory: Path = OBJECTS_DIR) -> list[SqlObject]:
    """Every object file, in the order to apply them: a file after the files it refers to."""
    loaded = _load(directory)
    providers = _providers(loaded)
    found = [
        SqlObject(
            path,
            kind,
            name,
            sql,
            frozenset(
                providers[token]
                for token in _IDENTIFIER.findall(_COMMENT.sub("", sql).lower())
                if token in providers and providers[token] != path
            ),
        )
        for path, kind, name, sql in loaded
    ]
    return ordered(found)


def _load(directory: Path) -> list[tuple[str, str, str, str]]:
    loaded = []
    for entry in sorted(directory.iterdir()):
        if entry.name.startswith((".", "__")):
            continue
        if not entry.is_dir() or entry.name not in KINDS:
            raise SchemaError(f"serving SQL {entry.name}: not one of the folders {list(KINDS)}")
        for path in sorted(entry.iterdir()):
            match = _OBJECT_NAME.match(path.name)
            if not match or not path.is_file():
                raise SchemaError(f"serving SQL {entry.name}/{path.name} is not named name.sql")
            sql = render(path.read_text("utf-8"))
            loaded.append((f"{entry.name}/{path.name}", entry.name, match.group(1), sql))
    return loaded


def _providers(loaded: Iterable[tuple[str, str, str, str]]) -> dict[str, str]:
    """The name each file gives others to refer to -> its path."""
    providers: dict[str, str] = {}
    for path, kind, name, _sql in loaded:
        if kind == "roles":
            token = name
        elif kind in _QUALIFIED:
            token = f"serving.{name}"
        else:
            continue
        if token in providers:
            raise SchemaError(f"serving SQL {providers[token]} and {path} both define {token}")
        providers[token] = path
    return providers


def ordered(found: Sequence[SqlObject]) -> list[SqlObject]:
    """Topological order; among the files ready at a step, by kind, then path."""
    by_path = {o.path: o for o in found}
    waiting = {o.path: set(o.requires) for o in found}
    dependents: dict[str, list[str]] = {}
    for o in found:
        for required in o.requires:
            dependents.setdefault(required, []).append(o.path)
    ready = [_rank(o) for o in found if not o.requires]
    heapq.heapify(ready)
    result: list[SqlObject] = []
    while ready:
        path = heapq.heappop(ready)[1]
        result.append(by_path[path])
        for dependent in dependents.get(path, ()):
            waiting[dependent].discard(path)
            if not waiting[dependent]:
                heapq.heappush(ready, _rank(by_path[dependent]))
    if len(result) < len(found):
        cycle = _cycle({p: r for p, r in waiting.items() if r})
        raise SchemaError("serving SQL files refer to each other in a cycle: " + " -> ".join(cycle))
    return result


def _rank(o: SqlObject) -> tuple[int, str]:
    return (KINDS.index(o.kind), o.path)


def _cycle(waiting: Mapping[str, set[str]]) -> list[str]:
    """One cycle among files that all still wait for another: follow any edge until a file
    comes round again."""
    path = min(waiting)
    seen: list[str] = []
    while path not in seen:
        seen.append(path)
        path = min(r for r in waiting[path] if r in waiting)
    return [*seen[seen.index(path) :], path]


def plan(
    found: Sequence[SqlObject], recorded: Mapping[str, str], migrated: bool
) -> list[SqlObject]:
    """What to apply, in order. After a migration, every file: a migration may drop what
    files define (a table with its triggers and policies, a function whose signature
    changes, with CASCADE what calls it). Otherwise the files whose checksum is not the one
    recorded, everything that refers to those (a function dropped and created again takes
    the SQL functions bound to it along), and the grants whenever anything is applied."""
    if migrated:
        return list(found)
    start = {o.path for o in found if recorded.get(o.path) != o.checksum}
    dependents: dict[str, set[str]] = {}
    for o in found:
        for required in o.requires:
            dependents.setdefault(required, set()).add(o.path)
    chosen: set[str] = set()
    stack = list(start)
    while stack:
        path = stack.pop()
        if path not in chosen:
            chosen.add(path)
            stack.extend(dependents.get(path, ()))
    if chosen:
        chosen |= {o.path for o in found if o.kind in AFTER_ANY_CHANGE}
    return [o for o in found if o.path in chosen]
