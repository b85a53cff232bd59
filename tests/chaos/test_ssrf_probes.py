"""SSRF probes (docs/reliability.md §3), short form: every address form refused with 0
requests sent, as the URL asked for and as a redirect target; rebinding; the redirect
limit; a sample through Chromium. `python -m chaos` runs every probe in the browser."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator

import pytest

from chaos.ssrf import (
    INTERNAL_IP,
    guarded_settings,
    instrument,
    probe_resolver,
    probe_world,
    probes,
    run_probes,
)
from pipeline.crawl.http.fetcher import MAX_REDIRECTS, Fetcher, FetchRequest
from pipeline.settings import Settings
from sandbox.faults import Fault
from sandbox.server import RunningSandbox

# chaos.ssrf's world: two sandboxes, one plays the internal host (and Chromium for one probe).
pytestmark = pytest.mark.sandbox


@pytest.fixture(scope="module")
def world() -> Iterator[tuple[RunningSandbox, RunningSandbox]]:
    with probe_world() as pair:
        yield pair


def test_every_address_form_is_refused_unsent_as_a_url_and_as_a_redirect_target(world) -> None:
    report = run_probes(*world, browser_every=0)
    assert report.holes == []
    assert report.requests_sent == 0
    vias = Counter(o.via for o in report.outcomes)
    assert vias["url"] == len(probes()) + 1  # + the rebinding drill
    assert vias["redirect"] == len(probes())
    forms = {o.probe for o in report.outcomes}
    assert len(forms) >= 17, forms  # every form of the list is probed


def test_dns_rebinding_reaches_only_the_address_that_was_checked(world) -> None:
    report = run_probes(*world, browser_every=0)
    (drill,) = [o for o in report.outcomes if o.probe == "dns rebinding"]
    assert drill.refused, drill
    assert drill.requests_sent == 0
    assert "127.0.0.2" in (drill.error or "")


def test_a_redirect_chain_longer_than_the_limit_stops_after_the_limit(world) -> None:
    report = run_probes(*world, browser_every=0)
    (loop,) = [o for o in report.outcomes if o.via == "redirect-loop"]
    assert loop.refused, loop  # exactly MAX_REDIRECTS + 1 requests reached the sandbox
    assert f"more than {MAX_REDIRECTS} redirects" in (loop.error or "")


@pytest.mark.browser
@pytest.mark.skipif(
    shutil.which(Settings().browser_executable) is None,
    reason=f"{Settings().browser_executable} not installed (Debian: apt-get install -y chromium)",
)
def test_the_browser_path_refuses_the_same_probes_unsent(world) -> None:
    report = run_probes(*world, browser_every=9)
    browser = [o for o in report.outcomes if o.via.startswith("browser")]
    assert {o.via for o in browser} == {"browser", "browser-redirect", "browser-script"}
    assert [o for o in browser if not o.refused or o.requests_sent] == []
    scripts = [o for o in browser if o.via == "browser-script"]
    assert sum(o.calls for o in scripts) >= len(scripts)  # the pages really did call out


def test_the_sensors_count_a_request_that_gets_through(world) -> None:
    """The drill's own check: with the internal service exempted, the same probe reaches
    it, and both sensors see it (so a 0 above is a measurement, not a blind spot)."""
    _, inside = world
    port = inside.server.server_address[1]
    before = len(inside.state.requests())
    with Fetcher(guarded_settings(allowed_networks=(f"{INTERNAL_IP}/32",))) as fetcher:
        sensor = instrument(fetcher, probe_resolver())
        result = fetcher.fetch(FetchRequest(f"http://loopback.probe.test:{port}/"))
    assert result.status is not None
    assert (INTERNAL_IP, port) in sensor.connects
    assert len(inside.state.requests()) == before + 1


@pytest.mark.parametrize(
    "location",
    [
        "http://0177.0.0.1/",
        "http://[::1/",
        "http://[fe80::1%zz/",
        "http://a b/",
        "http://no-such-host.invalid/",
    ],
)
def test_a_redirect_to_an_unparsable_url_fails_the_request_instead_of_raising(
    world, location: str
) -> None:
    """Regression (found by these probes): httpx.InvalidURL, urlsplit's ValueError and
    (guard on) the resolver's gaierror escaped the fetcher and crashed the whole phase;
    a hostile Location header or posting URL, or a dead domain, only fails its request."""
    outside, _ = world
    outside.state.set_fault("greenhouse", "bad-location", Fault(redirect=location))
    try:
        with Fetcher(guarded_settings()) as fetcher:
            listing = f"{outside.url}/greenhouse/v1/boards/bad-location/jobs"
            result = fetcher.fetch(FetchRequest(listing))
            direct = fetcher.fetch(FetchRequest(location))
    finally:
        outside.state.set_fault("greenhouse", "bad-location", None)
    assert result.status is None
    assert result.error
    assert direct.status is None
    assert direct.error
