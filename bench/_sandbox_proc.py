"""The sandbox job web in its own process, for the benchmarks: its request arrival
times are not skewed by the engine's GIL, and it does not share the engine's CPU
time slice. Shared by bench/poll.py and bench/chaos_lifecycle.py."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start_sandbox_process(work: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start `python -m sandbox serve` on a free loopback port; (process, URL)."""
    ready = work / "sandbox.ready"
    process = subprocess.Popen(
        [sys.executable, "-m", "sandbox", "serve", "--port", "0", "--ready-file", str(ready)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not ready.exists() or not ready.read_text().strip():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the sandbox did not start")
        time.sleep(0.05)
    return process, ready.read_text().strip()
