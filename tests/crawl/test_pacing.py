"""Politeness: one token bucket per host shared by every worker through crawl.hosts,
Retry-After obeyed exactly by all of them, exponential cooldowns without it, and our
own limiter's refusals recorded against nobody.

Timing claims are checked on the host's side: the sandbox's log of when each
request arrived."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from pipeline.crawl.pacing import (
    COOLDOWN_BASE_S,
    RETRY_AFTER_MAX_S,
    Budget,
    Pacer,
    parse_retry_after,
    slot_delays,
)
from pipeline.db.connect import Database
from pipeline.phases.discover import discover
from tests.apps import (
    board,
    finish_worker,
    greenhouse_source,
    make_due,
    query,
    scans,
    set_fault,
    start_worker,
)

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("5", 5.0),
        (" 120 ", 120.0),
        ("0", 0.0),
        ("Sun, 01 Mar 2026 12:00:30 GMT", 30.0),  # an HTTP-date 30 s ahead
        ("Sun, 01 Mar 2026 11:59:00 GMT", 0.0),  # a date in the past: go now
        ("99999999", RETRY_AFTER_MAX_S),  # longer than a day is read as a day
        ("soon", None),
        ("-5", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_is_read_as_seconds_or_an_http_date(header, seconds) -> None:
    assert parse_retry_after(header, NOW) == seconds


def test_slots_follow_the_bucket() -> None:
    # Two tokens in hand at 2/s: two requests now, then one every half second.
    assert slot_delays(2.0, 4, 2.0) == (0.0, 0.0, 0.5, 1.0)
    # In debt (slots promised to others) or in a cooldown: the first slot waits.
    assert slot_delays(-1.0, 2, 2.0) == (1.0, 1.5)


def test_one_bucket_per_host_shared_by_separate_connections(databases) -> None:
    db: Database = databases.db
    budget = Budget(rate_per_s=2.0, burst=3)
    one, two = Pacer(db, max_wait_s=2.0), Pacer(db, max_wait_s=2.0)
    try:
        first = one.reserve("host.example", budget, 3)
        assert first.delays == (0.0, 0.0, 0.0)
        assert first.refused == 0
        # The other "process" sees the same, now empty bucket: its slots come later,
        # and only those within its wait limit are granted.
        second = two.reserve("host.example", budget, 10)
        assert len(second.delays) == 4
        assert second.refused == 6
        assert second.delays == pytest.approx((0.5, 1.0, 1.5, 2.0), abs=0.05)
        assert second.retry_in_s == pytest.approx(2.5, abs=0.05)
        # Another host has its own bucket.
        assert one.reserve("other.example", budget, 3).delays == (0.0, 0.0, 0.0)
    finally:
        one.close()
        two.close()


def test_after_a_429_with_retry_after_5_no_worker_reaches_the_host_for_5s(
    make_app, sandbox
) -> None:
    tokens = [f"p{i:02d}" for i in range(24)]
    app = make_app(
        greenhouse_source("gh", sandbox.url, tokens, rate=4, burst=1), pacing_max_wait_s=30
    )
    set_fault(sandbox, "greenhouse", "p04", status=429, retry_after="5", times=1)
    workers = [start_worker(app, "--source", "gh", "--limit", "12") for _ in range(2)]
    reports = [finish_worker(w) for w in workers]

    log = [e for e in sandbox.state.requests() if e.path.startswith("/greenhouse/")]
    limited = [e for e in log if e.status == 429]
    assert len(limited) == 1
    t0 = limited[0].at
    after = [e.at - t0 for e in log if e.at > t0]
    # Nobody came back early: not the other worker, not the same one.
    assert after
    assert min(after) >= 5.0
    # ... and the host was not left waiting longer than it asked (a loaded machine
    # may add a little).
    assert min(after) < 5.0 + 2.5
    # Both workers worked before and after the cooldown.
    assert all(r["stats"]["boards"] > 0 for r in reports)
    assert sum(r["stats"]["boards"] for r in reports) == 24
    host = query(app, "SELECT cooldown_reason, cooldown_streak FROM crawl.hosts")[0]
    assert "429" in host["cooldown_reason"]
    assert "Retry-After: 5" in host["cooldown_reason"]
    # The host's "wait" is not the board's failure: no counter moved, and it comes
    # back after a few minutes, never before the host's wait.
    limited_board = board(app, "p04")
    assert [s["outcome"] for s in scans(app, "p04")] == ["rate_limited"]
    assert limited_board["consecutive_failures"] == 0
    assert limited_board["state"] == "active"
    wait = (limited_board["due_at"] - limited_board["last_polled_at"]).total_seconds()
    assert 2 * 60 < wait <= 4 * 60


def test_retry_after_as_an_http_date(make_app, sandbox) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["d1", "d2", "d3"], rate=20, burst=1))
    until = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=4)
    set_fault(
        sandbox,
        "greenhouse",
        "d1",
        status=503,
        retry_after=format_datetime(until, usegmt=True),
        times=1,
    )
    wall, mono = time.time(), time.monotonic()
    discover(app, "gh")

    host = query(app, "SELECT cooldown_until FROM crawl.hosts")[0]
    assert abs((host["cooldown_until"] - until).total_seconds()) < 0.5
    log = sandbox.state.requests(platform="greenhouse")
    t0 = next(e.at for e in log if e.status == 503)
    until_mono = mono + (until.timestamp() - wall)
    later = [e.at for e in log if e.at > t0]
    assert len(later) == 2
    assert min(later) >= until_mono - 0.05


def test_without_retry_after_the_cooldown_grows_exponentially_and_resets(make_app, sandbox) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["e1"]))

    def poll_and_read_cooldown() -> tuple[float, int]:
        make_due(app)
        discover(app, "gh")
        row = query(
            app,
            "SELECT EXTRACT(EPOCH FROM cooldown_until - now())::float8 AS left, cooldown_streak"
            " FROM crawl.hosts",
        )[0]
        # Time passes: the cooldown is over (the streak stays).
        with app.db.connect() as conn:
            conn.execute("UPDATE crawl.hosts SET cooldown_until = now(), tokens_at = now()")
            conn.commit()
        return row["left"], row["cooldown_streak"]

    set_fault(sandbox, "greenhouse", "e1", status=503, times=2)
    first, streak1 = poll_and_read_cooldown()
    second, streak2 = poll_and_read_cooldown()
    assert first == pytest.approx(COOLDOWN_BASE_S, abs=2)
    assert second == pytest.approx(2 * COOLDOWN_BASE_S, abs=2)
    assert (streak1, streak2) == (1, 2)
    # A good answer ends the streak: the next cooldown starts small again.
    poll_and_read_cooldown()
    assert query(app, "SELECT cooldown_streak FROM crawl.hosts") == [{"cooldown_streak": 0}]
    assert [s["outcome"] for s in scans(app, "e1")] == ["rate_limited", "rate_limited", "changed"]


def test_our_limiter_refusing_records_nothing_against_the_board(make_app, sandbox) -> None:
    tokens = [f"r{i}" for i in range(10)]
    app = make_app(
        greenhouse_source("gh", sandbox.url, tokens, rate=1, burst=1), pacing_max_wait_s=1.0
    )

    report = discover(app, "gh")

    polled = {e.token for e in sandbox.state.requests(platform="greenhouse")}
    assert len(polled) == 2  # one token now, one a second later: the rest could not wait
    assert report.stats["deferred"] == 8
    for token in set(tokens) - polled:
        row = board(app, token)
        assert scans(app, token) == []
        assert row["consecutive_failures"] == 0
        assert row["state"] == "active"
        assert row["state_reason"] is None
        assert row["last_polled_at"] is None
        assert row["lease_owner"] is None
        wait = (row["due_at"] - datetime.now(UTC)).total_seconds()
        assert 2.5 * 60 < wait < 5 * 60  # back in the queue a few minutes later
    assert query(
        app,
        """SELECT count(*) AS n FROM crawl.fetch_attempts a JOIN crawl.boards b ON b.id = a.board_id
           WHERE NOT (b.board_key = ANY(%s))""",
        list(polled),
    ) == [{"n": 0}]


def test_two_worker_processes_together_keep_to_the_hosts_rate(make_app, sandbox) -> None:
    tokens = [f"s{i:02d}" for i in range(12)]
    app = make_app(
        greenhouse_source("gh", sandbox.url, tokens, rate=2, burst=1), pacing_max_wait_s=30
    )
    workers = [start_worker(app, "--source", "gh", "--limit", "6") for _ in range(2)]
    reports = [finish_worker(w) for w in workers]

    assert [r["stats"]["boards"] for r in reports] == [6, 6]
    arrivals = sorted(e.at for e in sandbox.state.requests(platform="greenhouse"))
    assert len(arrivals) == 12
    # A bucket of rate 2/s and burst 1 lets n requests through in no less than
    # (n - 1) / 2 seconds, whoever sends them. The sandbox stamps a request when its
    # thread gets to it: on a loaded machine the first stamp can be a few tenths late.
    assert arrivals[-1] - arrivals[0] >= (12 - 1) / 2 - 0.4
    # ... and in any window, at most burst + rate * window, allowing one request of
    # scheduling noise (a starved worker sending its slot late next to the other's).
    for i in range(len(arrivals)):
        for j in range(i + 1, len(arrivals)):
            assert j - i + 1 <= 1 + 1 + 2 * (arrivals[j] - arrivals[i])


def _redirect_after_429(make_app, sandbox, retry_after_s: int, max_wait_s: float):
    """Both listings asked at once: r1 answers 429 at once, r2 a redirect on the same
    host 2 s later (inside the wait r1 asked for). The app and the sandbox's log."""
    app = make_app(
        greenhouse_source("gh", sandbox.url, ["r1", "r2"], rate=20, burst=5),
        pacing_max_wait_s=max_wait_s,
    )
    set_fault(sandbox, "greenhouse", "r1", status=429, retry_after=str(retry_after_s), times=1)
    set_fault(sandbox, "greenhouse", "r2", redirect="/scenarios-login", delay_s=2.0, times=1)
    discover(app, "gh")
    return app, sandbox.state.requests()


def test_a_redirect_answered_after_a_429_is_followed_only_after_the_cooldown(
    make_app, sandbox
) -> None:
    app, log = _redirect_after_429(make_app, sandbox, retry_after_s=3, max_wait_s=30.0)
    t0 = next(e.at for e in log if e.status == 429)
    # The sandbox logs a request when it arrives; r2's answer left 2 s later.
    redirected = next(e.at for e in log if e.status == 302) + 2.0
    assert redirected > t0  # the redirect came after the host asked for its wait
    (hop,) = [e.at for e in log if e.path.startswith("/scenarios-login")]
    assert hop >= t0 + 3.0 - 0.05  # followed once the wait was over, not inside it
    # ... and every request sent is recorded, the redirect included.
    assert len(query(app, "SELECT url FROM crawl.fetch_attempts")) == len(log)


def test_a_redirect_after_a_429_longer_than_a_slot_may_wait_fails_with_its_hop_recorded(
    make_app, sandbox
) -> None:
    app, log = _redirect_after_429(make_app, sandbox, retry_after_s=5, max_wait_s=1.0)
    assert [e for e in log if e.path.startswith("/scenarios-login")] == []
    assert [s["outcome"] for s in scans(app, "r2")] == ["failed"]
    # The redirect that was answered is recorded; the hop never sent is not.
    assert len(query(app, "SELECT url FROM crawl.fetch_attempts")) == len(log)
