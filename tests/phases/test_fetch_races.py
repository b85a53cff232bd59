"""The fetch phase never stores a page for the wrong posting: not an older page over
a newer row, and not another page it was redirected to."""

from __future__ import annotations

import json
import threading
import time

import httpx

from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details


def _site_posting(app) -> dict:
    with app.db.connect() as conn:
        return conn.execute(
            "SELECT id, external_id, detail_url, row_hash FROM core.postings "
            "WHERE source_id = 'vieclam' AND detail_url LIKE '%%/it/%%' ORDER BY id LIMIT 1"
        ).fetchone()


def _fault(sandbox, token: str, spec: dict) -> None:
    httpx.post(
        f"{sandbox.url}/_sandbox/fault",
        params={"platform": "site:vieclam", "token": token},
        content=json.dumps(spec),
    ).raise_for_status()


def test_a_row_changed_during_the_fetch_keeps_its_newer_state(app, sandbox) -> None:
    discover(app, "vieclam", force=True)
    target = _site_posting(app)
    with app.db.connect() as conn:  # only the target is due
        conn.execute(
            "UPDATE core.postings SET detail_state = 'fetched' WHERE source_id = 'vieclam' AND id <> %s",
            (target["id"],),
        )
    _fault(sandbox, "it", {"delay_s": 1.5})  # the page is slow...

    def discover_sees_a_change() -> None:  # ...and meanwhile the listing row changes
        time.sleep(0.5)
        with app.db.connect() as conn:
            conn.execute(
                "UPDATE core.postings SET row_hash = 'newer', detail_url = detail_url || '?v=2', "
                "detail_state = 'needed' WHERE id = %s",
                (target["id"],),
            )

    changer = threading.Thread(target=discover_sees_a_change)
    changer.start()
    fetch_details(app, "vieclam")
    changer.join()
    with app.db.connect() as conn:
        row = conn.execute(
            "SELECT detail_state, content_raw_sha256 FROM core.postings WHERE id = %s",
            (target["id"],),
        ).fetchone()
    assert (row["detail_state"], row["content_raw_sha256"]) == ("needed", None)


def test_a_detail_page_redirected_to_another_posting_is_not_stored(app, sandbox) -> None:
    discover(app, "vieclam", force=True)
    target = _site_posting(app)
    _fault(sandbox, "it", {"redirect": f"{sandbox.url}/sites/vieclam/it/jobs?page=1"})
    outcomes = fetch_details(app, "vieclam").stats["outcomes"]
    with app.db.connect() as conn:
        row = conn.execute(
            "SELECT detail_state, content_raw_sha256 FROM core.postings WHERE id = %s",
            (target["id"],),
        ).fetchone()
    assert outcomes.get("failed", 0) >= 1
    assert (row["detail_state"], row["content_raw_sha256"]) == ("failed", None)


def test_a_page_our_limiter_defers_mid_listing_keeps_the_pages_read(app, sandbox, tmp_path) -> None:
    """Page 2 cannot get a slot in time: page 1's postings stand (they may add, never
    retire), and the scan says it is truncated."""
    from pipeline.app import App
    from pipeline.crawl.catalog import sync_catalog
    from pipeline.settings import REPO_ROOT

    slow = tmp_path / "slow.yaml"
    slow.write_text(
        (REPO_ROOT / "sandbox" / "sources.yaml")
        .read_text()
        .replace(
            "pacing: {rate_per_s: 20, burst: 10}", "pacing: {rate_per_s: 0.01, burst: 2}"
        )  # robots.txt + page 1
    )
    paced = App.create(
        settings=app.settings.model_copy(update={"sources_file": slow, "pacing_max_wait_s": 0.5})
    )
    sync_catalog(paced)
    stats = discover(paced, "vieclam", force=True, limit=1).stats
    with paced.db.connect() as conn:
        scan = conn.execute(
            "SELECT truncated, complete, pages FROM crawl.scans ORDER BY id DESC LIMIT 1"
        ).fetchone()
    assert stats["postings_new"] == 10  # the whole first page
    assert (scan["truncated"], scan["complete"], scan["pages"]) == (True, False, 1)
