"""fetch: get each posting's own page where the listing is not enough.

Postings that are new, or whose listing row changed, are marked `needed` by
discover. Each page is validated (a block page is `blocked`, never content),
stored raw, and becomes the posting's content for the parse phase.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from pipeline.app import App
from pipeline.http.fetcher import FetchRequest, FetchResult
from pipeline.phases.common import PhaseReport, run_phase
from pipeline.platforms import host_of
from pipeline.rawstore import RawArchive
from pipeline.validation import validate_body

BATCH = 100
MAX_ATTEMPTS = 3

_TODO = """
SELECT id, board_id, detail_url, detail_attempts
FROM core.postings
WHERE source_id = %(source)s AND status IN ('active', 'missing') AND detail_url IS NOT NULL
  AND NOT (id = ANY(%(done)s))
  AND (detail_state = 'needed'
       OR (detail_state IN ('failed', 'blocked') AND detail_attempts < %(max_attempts)s
           AND updated_at < now() - interval '10 minutes'))
ORDER BY id
LIMIT %(limit)s
"""

_DONE = """
UPDATE core.postings SET detail_state = %(state)s, detail_attempts = detail_attempts + 1,
    content_raw_sha256 = COALESCE(%(raw)s, content_raw_sha256), updated_at = now()
WHERE id = %(id)s
"""

_ATTEMPT = """
INSERT INTO crawl.fetch_attempts (run_id, board_id, posting_id, url, host, http_status, outcome,
    byte_length, elapsed_ms, raw_sha256, error)
VALUES (%(run_id)s, %(board_id)s, %(posting_id)s, %(url)s, %(host)s, %(status)s, %(outcome)s,
    %(bytes)s, %(elapsed)s, %(raw)s, %(error)s)
"""


def fetch_details(
    app: App, source_name: str, *, limit: int | None = None, wait_s: float = 0.0
) -> PhaseReport:
    source = app.sources.get(source_name)

    def work(run_id: int) -> Mapping[str, Any]:
        outcomes: Counter[str] = Counter()
        done: list[int] = []
        with app.archive() as archive, app.fetcher() as fetcher, app.db.connect() as conn:
            while limit is None or len(done) < limit:
                batch_limit = BATCH if limit is None else min(BATCH, limit - len(done))
                todo = conn.execute(
                    _TODO,
                    {
                        "source": source_name,
                        "done": done,
                        "max_attempts": MAX_ATTEMPTS,
                        "limit": batch_limit,
                    },
                ).fetchall()
                conn.commit()
                if not todo:
                    break
                requests = [FetchRequest(row["detail_url"], tag=row) for row in todo]
                for result in fetcher.fetch_all(requests):
                    row = result.request.tag
                    done.append(row["id"])
                    state, raw = _store(app, archive, source_name, source.validation, result)
                    outcomes[state] += 1
                    with conn.transaction():
                        conn.execute(_DONE, {"state": state, "raw": raw, "id": row["id"]})
                        conn.execute(_ATTEMPT, _attempt_row(run_id, row, result, state, raw))
        return {"postings": len(done), "outcomes": dict(outcomes)}

    return run_phase(app.db, "fetch", source_name, work, wait_s=wait_s)


def _store(
    app: App, archive: RawArchive, source_name: str, rules: Any, result: FetchResult
) -> tuple[str, str | None]:
    """The posting's new detail state, and its stored page when there is one."""
    if result.status is None:
        return "failed", None
    verdict = validate_body(result, rules, frozenset({host_of(result.request.url)}))
    if not verdict.ok:
        return ("blocked" if verdict.outcome == "blocked" else "failed"), None
    raw = archive.save(
        source_id=source_name,
        body=result.body,
        url=result.final_url,
        content_type=result.content_type,
        http_status=result.status,
    )
    return "fetched", raw.sha256


def _attempt_row(
    run_id: int, row: Mapping[str, Any], result: FetchResult, state: str, raw: str | None
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "board_id": row["board_id"],
        "posting_id": row["id"],
        "url": result.final_url,
        "host": host_of(result.final_url),
        "status": result.status,
        "outcome": state,
        "bytes": len(result.body),
        "elapsed": result.elapsed_ms,
        "raw": raw,
        "error": result.error,
    }
