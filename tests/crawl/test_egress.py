"""The egress allowlist (settings.egress_allowlist, on in tests, the demo and the
benchmarks): only the listed hosts are reached. Any other destination, first
request or redirect hop, plain or browser transport, fails loudly with a recorded
error, and the refused host receives nothing."""

from __future__ import annotations

import asyncio
import time

import httpcore
import pytest

from pipeline.crawl.browser import BrowserFetcher
from pipeline.crawl.http.fetcher import Fetcher, FetchRequest
from pipeline.crawl.http.guard import GuardedBackend, egress_refusal
from pipeline.errors import EgressRefusedError
from pipeline.phases.discover import discover
from pipeline.settings import Settings, parse_allowlist
from tests.apps import greenhouse_source, query, scans, set_fault
from tests.conftest import TEST_EGRESS

ONLY_SANDBOX = {"egress_allowlist": "127.0.0.1"}


def test_the_allowlist_names_hosts_or_host_and_port() -> None:
    allow = parse_allowlist("127.0.0.1:8765, Jobs.Example.com.")
    assert allow == frozenset({"127.0.0.1:8765", "jobs.example.com"})
    assert egress_refusal("127.0.0.1", 8765, allow) is None
    assert egress_refusal("jobs.example.com", 443, allow) is None
    refused = egress_refusal("127.0.0.1", 9999, allow)
    assert refused is not None
    assert "127.0.0.1:9999 is not on the egress allowlist" in refused
    assert egress_refusal("anything.example", 443, None) is None  # unset: production
    assert egress_refusal("127.0.0.1", 80, parse_allowlist("")) is not None  # empty: nothing


def test_the_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBHARBOR_EGRESS_ALLOWLIST", "127.0.0.1,sandbox.local:8765")
    assert Settings().egress_hosts == frozenset({"127.0.0.1", "sandbox.local:8765"})


def test_tests_run_with_the_allowlist_on(app) -> None:
    assert app.settings.egress_hosts == parse_allowlist(TEST_EGRESS)


def test_a_host_off_the_list_is_refused_and_receives_nothing(sandbox, second_sandbox) -> None:
    settings = Settings(allow_private_networks=True, **ONLY_SANDBOX)
    with Fetcher(settings) as fetcher:
        allowed = fetcher.fetch(FetchRequest(f"{sandbox.url}/greenhouse/v1/boards/acme/jobs"))
        refused = fetcher.fetch(
            FetchRequest(f"{second_sandbox.url}/greenhouse/v1/boards/acme/jobs")
        )
    assert allowed.status == 200
    assert (refused.status, refused.blocked_address) == (None, True)
    assert "egress refused: 127.0.0.2:" in refused.error
    assert second_sandbox.state.requests() == []


def test_a_public_host_is_refused_before_any_dns_or_connection() -> None:
    settings = Settings(allow_private_networks=True, **ONLY_SANDBOX)
    started = time.monotonic()
    with Fetcher(settings) as fetcher:
        result = fetcher.fetch(FetchRequest("https://jobs.smartrecruiters.com/Acme/1"))
    assert time.monotonic() - started < 2
    assert result.status is None
    assert result.blocked_address
    assert "jobs.smartrecruiters.com:443 is not on the egress allowlist" in result.error


def test_the_socket_layer_refuses_too_whatever_asks_it(second_sandbox) -> None:
    """The guarded backend is the last wall: a connection that bypassed the fetcher's
    own check is still refused before it is opened."""
    backend = GuardedBackend(
        httpcore.AnyIOBackend(), allow_private=True, egress_allowlist=parse_allowlist("127.0.0.1")
    )
    port = second_sandbox.server.server_address[1]
    with pytest.raises(EgressRefusedError, match=r"127\.0\.0\.2"):
        asyncio.run(backend.connect_tcp("127.0.0.2", port))
    assert second_sandbox.state.requests() == []


def test_a_redirect_off_the_list_is_refused_at_the_hop_and_recorded(
    make_app, sandbox, second_sandbox
) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["hop"]), **ONLY_SANDBOX)
    inside = f"{second_sandbox.url}/greenhouse/v1/boards/secret/jobs"
    set_fault(sandbox, "greenhouse", "hop", redirect=inside)

    report = discover(app, "gh")

    assert second_sandbox.state.requests() == []
    assert report.stats["outcomes"] == {"failed": 1}
    assert "egress refused" in scans(app, "hop")[0]["error"]
    attempts = query(app, "SELECT url, http_status, error FROM crawl.fetch_attempts ORDER BY id")
    assert [(a["url"], a["http_status"]) for a in attempts][-1] == (inside, None)
    assert "not on the egress allowlist" in attempts[-1]["error"]


def test_the_browser_path_refuses_before_starting_a_browser(second_sandbox) -> None:
    settings = Settings(allow_private_networks=True, **ONLY_SANDBOX)
    with Fetcher(settings) as http, BrowserFetcher(settings, http) as browser:
        result = browser.fetch(FetchRequest(f"{second_sandbox.url}/js/acme/jobs?page=1"))
        assert browser._context is None  # no browser was started for it
    assert result.status is None
    assert result.blocked_address
    assert "egress refused: 127.0.0.2:" in result.error
    assert second_sandbox.state.requests() == []


def test_the_demo_runs_with_the_allowlist_on_its_sandbox() -> None:
    from pipeline.commands.demo import demo_settings

    settings = demo_settings(Settings(), "http://127.0.0.1:8765")
    assert settings.egress_hosts == frozenset({"127.0.0.1:8765"})
    assert egress_refusal("jobs.smartrecruiters.com", 443, settings.egress_hosts) is not None
