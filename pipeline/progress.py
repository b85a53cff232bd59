"""Progress for every long run (the phases, backfills, raw cleanup, the demo, the
benchmarks, the chaos run): a bar on a terminal, redrawn at most every REDRAW_S, and plain
lines at most every `every_s` seconds otherwise, so a task log gets a line now and then,
never one per item.

The total may be unknown (a phase drains its queue batch by batch): the bar then shows a
count and a rate. `finish` (or leaving the `with` block) writes the last state once.
The clock is injectable so the rate limit is tested without sleeping.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

BAR_WIDTH = 30
# The bar is redrawn at most this often: a run that advances per row (the sync stages
# a million) must not spend its time writing to the terminal.
REDRAW_S = 0.1


class Progress:
    def __init__(
        self,
        label: str,
        total: int | None,
        *,
        stream: TextIO | None = None,
        every_s: float = 10.0,
        tty: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
        enabled: bool = True,
    ) -> None:
        self.label = label
        self.total = None if total is None else max(total, 0)
        self.stream = stream or sys.stderr
        self.tty = _isatty(self.stream) if tty is None else tty
        self.every_s = every_s
        self.clock = clock
        # Off when a caller reports the same work itself (a backfill's batches).
        self.enabled = enabled
        self.done = 0
        self.started = clock()
        self._last = float("-inf")
        self._shown = -1  # `done` when last written: finish writes only what is new
        self._ended = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.finish()

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = self.clock()
        every = REDRAW_S if self.tty else self.every_s
        if now - self._last < every and not self._complete():
            return
        self._last = now
        if self.tty:
            self._bar(now)
        else:
            self._line(now)

    def finish(self) -> None:
        """The final state, unless it is already shown (and nothing if nothing was done)."""
        if not self.enabled or self.done == 0 or self._ended:
            return
        self._ended = True
        if self.tty and self._complete():
            return  # the complete bar was drawn and ended its line
        if self._shown != self.done:
            (self._bar if self.tty else self._line)(self.clock())
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def _complete(self) -> bool:
        return self.total is not None and self.done >= self.total

    def _bar(self, now: float) -> None:
        self._shown = self.done
        if self.total is None:
            self.stream.write(f"\r{self.label} {self.done} done ({self._rate(now):.1f}/s)")
        else:
            share = self.done / self.total if self.total else 1.0
            filled = int(BAR_WIDTH * min(share, 1.0))
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} {share:.0%}")
            if self._complete():
                self.stream.write("\n")
        self.stream.flush()

    def _line(self, now: float) -> None:
        self._shown = self.done
        elapsed = now - self.started
        count = f"{self.done}" if self.total is None else f"{self.done}/{self.total}"
        message = f"{self.label}: {count} done ({self._rate(now):.1f}/s, {elapsed:.0f}s)"
        print(message, file=self.stream, flush=True)

    def _rate(self, now: float) -> float:
        elapsed = now - self.started
        return self.done / elapsed if elapsed > 0 else 0.0


def _isatty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
