"""Engine fixtures, registered for every test by tests/conftest.py: an App built from a
sources file written by the test, the sandbox's fault switches and request log, and
worker processes that can be killed."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.app import App, build_registry, resolve_databases
from pipeline.config import load_sources
from pipeline.crawl.catalog import sync_catalog
from pipeline.phases.discover import discover
from pipeline.phases.parse import parse_source
from pipeline.settings import REPO_ROOT
from sandbox.server import RunningSandbox, start_sandbox
from tests.conftest import TestDatabases, make_settings

MakeApp = Callable[..., App]


def greenhouse_source(
    name: str, url: str, boards: list[str], *, rate: float = 200, burst: int = 200, extra: str = ""
) -> str:
    tokens = ", ".join(boards)
    return f"""
  {name}:
    platform: greenhouse
    api_base: {url}/greenhouse
    pacing: {{rate_per_s: {rate}, burst: {burst}}}
    boards: [{tokens}]
{extra}"""


def sandbox_ats_source(name: str, platform: str, url: str, boards: list[str]) -> str:
    """A JSON ATS source served by the sandbox at `{url}/{platform}`, with its boards
    as YAML flow items (`token`, or `{token: ..., company: ...}`)."""
    return f"""
  {name}:
    platform: {platform}
    api_base: {url}/{platform}
    pacing: {{rate_per_s: 200, burst: 200}}
    validation: {{content_types: [application/json]}}
    boards: [{", ".join(boards)}]
"""


def site_source(
    name: str,
    base_url: str,
    scopes: list[str],
    *,
    rate: float = 200,
    burst: int = 200,
    transport: str = "http",
    extra: str = "",
) -> str:
    lines = "\n".join(f'      - {{key: {s}, path: "/{s}/jobs?page={{page}}"}}' for s in scopes)
    return f"""
  {name}:
    platform: html_site
    base_url: {base_url}
    transport: {transport}
    pacing: {{rate_per_s: {rate}, burst: {burst}}}
    scopes:
{lines}
    pagination: {{first_page: 1, max_pages: 20}}
    listing:
      item: article.job-card
      link: a.job-title::attr(href)
      id_pattern: '-(\\d+)$'
      fields:
        title: a.job-title::text
        company: .company::text
        location: .location::text
        posted: time.posted::attr(datetime)
      next_page: a.next::attr(href)
      total: p.total::text
    detail:
      jsonld: true
{extra}"""


@pytest.fixture
def parsed_lever(app: App) -> App:
    """lever discovered and parsed with lever@1 (the backfill, freshness and raw cleanup tests)."""
    assert discover(app, "lever", force=True).status == "succeeded"
    assert parse_source(app, "lever").stats["postings"] > 0
    return app


@pytest.fixture
def make_app(databases: TestDatabases, sandbox: RunningSandbox, tmp_path: Path) -> MakeApp:
    """Build an App over this test's databases from sources YAML (the `sources:` body)."""
    counter = itertools.count()

    def build(sources: str, **overrides: Any) -> App:
        path = tmp_path / f"sources-{next(counter)}.yaml"
        path.write_text("version: 1\nsources:\n" + sources, encoding="utf-8")
        values: dict[str, Any] = {"sandbox_url": sandbox.url, "sources_file": path}
        values.update(overrides)
        settings = make_settings(databases, tmp_path, **values)
        loaded = load_sources(path)
        app = App(settings, loaded, build_registry(loaded), resolve_databases(settings))
        sync_catalog(app)
        return app

    return build


def set_fault(sandbox: RunningSandbox, platform: str, token: str, **fault: Any) -> None:
    """Switch a board's fault over the sandbox's admin API (real sockets)."""
    response = httpx.post(
        f"{sandbox.url}/_sandbox/fault", params={"platform": platform, "token": token}, json=fault
    )
    response.raise_for_status()


def advance(sandbox: RunningSandbox, platform: str, token: str, steps: int = 1) -> None:
    httpx.post(
        f"{sandbox.url}/_sandbox/advance",
        params={"platform": platform, "token": token, "steps": steps},
    ).raise_for_status()


def discovered(app: App, source: str) -> dict[str, Any]:
    """A forced discover run of `source` that must succeed: its stats."""
    report = discover(app, source, force=True)
    assert report.status == "succeeded", report
    return dict(report.stats)


def set_robots(sandbox: RunningSandbox, text: str, status: int = 200) -> None:
    httpx.post(
        f"{sandbox.url}/_sandbox/robots", params={"status": status}, content=text.encode()
    ).raise_for_status()


def board(app: App, key: str) -> dict[str, Any]:
    with app.db.connect() as conn:
        row = conn.execute("SELECT * FROM crawl.boards WHERE board_key = %s", (key,)).fetchone()
    assert row is not None, key
    return row


def query(app: App, sql: str, *params: Any) -> list[dict[str, Any]]:
    with app.db.connect() as conn:
        return list(conn.execute(sql, params).fetchall())


def scans(app: App, key: str) -> list[dict[str, Any]]:
    return query(
        app,
        """SELECT s.* FROM crawl.scans s JOIN crawl.boards b ON b.id = s.board_id
           WHERE b.board_key = %s ORDER BY s.id""",
        key,
    )


def make_due(app: App, *keys: str) -> None:
    """Every listed board (all boards when none) is due now."""
    with app.db.connect() as conn:
        if keys:
            conn.execute(
                "UPDATE crawl.boards SET due_at = now() WHERE board_key = ANY(%s)", (list(keys),)
            )
        else:
            conn.execute("UPDATE crawl.boards SET due_at = now()")
        conn.commit()


def worker_env(app: App) -> dict[str, str]:
    """The environment a `jobharbor` process needs to work on this test's App."""
    settings = app.settings
    env = {k: v for k, v in os.environ.items() if not k.startswith("JOBHARBOR_")}
    env.update(
        JOBHARBOR_DATABASE_URL=app.urls.authoritative,
        JOBHARBOR_SERVING_DATABASE_URL=app.urls.serving,
        JOBHARBOR_RAW_STORE_URL=settings.effective_raw_store_url,
        JOBHARBOR_DATA_DIR=str(settings.data_dir),
        JOBHARBOR_CACHE_DIR=str(settings.effective_cache_dir),
        JOBHARBOR_ALLOW_PRIVATE_NETWORKS="true",
        JOBHARBOR_SOURCES=str(settings.sources_file),
        JOBHARBOR_SANDBOX_URL=settings.sandbox_url,
        JOBHARBOR_PACING_MAX_WAIT_S=str(settings.pacing_max_wait_s),
    )
    return env


def start_worker(app: App, *args: str) -> subprocess.Popen[str]:
    """A discover worker in its own process (tests/crawl/worker.py)."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.crawl.worker", *args],
        cwd=REPO_ROOT,
        env=worker_env(app),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish_worker(process: subprocess.Popen[str], timeout: float = 120) -> dict[str, Any]:
    """Wait for a worker process; its report (status and stats)."""
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def second_sandbox() -> Iterator[RunningSandbox]:
    """Another host: a sandbox on 127.0.0.2 (all of 127/8 is loopback on Linux)."""
    running = start_sandbox(host="127.0.0.2")
    try:
        yield running
    finally:
        running.stop()
