"""The judgments `make up-check EXECUTOR=celery` passes on a real run across Celery
workers (chaos/across_workers.py), each shown failing on a crafted log or crafted rows
where the violation exists, and passing where it does not."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from chaos.across_workers import (
    Arrival,
    Claim,
    RunRow,
    double_claims,
    inside_cooldowns,
    lost_postings,
    over_budget,
    stranded_runs,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_requests_paced_at_the_budget_are_within_it() -> None:
    # 2/s, burst 3: three at once, then one every half second.
    arrivals = [0.0, 0.0, 0.0, *(0.5 * k for k in range(1, 20))]
    assert over_budget(arrivals, rate_per_s=2, burst=3) == []


def test_two_workers_each_at_the_budget_exceed_it_together() -> None:
    """Each worker alone keeps 2/s; interleaved, the host gets 4/s."""
    one = [0.5 * k for k in range(20)]
    two = [0.5 * k + 0.01 for k in range(20)]
    assert over_budget(one, rate_per_s=2, burst=1) == []
    assert over_budget(two, rate_per_s=2, burst=1) == []
    over = over_budget(one + two, rate_per_s=2, burst=1)
    assert len(over) > 10


def test_two_workers_at_the_budget_of_a_fast_host_exceed_it_despite_late_stamps() -> None:
    """10/s, burst 5, as the celery check paces the sandbox: two workers at 10/s each
    for 5 s are caught although every stamp may be half a second late."""
    one = [0.1 * k for k in range(50)]
    assert over_budget(one, rate_per_s=10, burst=5) == []
    over = over_budget(one + [t + 0.05 for t in one], rate_per_s=10, burst=5)
    assert len(over) > 30


def test_requests_sent_at_their_slots_but_stamped_together_are_within_the_budget() -> None:
    """The sandbox, starved of CPU, stamps ten requests of 10/s burst 5 (sent over
    half a second) within 0.3 s: late stamps, not a broken budget."""
    stamped = [0.0, 0.03, 0.03, 0.03, 0.031, 0.062, 0.062, 0.114, 0.151, 0.313]
    assert over_budget(stamped, rate_per_s=10, burst=5) == []
    assert over_budget(stamped, rate_per_s=10, burst=5, late_s=0.0) != []


def test_a_burst_beyond_the_bucket_is_caught_even_late_in_the_run() -> None:
    steady = [float(k) for k in range(30)]  # 1/s on a 2/s budget: room to spare
    burst = [30.0 + 0.001 * k for k in range(8)]  # eight at once on a burst of 3
    assert over_budget(steady, rate_per_s=2, burst=3) == []
    # The saved-up tokens are capped at the burst: beyond its 3, one request of slack
    # and one of late stamps (2/s x 0.5 s), the sixth to the eighth are over.
    assert over_budget(steady + burst, rate_per_s=2, burst=3) == [35, 36, 37]


def test_nothing_inside_a_cooldown_passes() -> None:
    log = [
        Arrival(10.0, "/lever/a", 429, cooldown_until=13.0),
        Arrival(10.4, "/lever/b", 200),  # in flight when the 429 was answered
        Arrival(13.0, "/lever/c", 200),  # exactly at the end
        Arrival(14.0, "/lever/a", 200),
    ]
    assert inside_cooldowns(log) == []


def test_a_request_inside_a_retry_after_is_a_violation() -> None:
    limited = Arrival(10.0, "/lever/a", 429, cooldown_until=13.0)
    early = Arrival(12.9, "/ashby/b", 200)  # another board, another worker: same host
    log = [limited, Arrival(10.1, "/lever/b", 200), early, Arrival(13.5, "/lever/a", 200)]
    assert inside_cooldowns(log) == [(early, limited)]


def test_one_holder_at_a_time_is_no_double_claim() -> None:
    claims = [
        Claim("board 1", "run 5", at(0), at(10)),
        Claim("board 1", "run 6", at(10), at(20)),  # after the first let go
        Claim("board 2", "run 6", at(0), at(30)),
        Claim("board 2", "run 6", at(5), at(8)),  # the same holder, twice: not a double
    ]
    assert double_claims(claims) == []


def test_two_holders_overlapping_on_one_board_is_a_double_claim() -> None:
    first = Claim("board 1", "run 5", at(0), at(10))
    second = Claim("board 1", "run 6", at(9), at(20))
    other = Claim("board 2", "run 7", at(0), at(20))
    assert double_claims([second, other, first]) == [(first, second)]


def test_a_listed_job_without_a_posting_is_lost() -> None:
    listed = {1: {100: {"100", "abc-100"}, 101: {"101"}}, 2: {200: {"200", "R200"}}}
    stored = {(1, "abc-100"), (1, "101"), (2, "R200")}
    assert lost_postings(listed, stored) == []
    assert lost_postings(listed, stored - {(1, "101")}) == [(1, 101)]
    # A posting stored under another board does not count for this one.
    assert lost_postings(listed, {(1, "abc-100"), (1, "101"), (1, "R200")}) == [(2, 200)]


def test_a_killed_workers_run_left_running_is_stranded() -> None:
    runs = [
        RunRow(1, "host:100", "running"),  # the killed process's, never ended
        RunRow(2, "host:100", "failed", "abandoned: the process running it ..."),
        RunRow(3, "host:200", "running"),  # a live process's run
        RunRow(4, "host:101", "succeeded"),
    ]
    assert stranded_runs(runs, killed_pids=[100, 101]) == [runs[0]]


def test_killed_runs_marked_failed_are_not_stranded() -> None:
    runs = [RunRow(1, "host:100", "failed", "abandoned: ..."), RunRow(2, "host:7", "running")]
    assert stranded_runs(runs, killed_pids=[100]) == []
