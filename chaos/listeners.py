"""Every listener the project starts binds to loopback unless a setting says otherwise.

`listeners(pids)` lists the listening TCP sockets of processes (and their children);
`exposed(...)` keeps those not on a loopback address. The sandbox (`python -m sandbox
serve`) and the embedded PostgreSQL cluster are checked by tests/chaos/test_listeners.py.
"""

from __future__ import annotations

import ipaddress
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

from pipeline.settings import REPO_ROOT


def listeners(pids: Iterable[int]) -> list[tuple[int, str, int]]:
    """(pid, address, port) of every listening TCP socket of these processes and their
    descendants."""
    family: set[int] = set()
    for pid in pids:
        try:
            process = psutil.Process(pid)
        except psutil.NoSuchProcess:
            continue
        family.add(pid)
        family.update(child.pid for child in process.children(recursive=True))
    return sorted(
        (c.pid, c.laddr.ip, c.laddr.port)
        for c in psutil.net_connections(kind="tcp")
        if c.status == psutil.CONN_LISTEN and c.pid in family
    )


def port_listeners(port: int) -> list[tuple[int, str, int]]:
    """Every listening TCP socket on this port, whoever owns it."""
    return sorted(
        (c.pid or 0, c.laddr.ip, c.laddr.port)
        for c in psutil.net_connections(kind="tcp")
        if c.status == psutil.CONN_LISTEN and c.laddr.port == port
    )


def exposed(found: Iterable[tuple[int, str, int]]) -> list[tuple[int, str, int]]:
    """The listeners reachable from another machine (not on a loopback address)."""
    return [s for s in found if not ipaddress.ip_address(s[1].split("%", 1)[0]).is_loopback]


@contextmanager
def sandbox_process(work: Path, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """`python -m sandbox serve` in its own process, as `make demo` / `make up` start it."""
    ready = work / "sandbox.ready"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sandbox",
            "serve",
            "--port",
            "0",
            "--ready-file",
            str(ready),
            *args,
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not (ready.exists() and ready.read_text().strip()):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the sandbox did not start")
            time.sleep(0.05)
        yield process
    finally:
        process.terminate()
        process.wait(timeout=10)
