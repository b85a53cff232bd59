"""The approval screen's text and apply's check of the approved manifest, without
Airflow: what the screen shows for each kind, and every way apply refuses."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipeline.backfill.approval import (
    PlannedRun,
    approval_body,
    change_counts,
    verified_manifest,
)
from pipeline.backfill.manifest import BackfillRefused, Item, Manifest, write_manifest

WHEN = datetime(2026, 12, 6, 9, 30, tzinfo=UTC)


def reparse_manifest(samples: int) -> Manifest:
    sample = [
        {
            "posting_id": i,
            "external_id": f"ext-{i}",
            "changes": {"title": [f"old | {i}", f"new {i}"]} if i % 3 else {},
        }
        for i in range(1, samples + 1)
    ]
    sample.append(
        {"posting_id": 99, "external_id": "x", "changes": {"quality": ["partial", "rejected"]}}
    )
    return Manifest(
        kind="reparse",
        params={"source": "lever", "limit": 50, "posting_ids": [], "parser": None},
        items=tuple(Item(i, f"h{i}") for i in range(1, 41)),
        counts={"postings": 40, "raw_unavailable": 2},
        sample=tuple(sample),
    )


def planned(path: Path, manifest: Manifest, decision: str | None = "approved") -> PlannedRun:
    return PlannedRun(
        dag_id="d", run_id="r", kind=manifest.kind, manifest_path=str(path),
        fingerprint=manifest.fingerprint, planned_at=WHEN, decision=decision,
        decided_by="ana (id 7)", decided_at=WHEN, reason="fine",
    )  # fmt: skip


def test_the_screen_shows_selection_counts_ten_diffs_fingerprint_and_plan_log() -> None:
    manifest = reparse_manifest(14)
    body = approval_body(manifest, Path("/m.json"), "http://ui/dags/d/runs/r/tasks/plan")
    assert "**Selection:** source=lever, limit=50" in body  # empty filters left out
    assert "parser=" not in body
    assert "| postings to re-parse | 40 |" in body
    assert "| raw object unavailable (skipped) | 2 |" in body
    # 15 re-parsed in the preview: 10 change the title, 4 unchanged, 1 rejected.
    assert "| would change (of 15 re-parsed in the preview) | 10 |" in body
    assert "| unchanged (of 15) | 4 |" in body
    assert "| would fail (of 15) | 1 |" in body
    assert "#### Sample (10 of 40)" in body
    assert body.count("**posting ") == 10
    assert "| title | old \\| 1 | new 1 |" in body  # a pipe in a value cannot break the table
    assert "**posting 3** (ext-3): unchanged" in body
    assert f"**Fingerprint:** `{manifest.fingerprint}`" in body
    assert "[The plan task's log](http://ui/dags/d/runs/r/tasks/plan)" in body


def test_the_counts_name_each_kind_of_change() -> None:
    sync = Manifest(
        "sync", {"limit": 9}, (Item(0, "s"),), counts={"inserted": 3, "compared": 5, "removed": 1}
    )
    assert change_counts(sync) == {
        "rows to insert": 3, "rows to compare and update if changed": 5, "rows to remove": 1,
    }  # fmt: skip
    check = Manifest("check", {"status": "missing"}, (Item(1, "s"),), counts={"postings": 1})
    assert change_counts(check) == {"postings to check (status missing)": 1}
    enrich = Manifest("enrich", {}, (Item(1, None),), counts={"postings": 1})
    assert change_counts(enrich) == {"postings to enrich": 1}
    body = approval_body(enrich, Path("/e.json"), None)
    assert "(no UI address configured)" in body


def test_apply_takes_the_planned_and_approved_manifest(tmp_path: Path) -> None:
    manifest = reparse_manifest(2)
    path = write_manifest(manifest, tmp_path)
    applied = verified_manifest(planned(path, manifest), path, "reparse", needs_approval=True)
    assert applied.fingerprint == manifest.fingerprint


def test_apply_refuses_another_path_even_a_valid_manifest(tmp_path: Path) -> None:
    manifest = reparse_manifest(2)
    path = write_manifest(manifest, tmp_path / "a")
    other = write_manifest(replace(manifest, items=manifest.items[:3]), tmp_path / "b")
    with pytest.raises(BackfillRefused, match="but this run's plan recorded"):
        verified_manifest(planned(path, manifest), other, "reparse", needs_approval=True)


def test_apply_refuses_a_manifest_rewritten_with_its_own_fingerprint(tmp_path: Path) -> None:
    manifest = reparse_manifest(2)
    path = write_manifest(manifest, tmp_path)
    record = planned(path, manifest)
    rewritten = replace(manifest, items=manifest.items[:5])
    path.write_text(path.read_text().replace(manifest.fingerprint, "x"))  # a crude edit first
    with pytest.raises(BackfillRefused, match="edited after the preview"):
        verified_manifest(record, path, "reparse", needs_approval=True)
    path.write_text(json.dumps(rewritten.to_dict(), default=str))
    with pytest.raises(
        BackfillRefused, match=f"has fingerprint {rewritten.fingerprint[:12]}, not the"
    ):
        verified_manifest(record, path, "reparse", needs_approval=True)


def test_apply_refuses_without_a_plan_or_an_approval(tmp_path: Path) -> None:
    manifest = reparse_manifest(2)
    path = write_manifest(manifest, tmp_path)
    with pytest.raises(BackfillRefused, match="no plan recorded"):
        verified_manifest(None, path, "reparse", needs_approval=False)
    for decision in (None, "rejected"):
        with pytest.raises(BackfillRefused, match="was not approved"):
            verified_manifest(
                planned(path, manifest, decision), path, "reparse", needs_approval=True
            )
    # A run that asked for no approval needs only the planned manifest.
    assert verified_manifest(planned(path, manifest, None), path, "reparse", needs_approval=False)
