"""Run the sandbox as a background process that outlives one command (demo, Airflow).

Its address and pid live in `<data dir>/sandbox.json`; a live sandbox is reused.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

DEFAULT_PORT = 8765


def _state_file(data_dir: Path) -> Path:
    return data_dir / "sandbox.json"


def running_url(data_dir: Path) -> str | None:
    state = _state_file(data_dir)
    if not state.exists():
        return None
    try:
        info = json.loads(state.read_text())
        os.kill(int(info["pid"]), 0)
        httpx.get(info["url"] + "/_sandbox/state", timeout=2).raise_for_status()
        return str(info["url"])
    except (ValueError, KeyError, OSError, httpx.HTTPError):
        return None


def ensure_sandbox(data_dir: Path, port: int = DEFAULT_PORT, seed: int | None = None) -> str:
    """The URL of a live sandbox, starting one if none answers."""
    url = running_url(data_dir)
    if url:
        return url
    data_dir.mkdir(parents=True, exist_ok=True)
    ready = data_dir / "sandbox.ready"
    ready.unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "sandbox",
        "serve",
        "--port",
        str(port),
        "--ready-file",
        str(ready),
    ]
    if seed is not None:
        command += ["--seed", str(seed)]
    with open(data_dir / "sandbox.log", "ab") as log:
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=log,
            start_new_session=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
    deadline = time.monotonic() + 20
    while not ready.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the sandbox did not start; see {data_dir / 'sandbox.log'}")
        time.sleep(0.05)
    url = ready.read_text().strip()
    _state_file(data_dir).write_text(json.dumps({"pid": process.pid, "url": url}))
    return url


def stop_sandbox(data_dir: Path) -> bool:
    state = _state_file(data_dir)
    if not state.exists():
        return False
    try:
        pid = int(json.loads(state.read_text())["pid"])
        os.kill(pid, signal.SIGTERM)
        stopped = True
    except (ValueError, KeyError, OSError):
        stopped = False
    state.unlink(missing_ok=True)
    return stopped
