"""The enrich.* tables: the queue, results, provider budgets (named SQL, no policy).

Claims use `FOR UPDATE SKIP LOCKED` with a lease, so several workers never send the
same posting; a worker that dies stops renewing and its postings are claimed again
when the lease runs out. Budgets are reserved under a row lock on the provider's
budget row, so every worker sees every other worker's spend before it sends.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import Connection

from pipeline.enrich.evidence import Checked
from pipeline.enrich.policy import Decision, Failure, day_start_la, next_midnight_la
from pipeline.enrich.provider import Usage
from pipeline.enrich.text import posting_text, text_hash

DictConnection = Connection[dict[str, Any]]


def config_key(
    provider: str, model: str, prompt_version: str, schema_version: str, settings: dict
) -> str:
    raw = json.dumps([provider, model, prompt_version, schema_version, settings], sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def result_key(text_digest: str, config: str) -> str:
    """One result per (NFC text hash, model, prompt version, schema version, settings)."""
    return hashlib.sha256(f"{text_digest}|{config}".encode()).hexdigest()


# ---------------------------------------------------------------- eligibility and the queue

# The text travels only when it is needed: for content the queue has not seen (the
# queue's text hash re-keys known content when only the configuration changed).
_ELIGIBLE = """
SELECT p.id AS posting_id, p.source_id, r.id AS parse_result_id,
       CASE WHEN %(all_text)s OR q.parse_result_id IS DISTINCT FROM r.id THEN r.title END AS title,
       CASE WHEN %(all_text)s OR q.parse_result_id IS DISTINCT FROM r.id THEN r.location_text END
         AS location_text,
       CASE WHEN %(all_text)s OR q.parse_result_id IS DISTINCT FROM r.id THEN r.description_text END
         AS description_text,
       q.parse_result_id AS queued_parse, q.text_hash AS queued_hash, q.result_key AS queued_key
FROM core.postings p
JOIN core.parse_results r ON r.posting_id = p.id AND r.is_current
LEFT JOIN enrich.queue q ON q.posting_id = p.id
WHERE p.status = 'active' AND r.quality IN ('accepted', 'partial')
  AND coalesce(btrim(r.description_text), '') <> ''
  {filters}
ORDER BY p.id
"""

_UPSERT = """
INSERT INTO enrich.queue (posting_id, source_id, parse_result_id, text_hash, result_key)
VALUES (%(posting_id)s, %(source_id)s, %(parse_result_id)s, %(text_hash)s, %(result_key)s)
ON CONFLICT (posting_id) DO UPDATE SET
  parse_result_id = EXCLUDED.parse_result_id, text_hash = EXCLUDED.text_hash,
  result_key = EXCLUDED.result_key, state = 'queued', alone = false, attempts = 0, reasks = 0,
  reask_error = NULL, next_try_at = now(), lease_owner = NULL, lease_expires_at = NULL,
  last_error_class = NULL, last_error = NULL, enqueued_at = now(), updated_at = now()
"""

# Content seen before (a revert, a re-run): its result exists, nothing is paid again.
_ALREADY_DONE = """
UPDATE enrich.queue q SET state = 'done', updated_at = now()
FROM enrich.results r
WHERE r.posting_id = q.posting_id AND r.result_key = q.result_key AND q.state <> 'done'
  AND q.posting_id = ANY(%(ids)s)
RETURNING q.posting_id, q.result_key
"""


@dataclass(frozen=True)
class Selection:
    """Which postings a pass (or a backfill) works on."""

    source: str | None = None
    posting_ids: tuple[int, ...] | None = None
    since: datetime | None = None  # parsed at or after
    until: datetime | None = None


def _filters(selection: Selection) -> tuple[str, dict[str, Any]]:
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if selection.source:
        clauses.append("AND p.source_id = %(source)s")
        params["source"] = selection.source
    if selection.posting_ids is not None:
        clauses.append("AND p.id = ANY(%(ids)s)")
        params["ids"] = list(selection.posting_ids)
    if selection.since is not None:
        clauses.append("AND r.parsed_at >= %(since)s")
        params["since"] = selection.since
    if selection.until is not None:
        clauses.append("AND r.parsed_at < %(until)s")
        params["until"] = selection.until
    return " ".join(clauses), params


def eligible_rows(
    conn: DictConnection, selection: Selection, *, all_text: bool = True
) -> list[dict[str, Any]]:
    where, params = _filters(selection)
    return conn.execute(
        _ELIGIBLE.format(filters=where), {**params, "all_text": all_text}
    ).fetchall()


def keyed(row: dict[str, Any], config: str) -> dict[str, Any]:
    text = posting_text(row["title"], row["location_text"], row["description_text"])
    digest = text_hash(text)
    return {**row, "text": text, "text_hash": digest, "result_key": result_key(digest, config)}


def refresh_queue(conn: DictConnection, selection: Selection, config: str) -> dict[str, int]:
    """Queue eligible content without a result for this configuration; changed text
    re-queues its posting, unchanged text is left alone (and never paid twice)."""
    counts = {"eligible": 0, "enqueued": 0, "already_done": 0}
    changed: list[dict[str, Any]] = []
    for row in eligible_rows(conn, selection, all_text=False):
        counts["eligible"] += 1
        if row["queued_parse"] == row["parse_result_id"]:
            key = result_key(row["queued_hash"], config)
            if key != row["queued_key"]:  # same text, another model / prompt / settings
                changed.append({**row, "text_hash": row["queued_hash"], "result_key": key})
            continue
        changed.append(keyed(row, config))
    if changed:
        with conn.cursor() as cur:
            cur.executemany(_UPSERT, changed)
        done = conn.execute(_ALREADY_DONE, {"ids": [c["posting_id"] for c in changed]}).fetchall()
        for row in done:
            _make_current(conn, row["posting_id"], row["result_key"])
        counts["already_done"] = len(done)
        counts["enqueued"] = len(changed) - len(done)
    conn.commit()
    return counts


_CANDIDATES = """
SELECT q.*, r.title, r.location_text, r.description_text
FROM enrich.queue q
JOIN core.postings p ON p.id = q.posting_id
JOIN core.parse_results r ON r.id = q.parse_result_id
WHERE (q.state = 'queued' OR (q.state = 'leased' AND q.lease_expires_at < now()))
  AND q.next_try_at <= now() AND p.status = 'active' {filters}
ORDER BY q.alone DESC, q.next_try_at, q.posting_id
LIMIT %(n)s
FOR UPDATE OF q SKIP LOCKED
"""

_LEASE = """
UPDATE enrich.queue SET state = 'leased', lease_owner = %(owner)s,
  lease_expires_at = now() + make_interval(secs => %(lease_s)s), updated_at = now()
WHERE posting_id = ANY(%(ids)s)
"""


def claim(
    conn: DictConnection, owner: str, group_size: int, selection: Selection, lease_s: float
) -> list[dict[str, Any]]:
    """Lease up to `group_size` postings; one that must be asked alone (a re-ask, a
    member a group answer left out) is leased by itself."""
    where, params = _filters(selection)
    rows = conn.execute(_CANDIDATES.format(filters=where), {**params, "n": group_size}).fetchall()
    rows = rows[:1] if rows and rows[0]["alone"] else [r for r in rows if not r["alone"]]
    if rows:
        conn.execute(
            _LEASE, {"owner": owner, "lease_s": lease_s, "ids": [r["posting_id"] for r in rows]}
        )
    conn.commit()
    return rows


_STORE = """
INSERT INTO enrich.results (posting_id, result_key, text_hash, provider, model, prompt_version,
  schema_version, settings, fields, skills_required, skills_preferred, unmapped, rejected, usage)
VALUES (%(posting_id)s, %(result_key)s, %(text_hash)s, %(provider)s, %(model)s, %(prompt_version)s,
  %(schema_version)s, %(settings)s, %(fields)s, %(skills_required)s, %(skills_preferred)s,
  %(unmapped)s, %(rejected)s, %(usage)s)
ON CONFLICT (posting_id, result_key) DO NOTHING
"""


def store_result(
    conn: DictConnection,
    owner: str,
    item: dict[str, Any],
    meta: dict[str, Any],
    checked: Checked,
    usage: Usage,
) -> bool:
    """Record a checked result as current and finish the posting's queue row, if this
    worker still holds its lease (else another worker took over: nothing is written)."""
    held = conn.execute(
        "SELECT 1 FROM enrich.queue WHERE posting_id = %s AND lease_owner = %s AND state = 'leased' FOR UPDATE",
        (item["posting_id"], owner),
    ).fetchone()
    if held is None:
        conn.rollback()
        return False
    params = {
        **meta,
        "posting_id": item["posting_id"],
        "result_key": item["result_key"],
        "text_hash": item["text_hash"],
        "settings": json.dumps(meta["settings"], sort_keys=True),
        "fields": json.dumps(
            {k: v.as_dict() for k, v in checked.values.items()}, ensure_ascii=False
        ),
        "skills_required": _skills_json(checked, "skills_required"),
        "skills_preferred": _skills_json(checked, "skills_preferred"),
        "unmapped": json.dumps([u.as_dict() for u in checked.unmapped], ensure_ascii=False),
        "rejected": json.dumps([r.as_dict() for r in checked.rejected], ensure_ascii=False),
        "usage": json.dumps(usage.as_dict()),
    }
    conn.execute(_STORE, params)
    _make_current(conn, item["posting_id"], item["result_key"])
    conn.execute(
        "UPDATE enrich.queue SET state = 'done', lease_owner = NULL, lease_expires_at = NULL, "
        "reask_error = NULL, updated_at = now() WHERE posting_id = %s",
        (item["posting_id"],),
    )
    conn.commit()
    return True


def _make_current(conn: DictConnection, posting_id: int, key: str) -> None:
    """One current result per posting: clear the old one first (the unique index is
    checked row by row), then mark this one."""
    conn.execute(
        "UPDATE enrich.results SET is_current = false "
        "WHERE posting_id = %s AND is_current AND result_key <> %s",
        (posting_id, key),
    )
    conn.execute(
        "UPDATE enrich.results SET is_current = true WHERE posting_id = %s AND result_key = %s",
        (posting_id, key),
    )


def _skills_json(checked: Checked, name: str) -> str:
    return json.dumps([s.as_dict() for s in checked.skills.get(name, ())], ensure_ascii=False)


def requeue(
    conn: DictConnection,
    owner: str,
    posting_ids: Sequence[int],
    decision: Decision,
    failure: Failure | None,
    *,
    alone: bool = False,
) -> None:
    """Back in the queue: when to try again, whether it counted, what went wrong."""
    conn.execute(
        """UPDATE enrich.queue SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL,
             next_try_at = coalesce(%(next)s, now()),
             attempts = attempts + %(attempt)s, reasks = reasks + %(reask)s,
             reask_error = CASE WHEN %(reask)s = 1 THEN %(error)s ELSE reask_error END,
             alone = alone OR %(alone)s,
             last_error_class = coalesce(%(cls)s, last_error_class),
             last_error = coalesce(%(error)s, last_error), updated_at = now()
           WHERE posting_id = ANY(%(ids)s) AND lease_owner = %(owner)s""",
        {
            "next": decision.next_try_at,
            "attempt": 1 if decision.count_attempt and failure is not None else 0,
            "reask": 1 if decision.reask else 0,
            "alone": alone or decision.reask,
            "cls": failure.error_class if failure else None,
            "error": failure.message if failure else None,
            "ids": list(posting_ids),
            "owner": owner,
        },
    )
    conn.commit()


def fail(conn: DictConnection, owner: str, posting_ids: Sequence[int], failure: Failure) -> None:
    """A permanent failure: kept, visible, never retried until the content changes."""
    conn.execute(
        "UPDATE enrich.queue SET state = 'failed', lease_owner = NULL, lease_expires_at = NULL, "
        "attempts = attempts + 1, last_error_class = %s, last_error = %s, updated_at = now() "
        "WHERE posting_id = ANY(%s) AND lease_owner = %s",
        (failure.error_class, failure.message, list(posting_ids), owner),
    )
    conn.commit()


# ---------------------------------------------------------------- budgets


@dataclass(frozen=True)
class Reservation:
    spend_id: int | None  # None: not reserved
    wait_s: float = 0.0  # when it may fit again
    reason: str | None = None  # rpm, tpm, rpd, cooldown


def ensure_budget(
    conn: DictConnection, provider: str, model: str, rpm: int, tpm: int, rpd: int, window_s: float
) -> None:
    conn.execute(
        """INSERT INTO enrich.budgets (provider, model, rpm, tpm, rpd, window_s)
           VALUES (%s, %s, %s, %s, %s, %s)
           ON CONFLICT (provider, model) DO UPDATE SET rpm = EXCLUDED.rpm, tpm = EXCLUDED.tpm,
             rpd = EXCLUDED.rpd, window_s = EXCLUDED.window_s, updated_at = now()""",
        (provider, model, rpm, tpm, rpd, window_s),
    )
    conn.commit()


_WINDOW = """
SELECT coalesce(sum(requests) FILTER (WHERE at > %(now)s - make_interval(secs => %(w)s)), 0) AS req_w,
       coalesce(sum(coalesce(tokens_used, tokens_reserved))
                FILTER (WHERE at > %(now)s - make_interval(secs => %(w)s)), 0) AS tok_w,
       coalesce(sum(requests) FILTER (WHERE at >= %(day)s), 0) AS req_d,
       min(at) FILTER (WHERE at > %(now)s - make_interval(secs => %(w)s)) AS oldest
FROM enrich.spend
WHERE provider = %(provider)s AND model = %(model)s
  AND at >= least(%(now)s - make_interval(secs => %(w)s), %(day)s)
"""


def reserve(
    conn: DictConnection, provider: str, model: str, tokens: int, worker: str
) -> Reservation:
    """Reserve one request and `tokens` against RPM, TPM and RPD, or say how long to wait."""
    budget = conn.execute(
        "SELECT *, clock_timestamp() AS now FROM enrich.budgets WHERE provider = %s AND model = %s FOR UPDATE",
        (provider, model),
    ).fetchone()
    assert budget is not None, "ensure_budget first"
    now: datetime = budget["now"]
    if budget["cooldown_until"] is not None and budget["cooldown_until"] > now:
        conn.commit()
        return Reservation(None, (budget["cooldown_until"] - now).total_seconds(), "cooldown")
    used = conn.execute(
        _WINDOW,
        {
            "now": now,
            "w": budget["window_s"],
            "day": day_start_la(now),
            "provider": provider,
            "model": model,
        },
    ).fetchone()
    assert used is not None
    if used["req_d"] + 1 > budget["rpd"]:
        until = next_midnight_la(now)
        _set_cooldown(conn, provider, model, until, "rpd")
        conn.commit()
        return Reservation(None, (until - now).total_seconds(), "rpd")
    over = "rpm" if used["req_w"] + 1 > budget["rpm"] else None
    over = over or ("tpm" if used["tok_w"] + tokens > budget["tpm"] else None)
    if over:
        conn.commit()
        oldest = used["oldest"] or now
        wait = (oldest - now).total_seconds() + budget["window_s"]
        return Reservation(None, max(0.05, wait), over)
    spend = conn.execute(
        "INSERT INTO enrich.spend (provider, model, at, tokens_reserved, worker) "
        "VALUES (%s, %s, clock_timestamp(), %s, %s) RETURNING id",
        (provider, model, tokens, worker),
    ).fetchone()
    conn.commit()
    assert spend is not None
    return Reservation(spend["id"])


def reconcile(conn: DictConnection, spend_id: int, usage: Usage) -> None:
    """The call's real cost (prompt + candidates + thoughts) replaces the estimate, and
    the request counts from when it ended: it held the budget from its reservation until
    then, so whenever it reached the provider, no window there holds more than the limit."""
    conn.execute(
        "UPDATE enrich.spend SET tokens_used = %s, reconciled_at = clock_timestamp(), "
        "at = clock_timestamp() WHERE id = %s",
        (usage.total, spend_id),
    )
    conn.commit()


def _set_cooldown(
    conn: DictConnection, provider: str, model: str, until: datetime, reason: str
) -> None:
    conn.execute(
        "UPDATE enrich.budgets SET cooldown_until = greatest(coalesce(cooldown_until, %s), %s), "
        "cooldown_reason = %s, updated_at = now() WHERE provider = %s AND model = %s",
        (until, until, reason, provider, model),
    )


def cool_down(
    conn: DictConnection, provider: str, model: str, until: datetime, reason: str
) -> None:
    _set_cooldown(conn, provider, model, until, reason)
    conn.commit()
