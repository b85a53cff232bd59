"""The one progress helper (pipeline.progress): a bar only on a terminal, rate-limited
lines otherwise, measured on an injected clock instead of sleeps."""

from __future__ import annotations

import io

from pipeline.progress import Progress


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class NotATerminal(io.StringIO):
    def isatty(self) -> bool:
        return False


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_lines_are_rate_limited_to_one_per_interval_on_the_clock() -> None:
    clock, log = FakeClock(), NotATerminal()
    progress = Progress("fetch lever", None, stream=log, every_s=10.0, clock=clock)
    for _ in range(25):  # one item a second for 25 s: lines at 0 s, 10 s, 20 s only
        progress.advance()
        clock.now += 1.0
    progress.finish()
    lines = log.getvalue().splitlines()
    assert [line.split(":")[1].split()[0] for line in lines] == ["1", "11", "21", "25"]
    assert lines[-1] == "fetch lever: 25 done (1.0/s, 25s)"


def test_no_line_between_two_intervals_however_many_items() -> None:
    clock, log = FakeClock(), NotATerminal()
    progress = Progress("parse lever", 100_000, stream=log, every_s=10.0, clock=clock)
    for _ in range(99_999):
        progress.advance()
    assert log.getvalue().count("\n") == 1  # the first item only: the clock never moved
    progress.advance()
    assert log.getvalue().splitlines()[-1].startswith("parse lever: 100000/100000 done")


def test_finish_writes_the_last_state_once() -> None:
    clock, log = FakeClock(), NotATerminal()
    with Progress("check lever", None, stream=log, clock=clock) as progress:
        progress.advance(3)
        clock.now += 2.0
        progress.advance(2)
    assert log.getvalue().splitlines() == [
        "check lever: 3 done (0.0/s, 0s)",
        "check lever: 5 done (2.5/s, 2s)",
    ]
    progress.finish()
    assert log.getvalue().count("\n") == 2


def test_nothing_done_writes_nothing() -> None:
    log = NotATerminal()
    with Progress("discover lever", None, stream=log):
        pass
    assert log.getvalue() == ""


def test_a_bar_only_on_a_terminal() -> None:
    terminal, clock = Terminal(), FakeClock()
    with Progress("sync", 4, stream=terminal, clock=clock) as bar:
        for _ in range(4):
            bar.advance()
            clock.now += 1.0
    assert terminal.getvalue().count("\r") == 4
    assert terminal.getvalue().endswith("[##############################] 4/4 100%\n")

    log = NotATerminal()
    with Progress("sync", 4, stream=log, clock=FakeClock()) as lines:
        for _ in range(4):
            lines.advance()
    assert "\r" not in log.getvalue()
    assert "#" not in log.getvalue()


def test_an_unknown_total_on_a_terminal_counts_and_ends_its_line() -> None:
    terminal, clock = Terminal(), FakeClock()
    with Progress("enrich", None, stream=terminal, clock=clock) as bar:
        bar.advance()
        clock.now += 1.0
        bar.advance()
    assert terminal.getvalue() == "\renrich 1 done (0.0/s)\renrich 2 done (2.0/s)\n"


def test_disabled_progress_writes_nothing_but_still_counts() -> None:
    log = NotATerminal()
    with Progress("check lever", None, stream=log, enabled=False) as progress:
        progress.advance(7)
    assert log.getvalue() == ""
    assert progress.done == 7


def test_the_bar_is_redrawn_at_most_ten_times_a_second_and_ends_on_the_last_count() -> None:
    terminal, clock = Terminal(), FakeClock()
    with Progress("sync: rows staged", None, stream=terminal, clock=clock) as bar:
        for _ in range(1_000_000):  # a million rows within one redraw interval
            bar.advance()
        clock.now += 0.05
    assert terminal.getvalue() == (
        "\rsync: rows staged 1 done (0.0/s)\rsync: rows staged 1000000 done (20000000.0/s)\n"
    )
    bar.finish()  # already ended: nothing more
    assert terminal.getvalue().count("\n") == 1
