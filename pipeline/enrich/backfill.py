"""Backfill selection (by date, source or posting ids) and its read-only preview.

The preview is what an analyst sees before anything is sent: how many postings the
selection holds, how many already have a result for this configuration (free), and
the requests and tokens the rest would cost. It runs in a READ ONLY transaction.
Applying needs an explicit limit (the Airflow-operations DAG wraps both).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from pipeline.db.connect import Database
from pipeline.enrich import store
from pipeline.enrich.prompt import SYSTEM, build_prompt, estimate_tokens
from pipeline.enrich.provider import Provider
from pipeline.enrich.schema import PROMPT_VERSION, SCHEMA_VERSION
from pipeline.enrich.settings import EnrichSettings


@dataclass(frozen=True)
class Preview:
    selected: int
    already_done: int
    to_send: int
    estimated_requests: int
    estimated_tokens: int
    by_source: dict[str, int] = field(default_factory=dict)
    sample_ids: tuple[int, ...] = ()


_DONE = """
SELECT posting_id, result_key FROM enrich.results WHERE posting_id = ANY(%s)
"""


def preview(
    db: Database, selection: store.Selection, provider: Provider, settings: EnrichSettings
) -> Preview:
    config = store.config_key(
        provider.name, provider.model, PROMPT_VERSION, SCHEMA_VERSION, provider.settings()
    )
    with db.connect() as conn:
        conn.execute("SET TRANSACTION READ ONLY")
        rows = [store.keyed(r, config) for r in store.eligible_rows(conn, selection)]
        done = {
            (r["posting_id"], r["result_key"])
            for r in conn.execute(_DONE, ([r["posting_id"] for r in rows],)).fetchall()
        }
        conn.rollback()
    todo = [r for r in rows if (r["posting_id"], r["result_key"]) not in done]
    requests = math.ceil(len(todo) / settings.group_size)
    prompt_tokens = sum(
        estimate_tokens("", build_prompt([(str(r["posting_id"]), r["text"])]), 0) for r in todo
    )
    overhead = requests * estimate_tokens(SYSTEM, "", settings.max_output_tokens)
    return Preview(
        selected=len(rows),
        already_done=len(rows) - len(todo),
        to_send=len(todo),
        estimated_requests=requests,
        estimated_tokens=prompt_tokens + overhead,
        by_source=dict(Counter(r["source_id"] for r in todo)),
        sample_ids=tuple(r["posting_id"] for r in todo[:10]),
    )
