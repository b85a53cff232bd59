"""A small chaos run over every sandbox platform (issue 9's closing note, in miniature):
no wrongful close, nothing stuck `missing` while listed, no request inside a cooldown.
`bench/chaos_lifecycle.py` runs the full-size version."""

from __future__ import annotations

import json

from pipeline.app import App
from tests.chaos.lifecycle import ChaosConfig, InProcess, run_chaos


def test_a_small_chaos_run_closes_nothing_listed_strands_nothing_and_respects_cooldowns(
    app, sandbox
) -> None:
    config = ChaosConfig(cycles=3, calm_cycles=2, fault_rate=0.6, seed=9)
    chaotic = App.create(
        settings=app.settings.model_copy(update={"http_timeout_s": config.timeout_s})
    )
    report = run_chaos(chaotic, InProcess(sandbox), config)
    summary = report.summary()
    print(json.dumps(summary))
    assert len(report.platforms) >= 11, report.platforms
    assert summary["faults"] > 0  # the run really was chaotic
    assert summary["cooldowns"] > 0
    assert not report.wrongful, report.wrongful
    assert summary["stuck_missing"] == 0, report.stuck
    assert summary["cooldown_violations"] == 0, report.violations[:10]
    assert summary["postings_lost"] == 0, report.lost[:10]
    for missed in report.missed:  # reported (explained in docs/reliability.md), not hidden
        print(f"MISSED CLOSE {missed}")
