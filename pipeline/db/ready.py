"""Migrations run once, at setup (`jobharbor db up`, compose's airflow-init, `make up`),
not in every task. A task on a database that is not at the code's schema fails at once
saying what to run, instead of running against the wrong tables.

The check runs in tasks that pay a fresh process each, so it finds the head revision by
reading each revision file's `revision` and `down_revision` lines, not through Alembic
(importing Alembic and SQLAlchemy and loading every revision module cost 0.6 s to 2.8 s
of a task's start on the shared machine). A chain it cannot read that way (a merge, a
computed id) is left to Alembic.
"""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.db import migrate
from pipeline.db.connect import Database
from pipeline.errors import FatalError

FIX = "run `jobharbor db up` (compose: the airflow-init service; locally: make up)"


class NotMigrated(FatalError):
    """The database is not at the schema this code needs."""


def database_revision(db: Database) -> str | None:
    with db.connect() as conn:
        stamped = migrate.stamps(conn)
    return stamped[0] if stamped else None


_ASSIGNED = re.compile(r"^(revision|down_revision)(?:\s*:\s*[^=]+)?\s*=\s*(.+?)\s*$", re.MULTILINE)
_NAME = re.compile(r"""^(?:"([^"]+)"|'([^']+)'|None)$""")


def _literal(text: str) -> str | bool:
    """A quoted name as itself, `None` as "", anything else (a tuple, a call) False."""
    match = _NAME.match(text)
    return (match.group(1) or match.group(2) or "") if match else False


def declared_head(versions: Path = migrate.MIGRATIONS_DIR / "versions") -> str | None:
    """The one revision no other revision names as its parent, read from the files'
    assignments; None when the chain is not a plain line of literal names (then only
    Alembic can say)."""
    parents: dict[str, str | None] = {}
    for path in versions.glob("*.py"):
        found = dict(m.groups() for m in _ASSIGNED.finditer(path.read_text()))
        own, parent = (_literal(found.get(key, "")) for key in ("revision", "down_revision"))
        if not own or parent is False:
            return None
        parents[own] = parent or None
    heads = set(parents) - set(parents.values())
    return heads.pop() if len(heads) == 1 else None


def head_revision() -> str | None:
    return declared_head() or migrate.head_revision()


def require_migrated(db: Database) -> None:
    head = head_revision()
    current = database_revision(db)
    # A numbered stamp of the same revision is the same schema: `db up` renames it.
    if current is None or migrate.current_name(current) != head:
        found = f"at revision {current}" if current else "not migrated"
        raise NotMigrated(
            f"the authoritative database {db.redacted()} is {found}; this code needs {head}: {FIX}"
        )
