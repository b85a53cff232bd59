"""The unfiltered facet counts, kept by the sync (serving.facet_totals).

Counting every published posting takes seconds at 1M rows, more than a request may
spend; the answer only changes when the sync writes. So a sync that changed anything
recomputes it inside its own transaction, after its writes: readers see the counts of
exactly the rows they see."""

from __future__ import annotations

from pipeline.db.connect import DictConnection


def refresh_needed(conn: DictConnection, changed: int) -> bool:
    """After a change, or when the table was never filled (a fresh migration)."""
    if changed:
        return True
    row = conn.execute("SELECT EXISTS (SELECT 1 FROM serving.facet_totals) AS kept").fetchone()
    return not (row and row["kept"])


def refresh(conn: DictConnection) -> None:
    conn.execute("SELECT serving.refresh_facet_totals()")
