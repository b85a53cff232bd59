"""The queue: SKIP LOCKED batch claims with leases, lanes as claim filters, leases
released with the results, and a dead worker's boards claimed again."""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from urllib.parse import urlsplit

from pipeline.crawl.queue import ClaimFilter, claim, new_owner
from pipeline.phases.discover import discover
from tests.apps import (
    board,
    greenhouse_source,
    query,
    scans,
    set_fault,
    site_source,
    start_worker,
)


def _listing_requests(sandbox, platform: str = "greenhouse") -> Counter[str]:
    return Counter(e.token for e in sandbox.state.requests(platform=platform))


def test_two_concurrent_workers_poll_each_of_1000_boards_exactly_once(make_app, sandbox) -> None:
    tokens = [f"b{i:04d}" for i in range(1000)]
    app = make_app(greenhouse_source("gh", sandbox.url, tokens, rate=1000, burst=1000))
    reports = []

    def worker() -> None:
        reports.append(discover(app, "gh", shared=True))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=240)

    assert [r.status for r in reports] == ["succeeded", "succeeded"]
    # Both workers did part of the work, and together all of it, once.
    assert all(r.stats["boards"] > 0 for r in reports)
    assert sum(r.stats["boards"] for r in reports) == 1000
    per_board = query(
        app,
        "SELECT board_id, count(*) AS n FROM crawl.scans GROUP BY board_id HAVING count(*) <> 1",
    )
    assert per_board == []
    assert query(app, "SELECT count(DISTINCT board_id) AS n FROM crawl.scans") == [{"n": 1000}]
    # The host saw each board's listing exactly once.
    requests = _listing_requests(sandbox)
    assert set(requests) == set(tokens)
    assert set(requests.values()) == {1}
    # Finishing released every lease and scheduled every board.
    assert query(
        app,
        "SELECT count(*) AS n FROM crawl.boards WHERE lease_owner IS NULL AND due_at > now()",
    ) == [{"n": 1000}]


def test_a_killed_workers_boards_are_polled_again_after_its_lease(make_app, sandbox) -> None:
    tokens = [f"k{i:02d}" for i in range(6)]
    app = make_app(greenhouse_source("gh", sandbox.url, tokens))
    for token in tokens:
        set_fault(sandbox, "greenhouse", token, delay_s=30, times=1)  # the first answer hangs
    doomed = start_worker(app, "--source", "gh", "--lease", "3")
    try:
        deadline = time.monotonic() + 30
        while len(sandbox.state.requests(platform="greenhouse")) < len(tokens):
            assert time.monotonic() < deadline, "the worker never polled"
            time.sleep(0.05)
        held = query(app, "SELECT lease_owner, lease_expires_at FROM crawl.boards")
        assert {row["lease_owner"] for row in held} != {None}
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(timeout=10)
    finally:
        doomed.kill()
    killed_at = time.monotonic()

    # While the dead worker's leases run, nobody may take its boards.
    early = discover(app, "gh")
    assert early.stats["boards"] == 0
    time.sleep(3.5)
    late = discover(app, "gh")

    assert late.stats["boards"] == len(tokens)
    assert late.stats["outcomes"] == {"changed": len(tokens)}
    for token in tokens:
        polls = list(sandbox.state.requests(platform="greenhouse", token=token))
        assert len(polls) == 2  # the hung one, and the one after the lease
        assert polls[1].at >= killed_at
        assert len(scans(app, token)) == 1  # the dead worker recorded nothing
        assert board(app, token)["lease_owner"] is None


def test_results_are_only_recorded_under_the_lease(make_app, sandbox) -> None:
    """A worker that lost its lease (another took the board over) writes no results:
    scan, postings and schedule come from the owner only; its request is still logged."""
    app = make_app(greenhouse_source("gh", sandbox.url, ["slow"]))
    set_fault(sandbox, "greenhouse", "slow", delay_s=1.5)
    result = {}
    thread = threading.Thread(
        target=lambda: result.setdefault("r", discover(app, "gh", shared=True))
    )
    thread.start()
    deadline = time.monotonic() + 10
    while not sandbox.state.requests(platform="greenhouse"):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    with app.db.connect() as conn:  # as if the lease had expired and another worker claimed it
        conn.execute(
            "UPDATE crawl.boards SET lease_owner = 'other-worker' WHERE board_key = 'slow'"
        )
        conn.commit()
    thread.join(timeout=30)

    assert result["r"].stats["lease_lost"] == 1
    assert scans(app, "slow") == []
    assert query(app, "SELECT count(*) AS n FROM core.postings") == [{"n": 0}]
    row = board(app, "slow")
    assert row["lease_owner"] == "other-worker"
    assert row["last_polled_at"] is None
    attempts = query(app, "SELECT outcome, http_status FROM crawl.fetch_attempts")
    assert attempts == [{"outcome": "changed", "http_status": 200}]


def test_claims_are_batched_skip_locked_and_exclusive(make_app, sandbox) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, [f"c{i}" for i in range(10)]))
    with app.db.connect() as first, app.db.connect() as second:
        first.execute("BEGIN")
        locked = first.execute(
            "SELECT id FROM crawl.boards ORDER BY id LIMIT 3 FOR UPDATE"
        ).fetchall()
        # Rows another transaction holds are skipped, not waited for.
        got = claim(second, new_owner(), ClaimFilter("gh"), 100)
        first.rollback()
        assert len(got) == 7
        assert not {r["id"] for r in locked} & {b.id for b in got}
        leases = second.execute(
            "SELECT lease_owner, lease_expires_at FROM crawl.boards WHERE id = ANY(%s)",
            ([b.id for b in got],),
        ).fetchall()
        second.rollback()
        assert len(leases) == 7
        assert all(r["lease_owner"] and r["lease_expires_at"] for r in leases)
        # Leased boards are not claimed again while the lease runs: only the 3 remain.
        again = claim(first, new_owner(), ClaimFilter("gh"), 100)
        assert {b.id for b in again} == {r["id"] for r in locked}
        assert claim(second, new_owner(), ClaimFilter("gh"), 100) == []


def test_a_lane_is_a_claim_filter_across_sources(make_app, sandbox) -> None:
    app = make_app(
        greenhouse_source("gh-a", sandbox.url, ["a1", "a2"])
        + greenhouse_source("gh-b", sandbox.url, ["b1"])
        + site_source("site", f"{sandbox.url}/sites/vieclam", ["it"])
    )
    lanes = {
        row["board_key"]: row["lane"]
        for row in query(app, "SELECT board_key, lane FROM crawl.boards")
    }
    host = urlsplit(sandbox.url).netloc
    assert lanes == {
        "a1": "greenhouse",
        "a2": "greenhouse",
        "b1": "greenhouse",
        "it": f"site:{host}",
    }

    report = discover(app, lane="greenhouse")

    assert report.stats["boards"] == 3
    assert report.stats["lane"] == "greenhouse"
    assert {s["board_id"] for s in query(app, "SELECT board_id FROM crawl.scans")} == {
        board(app, k)["id"] for k in ("a1", "a2", "b1")
    }
    assert sandbox.state.requests(platform="site:vieclam") == []
    # The same lane with a source: only that source's boards.
    assert discover(app, "gh-b", lane="greenhouse", force=True).stats["boards"] == 1


def test_cli_discover_by_lane(make_app, sandbox) -> None:
    app = make_app(
        greenhouse_source("gh", sandbox.url, ["x1", "x2"])
        + site_source("site", f"{sandbox.url}/sites/vieclam", ["it"])
    )
    import subprocess
    import sys

    from tests.apps import worker_env

    done = subprocess.run(
        [sys.executable, "-m", "pipeline", "discover", "--lane", "greenhouse"],
        env=worker_env(app),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "boards=2" in done.stdout
    assert {e.token for e in sandbox.state.requests(platform="greenhouse")} == {"x1", "x2"}
    assert sandbox.state.requests(platform="site:vieclam") == []
