"""One enrichment pass: refresh the queue, then claim -> reserve budget -> call ->
check -> store, until the limits, the queue or the budget say stop.

Every member of a grouped answer is checked against its own text; valid members are
kept, a member missing from the answer is asked again alone, a member whose part of
the answer is malformed is re-asked alone with the error text (once, then it fails).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pipeline.db.connect import Database
from pipeline.enrich import store
from pipeline.enrich.catalog import load_catalog
from pipeline.enrich.evidence import Checker
from pipeline.enrich.policy import Decision, Failure, Limits, decide
from pipeline.enrich.prompt import SYSTEM, build_prompt, estimate_tokens
from pipeline.enrich.provider import Call, Provider, ProviderError, Reply, Usage
from pipeline.enrich.schema import (
    PROMPT_VERSION,
    SCHEMA_VERSION,
    AnswerError,
    parse_answer,
    response_schema,
)
from pipeline.enrich.settings import EnrichSettings
from pipeline.enrich.text import flat, posting_text, text_hash
from pipeline.progress import Progress
from pipeline.testhooks import kill_point

log = logging.getLogger("jobharbor.enrich")


@dataclass
class PassStats:
    eligible: int = 0
    enqueued: int = 0
    already_done: int = 0
    sent: int = 0  # requests sent to the provider
    postings_sent: int = 0
    valid: int = 0  # postings with a stored, checked result
    with_rejections: int = 0  # ... of which at least one value was refused
    rejected: Counter[str] = field(default_factory=Counter)  # refused values by reason
    unmapped: int = 0
    requeued: int = 0
    failed: int = 0
    wrong_id: int = 0
    cooled_down: str | None = None  # why and until when the provider is cooling down
    budget_waits: int = 0
    rate_limit_waits: int = 0  # short 429s waited out inside the pass
    rate_limit_wait_s: float = 0.0
    tokens: int = 0

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in vars(self).items() if k != "rejected"}
        out["rejected"] = dict(sorted(self.rejected.items()))
        return out


@dataclass
class Runner:
    db: Database
    provider: Provider
    settings: EnrichSettings
    worker: str = field(default_factory=lambda: f"enrich-{uuid.uuid4().hex[:8]}")
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        self.checker = Checker(load_catalog())
        self.limits = Limits(
            self.settings.max_attempts, self.settings.backoff_base_s, self.settings.backoff_cap_s
        )
        self.config = store.config_key(
            self.provider.name,
            self.provider.model,
            PROMPT_VERSION,
            SCHEMA_VERSION,
            self.provider.settings(),
        )
        self.meta = {
            "provider": self.provider.name,
            "model": self.provider.model,
            "prompt_version": PROMPT_VERSION,
            "schema_version": SCHEMA_VERSION,
            "settings": self.provider.settings(),
        }

    # ---- the pass

    def run(
        self,
        selection: store.Selection | None = None,
        *,
        limit: int | None = None,
        max_requests: int | None = None,
        refresh: bool = True,
    ) -> PassStats:
        stats = PassStats()
        selection = selection or store.Selection()
        with self.db.connect() as conn, Progress("enrich", limit) as progress:
            if refresh:
                counts = store.refresh_queue(conn, selection, self.config)
                stats.eligible = counts["eligible"]
                stats.enqueued, stats.already_done = counts["enqueued"], counts["already_done"]
            s = self.settings
            store.ensure_budget(
                conn, self.provider.name, self.provider.model, s.rpm, s.tpm, s.rpd, s.window_s
            )
            while max_requests is None or stats.sent < max_requests:
                room = (
                    s.group_size
                    if limit is None
                    else min(s.group_size, limit - stats.postings_sent)
                )
                if room <= 0:
                    break
                batch = store.claim(conn, self.worker, room, selection, s.lease_s)
                if not batch or not self._one_request(conn, batch, stats):
                    break
                progress.advance(len(batch))  # postings sent to the model
        return stats

    def _one_request(self, conn: store.DictConnection, batch: list[dict], stats: PassStats) -> bool:
        """Send one request for `batch`; False when the pass must stop (budget, cooldown)."""
        items = [self._item(row) for row in batch]
        call = self._call(items)
        tokens = estimate_tokens(call.system, call.prompt, call.max_output_tokens)
        reservation = self._reserve(conn, tokens, stats)
        if reservation is None:
            store.requeue(
                conn, self.worker, [i["posting_id"] for i in items], Decision("requeue"), None
            )
            return False
        stats.sent += 1
        stats.postings_sent += len(items)
        try:
            reply = self.provider.generate(call)
        except ProviderError as exc:
            store.reconcile(conn, reservation, exc.usage)
            return self._failed_call(conn, items, exc.failure, stats)
        store.reconcile(conn, reservation, reply.usage)
        stats.tokens += reply.usage.total
        kill_point("enrich:mid_batch")  # answered and paid for, this batch not stored
        self._answered(conn, items, reply, stats)
        return True

    def _item(self, row: dict[str, Any]) -> dict[str, Any]:
        text = posting_text(row["title"], row["location_text"], row["description_text"])
        digest = text_hash(text)
        return {
            **row,
            "text": text,
            "text_hash": digest,
            "result_key": store.result_key(digest, self.config),
        }

    def _call(self, items: list[dict[str, Any]]) -> Call:
        postings = tuple((str(i["posting_id"]), i["text"]) for i in items)
        reask = items[0]["reask_error"] if len(items) == 1 else None
        return Call(
            SYSTEM,
            build_prompt(postings, reask),
            response_schema([pid for pid, _ in postings]),
            self.settings.max_output_tokens,
            self.settings.temperature,
            postings,
        )

    def _reserve(self, conn: store.DictConnection, tokens: int, stats: PassStats) -> int | None:
        """A reservation, waiting for the window to free up to budget_wait_s; None to stop."""
        if tokens > self.settings.tpm:
            # One request may take a whole window's tokens, never more: it must fit at all.
            log.warning("one request (%d tokens estimated) exceeds the TPM budget", tokens)
            tokens = self.settings.tpm
        deadline = time.monotonic() + self.settings.budget_wait_s
        while True:
            got = store.reserve(conn, self.provider.name, self.provider.model, tokens, self.worker)
            if got.spend_id is not None:
                return got.spend_id
            if got.reason in ("cooldown", "rpd"):
                stats.cooled_down = f"{got.reason} for {got.wait_s:.0f}s"
                return None
            if time.monotonic() + got.wait_s > deadline:
                stats.cooled_down = stats.cooled_down or f"{got.reason} budget spent"
                return None
            stats.budget_waits += 1
            self.sleep(got.wait_s)

    # ---- outcomes

    def _failed_call(
        self, conn: store.DictConnection, items: list[dict], failure: Failure, stats: PassStats
    ) -> bool:
        now = datetime.now(UTC)
        wait_s = self._short_rate_limit(failure, stats)
        for item in items:
            decision = decide(failure, item["attempts"], item["reasks"], now, self.limits)
            if wait_s is None:
                self._apply(conn, item, decision, failure, stats)
            else:
                # Back in the queue until the delay ends, for every worker; this pass
                # claims it again after its wait, so it is not counted as re-queued.
                store.requeue(conn, self.worker, [item["posting_id"]], decision, failure)
            if decision.cooldown_until is not None:
                store.cool_down(
                    conn,
                    self.provider.name,
                    self.provider.model,
                    decision.cooldown_until,
                    failure.error_class,
                )
                stats.cooled_down = (
                    f"{failure.error_class} until {decision.cooldown_until.isoformat()}"
                )
        if wait_s is not None:
            stats.rate_limit_waits += 1
            stats.rate_limit_wait_s += wait_s
            stats.cooled_down = None
            self.sleep(wait_s)
            return True
        return failure.error_class not in ("quota_day", "rate_limited")

    def _short_rate_limit(self, failure: Failure, stats: PassStats) -> float | None:
        """The RetryInfo delay of a per-minute 429 this pass waits out, or None to stop.
        A short delay is the provider smoothing its rate, not a reason to give up on a
        batch; waiting is bounded by the budget wait, for each delay and for the pass in
        all, so a provider answering 429 forever still ends the pass."""
        delay = failure.retry_delay_s
        if failure.error_class != "rate_limited" or delay is None:
            return None
        if stats.rate_limit_wait_s + delay > self.settings.budget_wait_s:
            return None
        return delay

    def _apply(
        self,
        conn: store.DictConnection,
        item: dict,
        decision: Decision,
        failure: Failure,
        stats: PassStats,
        *,
        alone: bool = False,
    ) -> None:
        if decision.action == "fail":
            store.fail(conn, self.worker, [item["posting_id"]], failure)
            stats.failed += 1
        else:
            store.requeue(conn, self.worker, [item["posting_id"]], decision, failure, alone=alone)
            stats.requeued += 1

    def _answered(
        self, conn: store.DictConnection, items: list[dict], reply: Reply, stats: PassStats
    ) -> None:
        ids = [str(i["posting_id"]) for i in items]
        try:
            if reply.finish_reason == "MAX_TOKENS":
                raise AnswerError(
                    "the answer was cut off at max_output_tokens (finishReason MAX_TOKENS)"
                )
            members, errors, stray = parse_answer(reply.text, ids)
        except AnswerError as exc:
            self._bad_output(conn, items, str(exc), stats)
            return
        stats.wrong_id += stray
        share = Usage(
            reply.usage.prompt // len(items),
            reply.usage.candidates // len(items),
            reply.usage.thoughts // len(items),
        )
        for item in items:
            pid = str(item["posting_id"])
            if pid in members:
                self._keep(conn, item, members[pid], share, stats)
            elif pid in errors:
                self._bad_output(conn, [item], errors[pid], stats)
            elif len(items) > 1:
                # Left out of a group answer: asked again alone, at no cost to the posting.
                store.requeue(
                    conn,
                    self.worker,
                    [item["posting_id"]],
                    Decision("requeue", count_attempt=False),
                    None,
                    alone=True,
                )
                stats.requeued += 1
            else:
                self._bad_output(
                    conn, [item], f"the answer has no entry for posting_id {pid}", stats
                )

    def _bad_output(
        self, conn: store.DictConnection, items: list[dict], message: str, stats: PassStats
    ) -> None:
        failure = Failure("bad_output", message)
        now = datetime.now(UTC)
        for item in items:
            self._apply(
                conn,
                item,
                decide(failure, item["attempts"], item["reasks"], now, self.limits),
                failure,
                stats,
                alone=True,
            )

    def _keep(
        self, conn: store.DictConnection, item: dict, answer: Any, usage: Usage, stats: PassStats
    ) -> None:
        checked = self.checker.check(flat(item["text"]), answer)
        if store.store_result(conn, self.worker, item, self.meta, checked, usage):
            stats.valid += 1
            stats.with_rejections += int(checked.any_rejected)
            stats.rejected.update(r.reason for r in checked.rejected)
            stats.unmapped += len(checked.unmapped)
