"""Every phase reports progress through the one helper (pipeline.progress): a small real
run over the sandbox leaves each phase's line on stderr, which a task log captures."""

from __future__ import annotations

import re

import pytest

from pipeline.app import App
from pipeline.enrich.settings import EnrichSettings
from pipeline.phases.check import check_postings
from pipeline.phases.discover import discover
from pipeline.phases.enrich import enrich
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving
from tests.enrich.conftest import GeminiStub, gemini, llm_settings

__all__ = ["gemini", "llm_settings"]  # the enrichment fixtures, imported for this module


def _last_count(err: str, label: str) -> int | None:
    """The count on the phase's last progress line (None: no line)."""
    found = re.findall(rf"^{re.escape(label)}: (\d+)(?:/\d+)? done \(", err, re.MULTILINE)
    return int(found[-1]) if found else None


def test_each_phase_writes_a_progress_line_on_a_sandbox_run(
    app: App, gemini: GeminiStub, llm_settings: EnrichSettings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert discover(app, "vieclam", force=True).status == "succeeded"
    assert fetch_details(app, "vieclam").status == "succeeded"
    assert parse_source(app, "vieclam").status == "succeeded"
    with app.db.connect() as conn:
        first = conn.execute("SELECT min(id) AS id FROM core.postings").fetchone()["id"]
    assert check_postings(app, "vieclam", ids=[first], statuses=("active",)).status == "succeeded"
    assert sync_serving(app).status == "succeeded"
    assert enrich(app, "vieclam", limit=3, settings=llm_settings).status == "succeeded"

    err = capsys.readouterr().err
    counts = {}
    for label in (
        "discover source vieclam",
        "fetch vieclam",
        "parse vieclam",
        "check vieclam",
        "sync: rows staged",
        "enrich",
    ):
        count = _last_count(err, label)
        assert count, f"no progress line for {label!r} in:\n{err}"
        counts[label] = count
    assert counts["check vieclam"] == 1
    assert counts["enrich"] == 3


def test_a_backfill_s_checks_leave_the_counting_to_the_backfill(
    app: App, capsys: pytest.CaptureFixture[str]
) -> None:
    assert discover(app, "vieclam", force=True).status == "succeeded"
    with app.db.connect() as conn:
        first = conn.execute("SELECT min(id) AS id FROM core.postings").fetchone()["id"]
    capsys.readouterr()
    report = check_postings(app, "vieclam", ids=[first], statuses=("active",), progress_lines=False)
    assert report.stats["checked"] == 1
    assert "check vieclam" not in capsys.readouterr().err
