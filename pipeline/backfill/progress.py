"""Progress for long applies: a redrawn bar on a terminal, and plain lines at most every
`every_s` seconds otherwise (task logs stay readable)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(
        self,
        label: str,
        total: int,
        *,
        stream: TextIO | None = None,
        every_s: float = 10.0,
        tty: bool | None = None,
    ) -> None:
        self.label = label
        self.total = max(total, 0)
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.every_s = every_s
        self.done = 0
        self.started = time.monotonic()
        self._last = float("-inf")

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.tty:
            self._bar()
        elif now - self._last >= self.every_s or self.done >= self.total:
            self._last = now
            self._line(now)

    def _bar(self) -> None:
        width = 30
        share = self.done / self.total if self.total else 1.0
        filled = int(width * share)
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} {share:.0%}")
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()

    def _line(self, now: float) -> None:
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        message = f"{self.label}: {self.done}/{self.total} done ({rate:.1f}/s, {elapsed:.0f}s)"
        print(message, file=self.stream, flush=True)
