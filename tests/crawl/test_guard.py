"""The crawler refuses private, loopback, link-local, CGNAT and metadata addresses
unless a setting explicitly allows them."""

from __future__ import annotations

import pytest

from pipeline.crawl.http.fetcher import Fetcher, FetchRequest
from pipeline.crawl.http.guard import refusal_reason
from pipeline.settings import Settings


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
