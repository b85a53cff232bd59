"""SSRF guard: every request and every redirect hop is refused when it would reach a
private, loopback, link-local, CGNAT or metadata address, unless settings allow it.

The address table and the fetcher on its own first; then the whole engine. The sandbox
lives on loopback, so the engine tests switch the guard ON and allow only the
sandbox's own address (settings.allowed_networks); a second sandbox on 127.0.0.2 plays
the internal service a redirect tries to reach."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest

from pipeline.crawl.http.fetcher import Fetcher, FetchRequest
from pipeline.crawl.http.guard import refusal_reason
from pipeline.phases.discover import discover
from pipeline.settings import Settings
from tests.apps import board, greenhouse_source, query, scans, set_fault

GUARD_ON = {"allow_private_networks": False, "allowed_networks": ("127.0.0.1/32",)}


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.0.0.2", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("172.31.255.254", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),  # AWS / GCP / Azure metadata
        ("169.254.0.1", "link-local"),
        ("fe80::1", "link-local"),
        ("fe80::1%eth0", "link-local"),
        ("100.64.0.1", "cgnat/metadata/special"),  # CGNAT
        ("100.100.100.200", "cgnat/metadata/special"),  # Alibaba metadata (in CGNAT)
        ("192.0.0.192", "cgnat/metadata/special"),  # Oracle Cloud metadata
        ("fd00:ec2::254", "private"),  # AWS metadata over IPv6 (ULA)
        ("fc00::1", "private"),
        ("fec0::1", "site-local"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "private"),
        ("255.255.255.255", "private"),
        ("198.18.0.1", "private"),
        ("::ffff:10.0.0.1", "private (embedded in ::ffff:a00:1)"),
        ("::ffff:169.254.169.254", "link-local (embedded in ::ffff:a9fe:a9fe)"),
        ("2002:a9fe:a9fe::1", "link-local (embedded in 2002:a9fe:a9fe::1)"),  # 6to4
        ("64:ff9b::a9fe:a9fe", "link-local (embedded in 64:ff9b::a9fe:a9fe)"),  # NAT64
        ("64:ff9b::a00:1", "private (embedded in 64:ff9b::a00:1)"),
    ],
)
def test_refused_addresses(address: str, reason: str) -> None:
    assert refusal_reason(address) == reason


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "1.1.1.1", "151.101.1.69", "2606:4700:4700::1111", "2a00:1450::1"]
)
def test_public_addresses_pass(address: str) -> None:
    assert refusal_reason(address) is None


def _redirect_to(sandbox, token: str, url: str) -> None:
    set_fault(sandbox, "greenhouse", token, redirect=url)


def test_a_redirect_to_a_private_address_is_refused_with_the_guard_on(
    make_app, sandbox, second_sandbox
) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["hop"]), **GUARD_ON)
    inside = f"{second_sandbox.url}/greenhouse/v1/boards/secret/jobs"
    _redirect_to(sandbox, "hop", inside)

    report = discover(app, "gh")

    assert second_sandbox.state.requests() == []  # the internal host never saw us
    assert report.stats["outcomes"] == {"failed": 1}
    scan = scans(app, "hop")[0]
    assert "refused to connect to a loopback address" in scan["error"]
    assert "127.0.0.2" in scan["error"]
    attempts = query(
        app, "SELECT url, http_status, outcome, error FROM crawl.fetch_attempts ORDER BY id"
    )
    assert [(a["http_status"], a["outcome"]) for a in attempts] == [
        (302, "redirect"),
        (None, "failed"),
    ]
    assert attempts[1]["url"] == inside
    assert board(app, "hop")["state"] == "backoff"


def test_the_same_redirect_is_followed_when_settings_allow_private_networks(
    make_app, sandbox, second_sandbox
) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["hop"]))  # tests allow loopback
    _redirect_to(sandbox, "hop", f"{second_sandbox.url}/greenhouse/v1/boards/secret/jobs")
    report = discover(app, "gh")
    assert len(second_sandbox.state.requests()) == 1
    # Reached, but still not accepted: a listing that ends on another host is not ours.
    assert report.stats["outcomes"] == {"failed": 1}
    assert "foreign host" in scans(app, "hop")[0]["error"]


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[fd00:ec2::254]/latest/meta-data/", "private"),
        ("http://10.0.0.1:8080/admin", "private"),
        ("http://100.100.100.200/", "cgnat/metadata/special"),
        ("http://[::ffff:192.168.0.1]/", "private"),
    ],
)
def test_metadata_and_private_targets_are_refused_before_connecting(
    make_app, sandbox, target, reason
) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["meta"]), **GUARD_ON)
    _redirect_to(sandbox, "meta", target)
    started = time.monotonic()
    discover(app, "gh")
    assert time.monotonic() - started < 5  # refused, not timed out
    assert f"refused to connect to a {reason}" in scans(app, "meta")[0]["error"]


def test_a_board_on_a_private_address_is_refused_outright(make_app, second_sandbox) -> None:
    app = make_app(greenhouse_source("gh", second_sandbox.url, ["internal"]), **GUARD_ON)
    discover(app, "gh")
    assert second_sandbox.state.requests() == []
    assert "refused" in scans(app, "internal")[0]["error"]


def test_the_sandbox_itself_is_reachable_only_through_the_explicit_exception(
    make_app, sandbox
) -> None:
    host = urlsplit(sandbox.url).hostname
    assert host == "127.0.0.1"
    closed = make_app(
        greenhouse_source("gh", sandbox.url, ["x"]),
        allow_private_networks=False,
        allowed_networks=(),
    )
    discover(closed, "gh")
    assert sandbox.state.requests(platform="greenhouse") == []
    assert "loopback" in scans(closed, "x")[0]["error"]


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("100.64.0.7", "cgnat/metadata/special"),
        ("fd00:ec2::254", "private"),
        ("::ffff:10.0.0.1", "private"),
        ("0.0.0.0", "unspecified"),
        ("8.8.8.8", None),
        ("2606:4700::1111", None),
    ],
)
def test_address_table(address: str, reason: str | None) -> None:
    found = refusal_reason(address)
    # An IPv4 address inside an IPv6 form is named with its wrapper: "private (embedded in ...)".
    assert (found.split(" (embedded")[0] if found else found) == reason


def test_loopback_is_refused_without_the_setting(sandbox) -> None:
    with Fetcher(Settings()) as fetcher:
        result = fetcher.fetch(FetchRequest(f"{sandbox.url}/greenhouse/v1/boards/acme/jobs"))
    assert result.status is None
    assert result.blocked_address
    assert "refused to connect to a loopback address" in result.error


def test_loopback_is_allowed_when_settings_say_so(sandbox) -> None:
    with Fetcher(Settings(allow_private_networks=True)) as fetcher:
        result = fetcher.fetch(FetchRequest(f"{sandbox.url}/greenhouse/v1/boards/acme/jobs"))
    assert result.status == 200
    assert result.body.startswith(b'{"jobs"')


def test_non_http_schemes_are_refused() -> None:
    with Fetcher(Settings(allow_private_networks=True)) as fetcher:
        result = fetcher.fetch(FetchRequest("file:///etc/passwd"))
    assert result.status is None
    assert "unsupported URL scheme" in result.error
