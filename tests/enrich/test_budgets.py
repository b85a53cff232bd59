"""Provider budgets live in PostgreSQL: two workers share them, and neither exceeds
RPM or TPM, measured at the endpoint."""

from __future__ import annotations

import threading

from pipeline.enrich.gemini import GeminiProvider
from pipeline.enrich.runner import PassStats, Runner
from tests.enrich.conftest import seed_postings

WINDOW_S = 2.0
RPM = 3


def most_in_any_window(times: list[float], width: float) -> int:
    times = sorted(times)
    return max(sum(1 for u in times if t <= u < t + width) for t in times)


def test_two_workers_share_rpm_and_tpm_and_never_send_the_same_posting(
    databases, gemini, llm_settings
) -> None:
    ids = seed_postings(
        databases.db, [f"Role {n}: 2+ years of experience with Python." for n in range(9)]
    )
    llm = llm_settings.model_copy(
        update={
            "rpm": RPM,
            "tpm": 1300,
            "window_s": WINDOW_S,
            "budget_wait_s": 30,
            "max_output_tokens": 256,
        }
    )
    results: list[PassStats] = []

    def work() -> None:
        results.append(Runner(databases.db, GeminiProvider(llm), llm).run())

    Runner(databases.db, GeminiProvider(llm), llm).run(max_requests=0)  # queue only
    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    log = gemini.log()
    assert sum(r.valid for r in results) == len(ids)
    assert all(r.sent > 0 for r in results)  # both workers really worked
    sent = [p for entry in log for p in entry["postings"]]
    assert sorted(sent) == sorted(str(i) for i in ids)  # nobody sent a posting twice
    # measured at the endpoint (a small allowance for the time a request takes to arrive)
    assert most_in_any_window([e["at"] for e in log], WINDOW_S - 0.05) <= RPM
    tokens = {
        e["at"]: e["prompt_tokens"] + e["candidates_tokens"] + e["thoughts_tokens"] for e in log
    }
    worst = max(sum(n for u, n in tokens.items() if t <= u < t + WINDOW_S - 0.05) for t in tokens)
    assert worst <= llm.tpm
    with databases.db.connect() as conn:
        spend = conn.execute(
            "SELECT count(*) AS n, count(tokens_used) AS reconciled, "
            "sum(tokens_used) AS used FROM enrich.spend"
        ).fetchone()
    assert spend["n"] == spend["reconciled"] == len(log)
    assert spend["used"] == sum(tokens.values())  # prompt + candidates + thoughts
