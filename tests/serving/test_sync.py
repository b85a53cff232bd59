"""The serving schema: its DDL step, the transactional diff, dry runs, search and
the web app's read-only role."""

from __future__ import annotations

from dataclasses import replace

import psycopg
import pytest

from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving
from serving_sync import schema
from serving_sync.reconcile import SyncReport, reconcile, search, serving_row, vacuum_due
from serving_sync.text import fold


def collect(app) -> None:
    for name in app.source_names():
        discover(app, name, force=True)
        fetch_details(app, name)
        parse_source(app, name)


def published(app) -> dict[int, str]:
    with app.serving_db.connect() as conn:
        return {
            r["id"]: r["fingerprint"]
            for r in conn.execute("SELECT id, fingerprint FROM serving.jobs")
        }


def test_ddl_is_versioned_and_idempotent(app) -> None:
    assert schema.applied_versions(app.serving_db) == [m.version for m in schema.migrations()]
    assert schema.upgrade(app.serving_db) == []


def test_dry_run_reports_the_diff_and_changes_nothing(app) -> None:
    collect(app)
    preview = reconcile(app.db, app.serving_db, dry_run=True)
    assert preview.inserted > 0
    assert preview.updated == preview.removed == 0
    assert published(app) == {}
    applied = reconcile(app.db, app.serving_db)
    assert applied.inserted == preview.inserted
    with app.serving_db.connect() as conn:
        runs = conn.execute(
            "SELECT dry_run, status, inserted FROM serving.sync_runs ORDER BY id"
        ).fetchall()
    assert [(r["dry_run"], r["status"]) for r in runs] == [(True, "previewed"), (False, "applied")]
    assert runs[0]["inserted"] == runs[1]["inserted"]


def test_rows_no_longer_open_are_removed(app) -> None:
    collect(app)
    sync_serving(app)
    with app.db.connect() as conn:
        closed = conn.execute(
            "UPDATE core.postings SET status = 'expired' WHERE id = (SELECT min(id) FROM core.postings) RETURNING id"
        ).fetchone()["id"]
    preview = reconcile(app.db, app.serving_db, dry_run=True)
    assert (preview.inserted, preview.updated, preview.removed) == (0, 0, 1)
    assert closed in published(app)
    report = sync_serving(app).stats
    assert report["removed"] == 1
    assert closed not in published(app)


def test_fingerprint_changes_only_with_published_content(app) -> None:
    collect(app)
    sync_serving(app)
    before = published(app)
    with app.db.connect() as conn:
        # A re-poll the same day is not a change...
        conn.execute(
            "UPDATE core.postings SET last_seen_at = date_trunc('day', now()) + interval '1 minute'"
        )
    assert reconcile(app.db, app.serving_db).updated == 0
    with app.db.connect() as conn:
        # ...an edited title is.
        conn.execute(
            "UPDATE core.parse_results SET title = title || ' (updated)' "
            "WHERE id = (SELECT min(id) FROM core.parse_results WHERE is_current)"
        )
    report = reconcile(app.db, app.serving_db)
    assert (report.updated, report.inserted, report.removed) == (1, 0, 0)
    assert len([k for k, v in published(app).items() if before[k] != v]) == 1


def test_serving_row_marks_an_unresolved_or_missing_location_as_unresolved() -> None:
    row = serving_row(
        {
            "id": 1,
            "title": "x",
            "location": {"countries": [], "unresolved": ["Atlantis"], "offices": []},
        }
    )
    assert row["countries"] == []
    assert row["location_unresolved"] is True
    row = serving_row({"id": 1, "title": "x", "location": None})
    assert row["location_unresolved"] is True


def test_search_folds_diacritics_and_supports_web_syntax(app) -> None:
    collect(app)
    sync_serving(app)
    with app.serving_db.connect() as conn:
        vn = conn.execute(
            "SELECT title FROM serving.jobs WHERE source = 'vieclam' LIMIT 1"
        ).fetchone()["title"]
        sql_fold = conn.execute(
            "SELECT serving.fold(%s) AS f", ("Hà Nội ĐÀ NẴNG Zürich",)
        ).fetchone()["f"]
    assert sql_fold == fold("Hà Nội ĐÀ NẴNG Zürich") == "ha noi da nang zurich"
    hits = [h["title"] for h in search(app.serving_db, fold(vn), 50)]
    assert vn in hits
    # Backend engineers only, so the result stays under search_jobs' 100-row cap.
    all_engineers = list(search(app.serving_db, "backend engineer", 100))
    without_senior = list(search(app.serving_db, "backend engineer -senior", 100))
    assert len(all_engineers) < 100
    assert len(without_senior) < len(all_engineers)
    assert all("senior" not in h["title"].lower() for h in without_senior)
    assert list(search(app.serving_db, "zzzznotaword", 5)) == []


def test_web_role_reads_but_cannot_write(app) -> None:
    collect(app)
    sync_serving(app)
    info = psycopg.conninfo.conninfo_to_dict(app.serving_db.url)
    info["user"] = "jobharbor_web"
    with psycopg.connect(**info) as conn:
        # It reads through the search functions only.
        assert conn.execute(
            "SELECT * FROM serving.web_job(%s)", (next(iter(published(app))),)
        ).fetchone()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT count(*) FROM serving.jobs")
    with psycopg.connect(**info) as conn:
        assert conn.execute("SHOW statement_timeout").fetchone()[0] == "3s"
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("DELETE FROM serving.jobs")
    with psycopg.connect(**info, autocommit=True) as conn:
        conn.execute("SET default_transaction_read_only = off")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM serving.jobs")


def test_a_sync_that_would_empty_serving_is_refused_unless_asked(app) -> None:
    """An empty source (the wrong database, a fresh cluster) must not wipe the site."""
    from pipeline.errors import FatalError

    collect(app)
    published_rows = sync_serving(app).stats["inserted"]
    with app.db.connect() as conn:
        conn.execute("UPDATE core.postings SET status = 'expired'")
    preview = reconcile(app.db, app.serving_db, dry_run=True)
    assert preview.removed == published_rows  # a preview still shows it
    with pytest.raises(
        FatalError, match=f"would remove all {published_rows} published rows; refusing"
    ):
        reconcile(app.db, app.serving_db)
    assert len(published(app)) == published_rows
    with app.serving_db.connect() as conn:
        last = conn.execute(
            "SELECT status, error FROM serving.sync_runs ORDER BY id DESC LIMIT 1"
        ).fetchone()
    assert last["status"] == "failed"
    assert "refusing" in last["error"]
    assert reconcile(app.db, app.serving_db, allow_mass_removal=True).removed == published_rows
    assert published(app) == {}


def test_removing_most_of_a_large_serving_table_is_refused(app) -> None:
    from serving_sync.reconcile import check_removal

    assert check_removal({"removed": 60, "updated": 0, "unchanged": 40}, 40) is not None
    assert check_removal({"removed": 60, "updated": 0, "unchanged": 100}, 100) is None
    assert check_removal({"removed": 10, "updated": 0, "unchanged": 5}, 5) is None  # a handful


def test_the_sync_publishes_each_descriptions_shape_line_for_line(app) -> None:
    collect(app)
    sync_serving(app)
    with app.serving_db.connect() as conn:
        rows = conn.execute(
            "SELECT source, description, description_layout FROM serving.jobs "
            "WHERE description IS NOT NULL"
        ).fetchall()
    assert rows
    for row in rows:
        assert len(row["description_layout"]) == row["description"].count("\n") + 1, row
    # The sandbox's Greenhouse descriptions are HTML with headings and bullet lists.
    greenhouse = [r["description_layout"] for r in rows if r["source"] == "greenhouse"]
    assert greenhouse
    assert all({"h", "u", "p"} <= set(layout) for layout in greenhouse)


def test_serving_row_reads_the_layout_from_the_postings_html() -> None:
    record = {"id": 1, "title": "x", "location": None, "description": "Duties\nShip it"}
    html = {**record, "description_html": "<h3>Duties</h3><ul><li>Ship it</li></ul>"}
    assert serving_row(html)["description_layout"] == "hu"
    assert "description_html" not in serving_row(html)  # used, never published
    assert serving_row(record)["description_layout"] == "pp"


def _pages(app) -> tuple[int, int]:
    """serving.jobs' (pages, all-visible pages) as its last VACUUM or ANALYZE left them."""
    with app.serving_db.connect() as conn:
        row = conn.execute(
            "SELECT relpages, relallvisible FROM pg_class WHERE oid = 'serving.jobs'::regclass"
        ).fetchone()
    return row["relpages"], row["relallvisible"]


def test_an_applied_sync_that_wrote_rows_leaves_every_page_of_jobs_all_visible(app) -> None:
    collect(app)
    reconcile(app.db, app.serving_db, dry_run=True)
    assert _pages(app)[1] == 0  # a dry run writes nothing and vacuums nothing
    assert reconcile(app.db, app.serving_db).inserted > 0
    pages, visible = _pages(app)
    assert pages > 0
    assert visible == pages  # vacuumed after the commit: index-only scans skip the heap
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE core.postings SET status = 'expired' WHERE id = (SELECT min(id) FROM core.postings)"
        )
        conn.commit()
    assert reconcile(app.db, app.serving_db).removed == 1
    pages, visible = _pages(app)
    assert visible == pages


def test_a_sync_vacuums_only_when_it_left_old_row_versions() -> None:
    quiet = SyncReport(
        dry_run=False, source_rows=5, inserted=0, updated=0, removed=0, unchanged=5, elapsed_s=0
    )
    assert not vacuum_due(quiet)
    assert not vacuum_due(replace(quiet, liveness=5))  # serving.job_liveness, not jobs
    for change in ("inserted", "updated", "removed"):
        assert vacuum_due(replace(quiet, **{change: 1})), change
