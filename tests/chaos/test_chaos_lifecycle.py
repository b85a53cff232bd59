"""A small chaos run over every sandbox platform (docs/reliability.md §2, in miniature):
no wrongful close, nothing stuck `missing` while listed, no request inside a cooldown
(one asked for as an HTTP date too), through connection resets and truncated bodies;
a board emptied for real and a count-probe swap close everything they removed.
`bench/chaos_lifecycle.py` runs the full-size version."""

from __future__ import annotations

import json

from chaos.lifecycle import WIRE_AND_DATE_FAULTS, ChaosConfig, InProcess, run_chaos
from pipeline.app import App


def test_a_small_chaos_run_closes_nothing_listed_strands_nothing_misses_no_event_and_respects_cooldowns(
    app, sandbox
) -> None:
    config = ChaosConfig(
        cycles=3,
        calm_cycles=2,
        fault_rate=0.6,
        seed=9,
        first_faults=WIRE_AND_DATE_FAULTS,
        # The sandbox runs in this process here and shares its GIL with the crawler: on
        # a loaded 2-core machine a request sent before a 429 was answered was seen to
        # arrive up to 0.31 s after it. Half the 1 s cooldown still catches any request
        # sent inside it. (bench/chaos_lifecycle.py, with the sandbox in its own
        # process, keeps the default 0.25 s.)
        in_flight_grace_s=0.5,
    )
    chaotic = App.create(
        settings=app.settings.model_copy(update={"http_timeout_s": config.timeout_s})
    )
    report = run_chaos(chaotic, InProcess(sandbox), config)
    summary = report.summary()
    print(json.dumps(summary))
    assert len(report.platforms) >= 11, report.platforms
    assert summary["faults"] > 0  # the run really was chaotic
    # Retry-After as an HTTP date, resets and truncated bodies, on listings and pages.
    assert all(report.faults[kind] >= 1 for kind in WIRE_AND_DATE_FAULTS), report.faults
    assert summary["cooldowns"] > 0
    assert not report.wrongful, report.wrongful
    assert summary["stuck_missing"] == 0, report.stuck
    assert summary["cooldown_violations"] == 0, report.violations[:10]
    assert summary["postings_lost"] == 0, report.lost[:10]
    # A board emptied for real and a swap that keeps a count-probed board's count:
    # every posting they removed closed on evidence within the run.
    assert summary["events"] == {"board emptied for real": 1, "count-probe swap": 1}
    assert summary["event_postings_removed"] > 2
    assert summary["event_postings_open"] == 0, report.event_open
    for missed in report.missed:  # reported (explained in docs/reliability.md), not hidden
        print(f"MISSED CLOSE {missed}")


def test_the_cooldown_judge_holds_requests_to_the_wait_each_answer_asked_for() -> None:
    """A 429 whose Retry-After (an HTTP date) asked for 2 s: a request 1.5 s later is a
    violation although the run's default Retry-After is 1 s; one after 2 s is not."""
    from chaos.lifecycle import ChaosReport, LoggedRequest, _judge_cooldowns

    config = ChaosConfig(retry_after_s=1)
    for later, violations in ((1.5, 1), (2.1, 0)):
        report = ChaosReport()
        entries = [
            LoggedRequest(10.0, "/greenhouse/a", 429, cooldown_until=12.0),
            LoggedRequest(10.0 + later, "/greenhouse/b", 200),
        ]
        _judge_cooldowns(entries, config, report)
        assert len(report.violations) == violations, (later, report.violations)
