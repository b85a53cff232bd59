"""The enrich phase: one pass over eligible content (thin I/O around pipeline.enrich).

Eligible: active postings whose current parse is accepted or partial and has
description text. Never on the ingest path and never during a search: only this
phase (the manual `jobharbor_enrich` DAG, `jobharbor enrich`) calls a model.
Several passes may run at once: leases keep them apart and budgets are shared.
"""

from __future__ import annotations

from collections.abc import Mapping

from pipeline.app import App
from pipeline.db.rows import Json
from pipeline.enrich.providers import make_provider
from pipeline.enrich.runner import Runner
from pipeline.enrich.settings import EnrichSettings, load_enrich_settings
from pipeline.enrich.store import Selection
from pipeline.phases.common import PhaseReport, run_phase


def enrich(
    app: App,
    source: str | None = None,
    *,
    limit: int | None = None,
    max_requests: int | None = None,
    posting_ids: tuple[int, ...] | None = None,
    settings: EnrichSettings | None = None,
    provider: str | None = None,
) -> PhaseReport:
    llm = settings or load_enrich_settings()
    runner = Runner(app.db, make_provider(llm, provider), llm)
    selection = Selection(source=source, posting_ids=posting_ids)

    def work(run_id: int) -> Mapping[str, Json]:
        stats = runner.run(selection, limit=limit, max_requests=max_requests)
        return stats.as_dict()

    return run_phase(app.db, "enrich", source, work, exclusive=False)
