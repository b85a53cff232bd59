"""Browser fetch for `transport: browser` sources: Chromium renders a page whose job
list is built by JavaScript, every request it makes goes through our own paced and
guarded HTTP path, at most `browser_pages` pages render at once, and no browser
process outlives the run."""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import statistics
import subprocess
import time

import psutil
import pytest

from pipeline.crawl.pacing import Budget, Pacer
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.settings import Settings
from tests.apps import greenhouse_source, query, scans, set_fault, site_source

CHROMIUM = Settings().browser_executable
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        shutil.which(CHROMIUM) is None,
        reason=f"{CHROMIUM} not installed (Debian: apt-get install -y chromium)",
    ),
]


def _chromium_processes() -> set[int]:
    """Every Chromium process on the machine (a leaked one is re-parented away from
    us, so counting our own descendants would miss exactly the leak)."""
    found = set()
    for proc in psutil.process_iter(["pid", "name", "exe"]):
        name, exe = proc.info["name"] or "", proc.info["exe"] or ""
        if name == "chromium" or exe.endswith("/chromium"):
            found.add(proc.info["pid"])
    return found


def _leaked_since(before: set[int], grace_s: float = 10.0) -> set[int]:
    """Chromium processes started since `before` that are still running after a grace
    period and are ours: our descendants, or orphans (re-parented to init, as a leak is).
    One that another live process (a parallel test worker) started and still owns is not
    ours. The grace period is why: a browser that is closing (ours, or a parallel
    worker's) leaves its helpers orphaned for a moment before they exit, and a process
    that exits within the time the fetcher itself allows (`_reap`) is no leak."""
    deadline = time.monotonic() + grace_s
    while True:
        leaked = _ours_still_running(_chromium_processes() - before)
        if not leaked or time.monotonic() >= deadline:
            return leaked
        time.sleep(0.2)


def _ours_still_running(candidates: set[int]) -> set[int]:
    ours = set()
    for pid in candidates:
        try:
            proc = psutil.Process(pid)
            if proc.status() == psutil.STATUS_ZOMBIE:
                continue  # exited, waiting to be reaped: not left running
            ancestors = {p.pid for p in proc.parents()}
        except psutil.NoSuchProcess:
            continue  # gone while we looked: not left running
        owners = ancestors - {1}
        if os.getpid() in ancestors or not owners or _only_init_like(owners):
            ours.add(pid)
    return ours


def _only_init_like(owners: set[int]) -> bool:
    """A subreaper (a container's init, systemd --user) adopts orphans too: an owner
    that is no Python process counts as no owner."""
    for pid in owners:
        try:
            if "python" in (psutil.Process(pid).name() or ""):
                return False
        except psutil.NoSuchProcess:
            continue
    return True


def _js_site(make_app, sandbox, scopes=("acme",), transport="browser", **settings):
    return make_app(
        site_source("jsite", f"{sandbox.url}/js", list(scopes), transport=transport),
        **settings,
    )


def test_a_javascript_listing_is_rendered_in_the_browser(make_app, sandbox) -> None:
    before = _chromium_processes()
    app = _js_site(make_app, sandbox)

    report = discover(app, "jsite")

    assert report.stats["outcomes"] == {"changed": 1}
    postings = query(app, "SELECT external_id, title, url FROM core.postings")
    assert len(postings) == report.stats["postings_new"] >= 4
    assert all("/js/acme/viec-lam/" in p["url"] for p in postings)
    # The page's own API call went through our stack: paced, logged, recorded.
    api_calls = [e for e in sandbox.state.requests(platform="js") if "/api/jobs" in e.path]
    assert api_calls
    assert {e.headers["user-agent"] for e in api_calls} == {app.settings.effective_user_agent}
    transports = query(
        app,
        "SELECT transport, outcome, url FROM crawl.fetch_attempts WHERE url NOT LIKE '%%robots.txt' ORDER BY id",
    )
    assert [(t["transport"], t["outcome"]) for t in transports] == [
        ("browser", "changed"),
        ("browser", "subresource"),
    ]
    assert _leaked_since(before) == set()  # nothing left running


def test_without_the_browser_the_same_page_is_an_empty_shell(make_app, sandbox) -> None:
    app = _js_site(make_app, sandbox, transport="http")
    # A listing page without a single job card is rejected (a shell, or a changed layout),
    # never read as an empty listing.
    assert discover(app, "jsite").stats["outcomes"] == {"rejected": 1}


def test_details_of_a_browser_source_are_rendered_too(make_app, sandbox) -> None:
    app = _js_site(make_app, sandbox)
    discover(app, "jsite")
    report = fetch_details(app, "jsite", limit=2)
    assert report.stats["outcomes"] == {"fetched": 2}
    assert query(
        app, "SELECT DISTINCT transport FROM crawl.fetch_attempts WHERE posting_id IS NOT NULL"
    ) == [{"transport": "browser"}]


def test_the_browser_spends_the_same_host_budget(make_app, sandbox) -> None:
    app = _js_site(make_app, sandbox, scopes=("a1", "a2", "a3"), pacing_max_wait_s=1.0)
    # An HTTP request to the same host was told to wait: the browser must wait too.
    host = sandbox.url.removeprefix("http://")
    pacer = Pacer(app.db)
    try:
        pacer.cool_down(host, Budget(200, 200), 60, "HTTP 429, Retry-After: 60")
    finally:
        pacer.close()

    report = discover(app, "jsite")

    assert report.stats["deferred"] == 3
    assert [e for e in sandbox.state.requests() if e.path != "/robots.txt"] == []
    assert all(scans(app, key) == [] for key in ("a1", "a2", "a3"))


def test_a_shared_budget_paces_page_renders_and_their_api_calls(make_app, sandbox) -> None:
    tokens = ("p1", "p2", "p3")
    app = make_app(
        site_source(
            "jsite", f"{sandbox.url}/js", list(tokens), transport="browser", rate=4, burst=1
        )
    )
    discover(app, "jsite")
    arrivals = sorted(e.at for e in sandbox.state.requests(platform="js"))
    assert len(arrivals) >= 6  # a shell and an API call per page
    # Shells and API calls alike spend the budget: at 4/s with no burst, each request
    # comes a quarter second after the one before. The sandbox stamps a request when
    # its thread gets to it, so on a loaded machine (parallel workers) one stamp can be
    # late and the next gap short (seen: 0.04 s after a stamp 0.2 s late): the span of
    # them all is what the budget guarantees, and most gaps are a quarter second. Unpaced,
    # an API call follows its shell in milliseconds: every other gap, so the median, short.
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    assert arrivals[-1] - arrivals[0] >= (len(arrivals) - 1) * 0.25 - 0.05
    assert statistics.median(gaps) >= 0.25 - 0.05


def test_at_most_browser_pages_render_at_once(make_app, sandbox) -> None:
    tokens = ("s1", "s2", "s3", "s4")
    app = _js_site(make_app, sandbox, scopes=tokens, browser_pages=2)
    for token in tokens:
        set_fault(sandbox, "js", token, delay_s=1.0, times=1)  # each shell takes a second
    started = time.monotonic()
    report = discover(app, "jsite")
    assert report.stats["outcomes"] == {"changed": 4}
    shells = sorted(
        e.at for e in sandbox.state.requests(platform="js") if e.path.endswith("/jobs?page=1")
    )
    # Two pages at a time: the third shell is asked for only when a first page is done.
    assert shells[2] - shells[0] >= 0.95
    assert time.monotonic() - started >= 2.0


def test_the_browser_path_obeys_the_ssrf_guard(make_app, sandbox, second_sandbox) -> None:
    app = _js_site(
        make_app, sandbox, allow_private_networks=False, allowed_networks=("127.0.0.1/32",)
    )
    set_fault(sandbox, "js", "acme", redirect=f"{second_sandbox.url}/js/acme/jobs?page=1")
    discover(app, "jsite")
    assert second_sandbox.state.requests() == []
    assert "refused to connect to a loopback address" in scans(app, "acme")[0]["error"]


def test_browser_processes_are_gone_after_runs_that_failed(make_app, sandbox) -> None:
    before = _chromium_processes()
    app = make_app(
        site_source("jsite", f"{sandbox.url}/js", ["x1", "x2"], transport="browser")
        + greenhouse_source("gh", sandbox.url, ["g1"])
    )
    set_fault(sandbox, "js", "x1", status=500)
    discover(app, "jsite")
    discover(app, "gh")
    assert _leaked_since(before) == set()


def test_the_leak_check_finds_a_chromium_left_running_by_us(tmp_path) -> None:
    # The check above must be able to fail: a Chromium orphaned on purpose (started by
    # a shell that exits at once, as a browser whose parent died would be) is found.
    before = _chromium_processes()
    launcher = subprocess.run(
        [
            "sh",
            "-c",
            f'"{CHROMIUM}" --headless --no-sandbox --user-data-dir="{tmp_path}" '
            "about:blank >/dev/null 2>&1 & echo $!",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    orphan = int(launcher.stdout.strip())
    try:
        assert orphan in _leaked_since(before, grace_s=1.0)
    finally:
        with contextlib.suppress(psutil.Error):
            for proc in [psutil.Process(orphan), *psutil.Process(orphan).children(recursive=True)]:
                proc.kill()
