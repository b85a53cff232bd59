"""Every listener the project starts binds to loopback unless a setting says otherwise.

`listeners(pids)` lists the listening TCP sockets of processes (and their children);
`exposed(...)` keeps those not on a loopback address. The sandbox (`python -m sandbox
serve`), the web app (`jobharbor web`) and the embedded PostgreSQL cluster are checked by
tests/chaos/test_listeners.py; the processes of a running `make up` by scripts/up_check.py.
"""

from __future__ import annotations

import ipaddress
import os
import socket
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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@contextmanager
def web_process(reader_url: str, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """`jobharbor web` (the CLI) in its own process on a free port, reading the serving
    database at `reader_url`; yields once it accepts connections."""
    port = _free_port()
    env = {**os.environ, "JOBHARBOR_SERVING_READER_URL": reader_url}
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "web", "--port", str(port), *args],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not _answers(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("jobharbor web did not start")
            time.sleep(0.1)
        yield process
    finally:
        process.terminate()
        process.wait(timeout=10)
