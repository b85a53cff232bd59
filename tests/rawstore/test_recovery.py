"""Crash safety: raw uploads a crash left `pending` are resolved on the next run, and
the work that depended on a lost object is queued again. Every request is recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.rawstore.file import FileRawStore
from tests.apps import (
    board,
    greenhouse_source,
    make_due,
    query,
    scans,
    set_fault,
    site_source,
)


class CrashingStore(FileRawStore):
    """A raw store whose process dies in the middle of an upload."""

    def put(self, key: str, data: bytes, content_type: str | None) -> None:
        raise SystemExit("killed while uploading")


def _store_path(app, key: str) -> Path:
    return Path(app.settings.effective_raw_store_url.removeprefix("file://")) / key


def _age_pending(app) -> None:
    with app.db.connect() as conn:  # the crash happened a while ago
        conn.execute(
            "UPDATE crawl.raw_objects SET updated_at = now() - interval '1 hour' WHERE state = 'pending'"
        )
        conn.commit()


def test_an_upload_killed_midway_is_lost_and_its_board_polled_again(make_app, sandbox) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["crashy"]))
    healthy_store = app.raw_store
    app.__dict__["raw_store"] = CrashingStore(healthy_store.root)
    with pytest.raises(SystemExit):
        discover(app, "gh", lease_s=1)
    pending = query(app, "SELECT sha256, state FROM crawl.raw_objects")
    assert [p["state"] for p in pending] == ["pending"]
    assert scans(app, "crashy") == []  # nothing was recorded from the dead run
    assert board(app, "crashy")["etag"] is None

    app.__dict__["raw_store"] = healthy_store
    _age_pending(app)
    make_due(app)
    import time

    time.sleep(1.1)  # the dead run's lease runs out
    report = discover(app, "gh")

    assert (report.stats["raw_recovered"], report.stats["raw_lost"]) == (0, 1)
    assert report.stats["outcomes"] == {"changed": 1}
    # Fetched again in full and stored: the same bytes, so the same object, now ready.
    objects = query(app, "SELECT sha256, state, state_reason, object_key FROM crawl.raw_objects")
    assert [(o["sha256"], o["state"]) for o in objects] == [(pending[0]["sha256"], "ready")]
    assert _store_path(app, objects[0]["object_key"]).exists()


def test_pending_objects_are_inspected_ready_if_intact_else_lost_and_requeued(
    make_app, sandbox
) -> None:
    app = make_app(
        greenhouse_source("gh", sandbox.url, ["intact", "vanished"])
        + site_source("site", f"{sandbox.url}/sites/vieclam", ["it"])
    )
    discover(app, "gh")
    discover(app, "site")
    fetch_details(app, "site", limit=1)
    raw_of = {
        b["board_key"]: b["raw_sha256"]
        for b in query(
            app,
            "SELECT b.board_key, s.raw_sha256 FROM crawl.scans s JOIN crawl.boards b ON b.id = s.board_id",
        )
    }
    detail = query(
        app, "SELECT id, content_raw_sha256 FROM core.postings WHERE detail_state = 'fetched'"
    )[0]
    lost = [raw_of["vanished"], detail["content_raw_sha256"]]
    # A crash left three uploads unconfirmed: one whose object made it, two whose did not.
    with app.db.connect() as conn:
        conn.execute(
            "UPDATE crawl.raw_objects SET state = 'pending' WHERE sha256 = ANY(%s)",
            ([raw_of["intact"], *lost],),
        )
        for row in conn.execute(
            "SELECT object_key FROM crawl.raw_objects WHERE sha256 = ANY(%s)", (lost,)
        ).fetchall():
            _store_path(app, row["object_key"]).unlink()
        conn.commit()
    _age_pending(app)
    sandbox.state.log.clear()

    report = discover(app, "gh")

    assert (report.stats["raw_recovered"], report.stats["raw_lost"]) == (1, 2)
    states = {
        r["sha256"]: (r["state"], r["state_reason"])
        for r in query(app, "SELECT sha256, state, state_reason FROM crawl.raw_objects")
    }
    assert states[raw_of["intact"]] == ("ready", None)
    # The lost listing was polled again at once, without validators (a 304 would
    # never send the bytes again), and stored again.
    polled = sandbox.state.requests(platform="greenhouse")
    assert [e.token for e in polled] == ["vanished"]
    assert "if-none-match" not in polled[0].headers
    assert states[raw_of["vanished"]] == ("ready", None)
    assert query(
        app,
        "SELECT count(*) AS n FROM core.postings p JOIN crawl.raw_objects r"
        " ON r.sha256 = p.listing_raw_sha256 WHERE r.state <> 'ready'",
    ) == [{"n": 0}]
    # The lost detail page is fetched again.
    assert states[detail["content_raw_sha256"]] == ("lost", "object is missing from the store")
    assert query(app, "SELECT detail_state FROM core.postings WHERE id = %s", detail["id"]) == [
        {"detail_state": "needed"}
    ]
    assert fetch_details(app, "site", limit=1).stats["outcomes"] == {"fetched": 1}


def test_fresh_pending_uploads_of_live_workers_are_left_alone(make_app, sandbox) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["live"]))
    discover(app, "gh")
    with app.db.connect() as conn:
        conn.execute("UPDATE crawl.raw_objects SET state = 'pending'")
        conn.commit()
    make_due(app)
    report = discover(app, "gh")
    assert (report.stats["raw_recovered"], report.stats["raw_lost"]) == (0, 0)
    assert query(app, "SELECT state FROM crawl.raw_objects") == [{"state": "pending"}]


def test_every_request_is_recorded_with_its_outcome(make_app, sandbox, second_sandbox) -> None:
    app = make_app(
        greenhouse_source("gh", sandbox.url, ["plain", "moved", "limited", "broken"])
        + site_source("site", f"{sandbox.url}/sites/vieclam", ["it"])
    )
    set_fault(
        sandbox,
        "greenhouse",
        "moved",
        redirect=f"{sandbox.url}/greenhouse/v1/boards/plain/jobs?content=true",
    )
    set_fault(sandbox, "greenhouse", "limited", status=429, retry_after="1")
    set_fault(sandbox, "greenhouse", "broken", status=500)
    discover(app, "gh")
    discover(app, "site")
    fetch_details(app, "site", limit=3)

    served = list(sandbox.state.requests())
    recorded = query(app, "SELECT url, http_status, outcome FROM crawl.fetch_attempts ORDER BY id")
    assert len(recorded) == len(served)
    assert sorted(
        (r["url"].removeprefix(sandbox.url), r["http_status"]) for r in recorded
    ) == sorted((e.path, e.status) for e in served)
    outcomes = {r["outcome"] for r in recorded}
    assert outcomes == {
        "changed",
        "redirect",
        "failed",
        "rate_limited",
        "ok",
        "robots_rules",
        "fetched",
    }


def test_cleared_validators_rewrite_an_unchanged_listing(make_app, sandbox) -> None:
    """The parse phase clears a board's validators when a listing's raw object is lost;
    the next poll then points the postings at the new copy even though nothing changed
    (here the bytes differ: the page is re-stamped on every request)."""
    app = make_app(greenhouse_source("gh", sandbox.url, ["stamped"]))
    set_fault(sandbox, "greenhouse", "stamped", restamp=True)
    discover(app, "gh")
    old = query(app, "SELECT DISTINCT listing_raw_sha256 AS sha FROM core.postings")[0]["sha"]
    with app.db.connect() as conn:
        key = conn.execute(
            "UPDATE crawl.raw_objects SET state = 'lost' WHERE sha256 = %s RETURNING object_key",
            (old,),
        ).fetchone()["object_key"]
        conn.execute("UPDATE crawl.boards SET etag = NULL, last_modified = NULL, body_hash = NULL")
        conn.commit()
    _store_path(app, key).unlink()
    make_due(app)

    report = discover(app, "gh")

    assert report.stats["outcomes"] == {"unchanged": 1}
    assert report.stats["postings_changed"] == 0
    pointers = query(
        app,
        """SELECT DISTINCT r.sha256, r.state FROM core.postings p
           JOIN crawl.raw_objects r ON r.sha256 = p.listing_raw_sha256""",
    )
    assert len(pointers) == 1
    assert pointers[0]["sha256"] != old
    assert pointers[0]["state"] == "ready"
    assert board(app, "stamped")["body_hash"] is not None


def test_cli_raw_recover_requeues_the_lost_work(make_app, sandbox) -> None:
    import subprocess
    import sys

    from tests.apps import worker_env

    app = make_app(greenhouse_source("gh", sandbox.url, ["cli"]))
    discover(app, "gh")
    with app.db.connect() as conn:
        key = conn.execute(
            "UPDATE crawl.raw_objects SET state = 'pending' RETURNING object_key"
        ).fetchone()["object_key"]
        conn.commit()
    _store_path(app, key).unlink()
    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "raw", "recover", "--older-than", "0"],
        env=worker_env(app),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "0 ready, 1 lost (work requeued)" in done.stdout
    row = board(app, "cli")
    assert row["etag"] is None
    assert row["due_at"] <= query(app, "SELECT now() AS t")[0]["t"]
