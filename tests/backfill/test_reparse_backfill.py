"""Re-parse backfill in process: the preview reads only and shows the field-level diff;
apply re-parses exactly the manifest, refuses a changed selection, and resumes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pipeline.app import App
from pipeline.backfill import BackfillRefused, load_manifest
from pipeline.backfill import reparse as reparse_module
from pipeline.backfill.reparse import ReparseSelection, apply_reparse, plan_reparse
from tests.backfill.conftest import bump_lever, lever_versions
from tests.backfill.snapshot import table_snapshot


def test_preview_writes_nothing_and_shows_the_field_diff(parsed_lever: App, tmp_path: Path) -> None:
    app = parsed_lever
    bump_lever(app)
    before = table_snapshot(app.db)
    manifest, path = plan_reparse(app, ReparseSelection("lever", limit=1000), tmp_path)
    assert table_snapshot(app.db) == before  # every table: same rows, same checksums
    postings = lever_versions(app)["1"]
    assert manifest.counts["postings"] == postings == len(manifest.items)
    assert manifest.counts["by_current_parser"] == {"lever@1": postings}
    assert manifest.bytes > 0
    assert manifest.estimated_requests == 0
    assert 0 < len(manifest.sample) <= 20
    first = manifest.sample[0]
    old, new = first["changes"]["title"]
    assert new == old.upper()
    assert first["from"] == "lever@1"
    assert first["to"] == "lever@2"
    assert load_manifest(path).fingerprint == manifest.fingerprint


def test_apply_reparses_the_manifest_and_a_rerun_does_nothing_twice(
    parsed_lever: App, tmp_path: Path
) -> None:
    app = parsed_lever
    bump_lever(app)
    _, path = plan_reparse(app, ReparseSelection("lever", limit=1000, parser="lever@1"), tmp_path)
    first = apply_reparse(app, path, stream=io.StringIO())
    assert first.status == "succeeded"
    assert lever_versions(app) == {"2": first.stats["reparsed"]}
    again = apply_reparse(app, path, stream=io.StringIO())
    assert again.stats["reparsed"] == 0
    assert again.stats["already_done"] == first.stats["reparsed"]


def test_apply_refuses_when_a_posting_changed_since_the_preview(
    parsed_lever: App, tmp_path: Path
) -> None:
    app = parsed_lever
    bump_lever(app)
    manifest, path = plan_reparse(app, ReparseSelection("lever", limit=1000), tmp_path)
    with app.db.connect() as conn:
        # A new listing arrived for one posting: its content object differs now.
        conn.execute(
            """UPDATE core.postings SET content_raw_sha256 = (
                   SELECT sha256 FROM crawl.raw_objects WHERE sha256 <> %s LIMIT 1)
               WHERE id = %s""",
            (manifest.items[0].hash, manifest.items[0].id),
        )
        conn.commit()
    before = table_snapshot(app.db)
    with pytest.raises(BackfillRefused, match="the selection changed since the preview"):
        apply_reparse(app, path, stream=io.StringIO())
    after = table_snapshot(app.db)
    assert lever_versions(app) == {"1": len(manifest.items)}
    # Only the run record changed (it says the apply failed and why).
    assert {k for k in before if before[k] != after[k]} == {'"crawl"."runs"'}


class _Killed(BaseException):
    pass


class _DiesAfterFirstLine(io.StringIO):
    def write(self, text: str) -> int:
        raise _Killed


def test_a_killed_apply_rerun_converges_without_redoing_finished_work(
    parsed_lever: App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = parsed_lever
    bump_lever(app)
    monkeypatch.setattr(reparse_module, "BATCH", 4)
    manifest, path = plan_reparse(app, ReparseSelection("lever", limit=1000), tmp_path)
    with pytest.raises(_Killed):  # dies reporting progress after its first batch
        apply_reparse(app, path, stream=_DiesAfterFirstLine())
    assert lever_versions(app)["2"] == 4
    resumed = apply_reparse(app, path, stream=io.StringIO())
    assert resumed.stats["already_done"] == 4
    assert resumed.stats["reparsed"] == len(manifest.items) - 4
    assert lever_versions(app) == {"2": len(manifest.items)}
