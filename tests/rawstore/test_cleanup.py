"""Raw cleanup: a dry run lists and deletes nothing; an apply deletes exactly the eligible
objects through the RawStore (file and S3) after verifying them, and every protected
class survives; re-parsing a posting whose raw was deleted says a fetch is needed."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pipeline.app import App
from pipeline.backfill.cleanup import plan_cleanup, run_cleanup
from pipeline.backfill.reparse import ReparseSelection, apply_reparse, plan_reparse
from pipeline.crawl.catalog import sync_catalog
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from tests.backfill.snapshot import table_snapshot
from tests.conftest import make_settings
from tests.rawstore.test_rawstore import s3_endpoint

__all__ = ["s3_endpoint"]  # the moto server fixture


@pytest.fixture(params=["file", "s3"])
def cleanup_app(request: pytest.FixtureRequest, databases, sandbox, tmp_path: Path) -> App:
    extra: dict[str, object] = {}
    if request.param == "s3":
        extra = {
            "s3_endpoint": request.getfixturevalue("s3_endpoint"),
            "s3_access_key": "testing",
            "s3_secret_key": "testing",
            "s3_secure": False,
            "s3_region": "us-east-1",
            "raw_store_url": f"s3://cleanup-{tmp_path.name.lower().replace('_', '-')[-30:]}/raw",
        }
    app = App.create(settings=make_settings(databases, tmp_path, sandbox_url=sandbox.url, **extra))
    sync_catalog(app)
    assert discover(app, "vieclam", force=True).status == "succeeded"
    assert fetch_details(app, "vieclam").status == "succeeded"
    assert parse_source(app, "vieclam").status == "succeeded"
    return app


def _raw(app: App, sha: str) -> tuple[str, str | None, bool]:
    with app.db.connect() as conn:
        row = conn.execute(
            "SELECT state, state_reason, object_key FROM crawl.raw_objects WHERE sha256 = %s",
            (sha,),
        ).fetchone()
    return row["state"], row["state_reason"], app.raw_store.size(row["object_key"]) is not None


def _arrange(app: App) -> dict[str, str]:
    """Age everything past retention, then set up one posting (or object) per class."""
    with app.db.connect() as conn:
        conn.execute("UPDATE crawl.raw_objects SET fetched_at = now() - interval '60 days'")
        rows = conn.execute(
            """SELECT id, content_raw_sha256 AS sha FROM core.postings
               WHERE source_id = 'vieclam' AND content_raw_sha256 <> listing_raw_sha256
               ORDER BY id LIMIT 5"""
        ).fetchall()
        ids = [r["id"] for r in rows]
        conn.execute("UPDATE core.postings SET status = 'missing' WHERE id = %s", (ids[1],))
        conn.execute("UPDATE core.postings SET status = 'expired' WHERE id = ANY(%s)", (ids[2:],))
        conn.execute(  # young: fetched an hour ago
            "UPDATE crawl.raw_objects SET fetched_at = now() - interval '1 hour' WHERE sha256 = %s",
            (rows[3]["sha"],),
        )
        conn.commit()
    with app.archive() as archive:  # unparsed: a new content no result was parsed from yet
        from datetime import UTC, datetime, timedelta

        unparsed = archive.save(
            source_id="vieclam", body=b"<html>new page</html>", url="https://x.example/1",
            content_type="text/html", http_status=200,
            fetched_at=datetime.now(UTC) - timedelta(days=60),
        ).sha256  # fmt: skip
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE core.postings SET content_raw_sha256 = %s WHERE id = %s", (unparsed, ids[4])
        )
        conn.execute(  # pending: an upload a crash left half done, long ago
            """INSERT INTO crawl.raw_objects (sha256, object_key, byte_length, source_id, url,
                   state, fetched_at)
               VALUES ('f' || repeat('0', 63), 'vieclam/pending.bin', 3, 'vieclam', 'https://x',
                   'pending', now() - interval '60 days')"""
        )
        newest = conn.execute(
            """SELECT DISTINCT ON (board_id) raw_sha256 FROM crawl.scans
               WHERE raw_sha256 IS NOT NULL ORDER BY board_id, id DESC"""
        ).fetchall()
        # Every other vieclam posting closed: board listings survive on the newest-scan rule only.
        conn.execute(
            """UPDATE core.postings SET status = 'expired'
               WHERE source_id = 'vieclam' AND NOT (id = ANY(%s))""",
            (ids[:2],),
        )
        conn.commit()
    return {
        "active": rows[0]["sha"],
        "missing": rows[1]["sha"],
        "closed": rows[2]["sha"],
        "young": rows[3]["sha"],
        "superseded": rows[4]["sha"],
        "unparsed": unparsed,
        **{f"newest_listing_{i}": r["raw_sha256"] for i, r in enumerate(newest)},
        "closed_posting_id": str(ids[2]),
    }


def test_dry_run_lists_and_apply_deletes_only_the_eligible(
    cleanup_app: App, tmp_path: Path
) -> None:
    app = cleanup_app
    shas = _arrange(app)
    before = table_snapshot(app.db)
    preview = plan_cleanup(app)
    assert table_snapshot(app.db) == before  # the dry run wrote nothing
    assert preview.objects > 0
    assert preview.by_source["vieclam"]["bytes"] == preview.bytes > 0

    report = run_cleanup(app, stream=io.StringIO())
    print("raw cleanup:", report.stats)  # the figures, with -s
    assert report.status == "succeeded"
    assert report.stats["objects"] == preview.objects
    assert report.stats["bytes"] == preview.bytes
    assert report.stats["by_reason"]["closed_posting"] >= 1
    for name in ("closed", "superseded"):
        state, reason, present = _raw(app, shas[name])
        assert (state, present) == ("deleted", False), name
        assert reason.startswith("cleanup: ")
    listings = [k for k in shas if k.startswith("newest_listing_")]
    assert listings
    for name in ("active", "missing", "young", "unparsed", *listings):
        assert _raw(app, shas[name])[0::2] == ("ready", True), name
    assert _raw(app, "f" + "0" * 63)[0] == "pending"

    # A second run finds nothing left to delete.
    assert plan_cleanup(app).objects == 0

    # Re-parsing the closed posting whose raw is gone: a plain "needs a fetch", no crash.
    # (its current result is on that object already: make it look parsed by an older version)
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE core.parse_results SET parser_version = '0' WHERE posting_id = %s",
            (int(shas["closed_posting_id"]),),
        )
        conn.commit()
    manifest, path = plan_reparse(
        app,
        ReparseSelection("vieclam", limit=10, posting_ids=(int(shas["closed_posting_id"]),)),
        tmp_path,
    )
    assert manifest.counts["raw_unavailable"] == 1
    assert "needs a fetch" in manifest.notes[0]
    applied = apply_reparse(app, path, stream=io.StringIO())
    assert applied.status == "succeeded"
    assert applied.stats["needs_fetch"] == 1
    assert "needs a fetch" in applied.stats["message"]
    assert parse_source(app, "vieclam", reparse=True).status == "succeeded"


def test_a_delete_interrupted_before_marking_is_finished_as_deleted_not_lost(
    databases, sandbox, tmp_path: Path
) -> None:
    """A cleanup killed after deleting an object, before marking its row (the crash
    drill `cleanup:after_delete`): the next cleanup finds the object gone with its
    delete intent recorded, and marks it `deleted`. An object gone WITHOUT an intent
    is still `lost` (it vanished on its own)."""
    app = App.create(settings=make_settings(databases, tmp_path, sandbox_url=sandbox.url))
    sync_catalog(app)
    assert discover(app, "vieclam", force=True).status == "succeeded"
    assert fetch_details(app, "vieclam").status == "succeeded"
    assert parse_source(app, "vieclam").status == "succeeded"
    shas = _arrange(app)
    with app.db.connect() as conn:
        keys = {
            name: conn.execute(
                "SELECT object_key FROM crawl.raw_objects WHERE sha256 = %s", (shas[name],)
            ).fetchone()["object_key"]
            for name in ("closed", "superseded")
        }
        conn.execute(  # what the killed run had committed: its intent for `closed`
            "UPDATE crawl.raw_objects SET state_reason = 'deleting: closed_posting' "
            "WHERE sha256 = %s",
            (shas["closed"],),
        )
        conn.commit()
    for key in keys.values():
        app.raw_store.delete(key)
    report = run_cleanup(app, stream=io.StringIO())
    assert report.status == "succeeded"
    state, reason, present = _raw(app, shas["closed"])
    assert (state, present) == ("deleted", False)
    assert "interrupted" in reason
    state, reason, _ = _raw(app, shas["superseded"])
    assert (state, reason) == ("lost", "object is missing from the store")
    assert report.stats["skipped"] == {"failed_verification": 1}
