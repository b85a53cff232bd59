"""The lexicon of the published text (serving.lexicon).

A prefix query is written as the words it covers, read from the lexicon, so the text
index answers it with an ordinary scan instead of a partial match. A statement trigger
adds the lexemes of every written row; nothing removes the lexemes of rows that changed
or went, so the lexicon is a superset of what serving.jobs holds (still exact: a word
no posting has matches nothing). A full reconcile trims it in the same transaction, so
it does not grow without end.

Beside it, serving.lexeme_shares: the commonest lexemes' shares of postings from the
text column's statistics, copied by every sync (keep_shares), so web_search can tell a
rare word's page from a common one's by a lookup instead of planning."""

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


def keep_shares(conn: DictConnection) -> int:
    """Copies the text column's commonest lexemes and their shares, as its last ANALYZE
    found them, into serving.lexeme_shares (what web_search reads to tell a rare word
    from a common one without planning; serving.text_is_rare). A sync does it in its
    transaction: the statistics move with autovacuum's ANALYZE, this copy with the next
    sync; a stale share only picks a slower plan, never other rows. Returns the lexemes
    kept (0: the table was never analyzed, and web_search plans as before)."""
    row = conn.execute("SELECT serving.refresh_lexeme_shares() AS kept").fetchone()
    return int(row["kept"]) if row else 0
