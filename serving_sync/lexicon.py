"""The lexicon of the published text (serving.lexicon).

A prefix query is written as the words it covers, read from the lexicon, so the text
index answers it with an ordinary scan instead of a partial match. A statement trigger
adds the lexemes of every written row; nothing removes the lexemes of rows that changed
or went, so the lexicon is a superset of what serving.jobs holds (still exact: a word
no posting has matches nothing). A full reconcile trims it in the same transaction, so
it does not grow without end."""

from __future__ import annotations

from collections.abc import Mapping

from pipeline.db.connect import DictConnection


def rebuild_needed(full: bool, counts: Mapping[str, int]) -> bool:
    """Only a full reconcile trims (a pass over every posting's text: ~45 s at 1M rows),
    and not one that loads an empty table: only rows published before, changed or
    removed since by any sync, can have left a lexeme behind."""
    return full and counts["removed"] + counts["updated"] + counts["unchanged"] > 0


def rebuild(conn: DictConnection) -> int:
    """Trims the lexicon to the lexemes of the rows now published; returns how many went."""
    row = conn.execute("SELECT serving.rebuild_lexicon() AS removed").fetchone()
    return int(row["removed"]) if row else 0
