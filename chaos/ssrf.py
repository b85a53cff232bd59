"""SSRF probes: every address form is refused with 0 requests sent, whether it is
the URL asked for (a board URL) or the target of a redirect, over plain HTTP and
through the browser path.

The probes run the real Fetcher (and BrowserFetcher) with the guard ON and only
the sandbox's own address exempt (allowed_networks=127.0.0.1/32). Two sensors
prove that nothing was sent:

- a counting layer under the guard sees every TCP connection the guard lets
  through (host and port); any connection other than to the sandbox is a request
  sent;
- a second sandbox on 127.0.0.2 (the "internal service") logs every request it
  receives; loopback probes point at it.

Names are answered by a resolver the probes control (installed as the fetcher
loop's getaddrinfo, the call the guard makes): metadata host names, names that
resolve to private addresses, a name with one public and one private answer, and
a rebinding name whose answers change between calls. Names it does not know go
to the system resolver (the decimal and octal IPv4 forms are resolved by libc).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pipeline.crawl.http.fetcher import MAX_REDIRECTS, Fetcher, FetchRequest, FetchResult
from pipeline.settings import Settings
from sandbox.faults import Fault
from sandbox.server import RunningSandbox, start_sandbox

PUBLIC = "93.184.215.14"  # stands for any public address (never connected to: no route)
SANDBOX_IP = "127.0.0.1"
INTERNAL_IP = "127.0.0.2"


@dataclass(frozen=True)
class Probe:
    name: str
    url: str  # {port}: the internal sandbox's port (loopback probes reach a listener)


def probes() -> tuple[Probe, ...]:
    """The address forms of docs/reliability.md §3 (one or more URLs per form)."""
    table = {
        "loopback 127/8": ["http://127.0.0.2:{port}/", "http://127.255.255.254:{port}/"],
        "unspecified 0.0.0.0": ["http://0.0.0.0:{port}/", "http://[::]:{port}/"],
        "private 10/8": ["http://10.0.0.1/", "http://10.255.255.254:8080/admin"],
        "private 172.16/12": ["http://172.16.0.1/", "http://172.31.255.254/"],
        "private 192.168/16": ["http://192.168.0.1/", "http://192.168.255.254/"],
        "metadata 169.254.169.254": [
            "http://169.254.169.254/latest/meta-data/",
            "http://[fd00:ec2::254]/latest/meta-data/",
        ],
        "metadata host names": [
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://metadata/computeMetadata/v1/",
            "http://instance-data/latest/meta-data/",
            "http://metadata.azure.internal/metadata/instance",
        ],
        "cgnat 100.64/10": ["http://100.64.0.1/", "http://100.100.100.200/"],
        "ipv6 loopback ::1": ["http://[::1]:{port}/"],
        "ipv4-mapped ::ffff:127.0.0.1": [
            "http://[::ffff:127.0.0.2]:{port}/",
            "http://[::ffff:7f00:2]:{port}/",
        ],
        "ula fc00::/7": ["http://[fc00::1]/", "http://[fd12:3456:789a::1]/"],
        "link-local fe80::/10": ["http://[fe80::1]/", "http://[febf::1]/"],
        "decimal ipv4": ["http://2130706434:{port}/", "http://167772161/"],
        "octal and hex ipv4": [
            "http://0177.0.0.2:{port}/",
            "http://0x7f.0.0.2:{port}/",
            "http://017700000002:{port}/",
            "http://127.2:{port}/",
        ],
        "names resolving private": [
            "http://internal.probe.test/",
            "http://loopback.probe.test:{port}/",
            "http://v6-loopback.probe.test:{port}/",
            "http://mixed.probe.test/",
        ],
        "userinfo tricks": [
            "http://example.com@127.0.0.2:{port}/",
            "http://example.com:80@127.0.0.2:{port}/",
            "http://127.0.0.2:{port}#@example.com/",
            "http://user:pass@10.0.0.1/",
        ],
    }
    return tuple(Probe(name, url) for name, urls in table.items() for url in urls)


# ---------------------------------------------------------------- the controlled resolver


class Resolver:
    """getaddrinfo answers the probes choose; a list of answers per name is served
    in turn (the last one repeats), which is how rebinding is played."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    async def __call__(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        name = str(host).lower().rstrip(".")
        if name not in self.answers:
            infos = socket.getaddrinfo(host, port, *args, **kwargs)
            self.calls.append((name, tuple(i[4][0] for i in infos)))
            return infos
        turns = self.answers[name]
        used = sum(1 for called, _ in self.calls if called == name)
        addresses = turns[min(used, len(turns) - 1)]
        self.calls.append((name, tuple(addresses)))
        return [_info(a, int(port or 0)) for a in addresses]


def _info(address: str, port: int) -> tuple[Any, ...]:
    if ipaddress.ip_address(address).version == 6:
        return (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0))
    return (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))


def probe_resolver() -> Resolver:
    metadata = [["169.254.169.254"]]
    return Resolver(
        {
            "metadata.google.internal": metadata,
            "metadata": metadata,
            "instance-data": metadata,
            "metadata.azure.internal": metadata,
            "internal.probe.test": [["10.1.2.3"]],
            "loopback.probe.test": [[INTERNAL_IP]],
            "v6-loopback.probe.test": [["::1"]],
            "mixed.probe.test": [[PUBLIC, "10.0.0.7"]],  # one private answer is enough
            # Rebinding: public (here: the exempt sandbox) on the first lookup, internal after.
            "rebind.probe.test": [[SANDBOX_IP], [INTERNAL_IP]],
        }
    )


# ---------------------------------------------------------------- the connection sensor


class CountingBackend:
    """Sits under the guard: every connection the guard lets through passes here."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.connects: list[tuple[str, int]] = []

    async def connect_tcp(self, host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        self.connects.append((host, port))
        return await self.inner.connect_tcp(host, port, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def instrument(fetcher: Fetcher, resolver: Resolver) -> CountingBackend:
    """Install the resolver and the sensor on a fetcher; returns the sensor."""
    guard = fetcher._client._transport._pool._network_backend  # type: ignore[attr-defined]
    sensor = CountingBackend(guard.inner)
    guard.inner = sensor
    fetcher.loop.getaddrinfo = resolver  # type: ignore[method-assign]
    return sensor


# ---------------------------------------------------------------- running the probes


@dataclass
class ProbeOutcome:
    probe: str
    url: str
    via: str  # "url", "redirect", "browser", "browser-redirect", "browser-script", ...
    refused: bool
    requests_sent: int
    error: str | None
    calls: int = 0  # browser-script: the calls the page made (each must be refused)


@dataclass
class SsrfReport:
    outcomes: list[ProbeOutcome] = field(default_factory=list)

    @property
    def probes(self) -> int:
        return len(self.outcomes)

    @property
    def requests_sent(self) -> int:
        return sum(o.requests_sent for o in self.outcomes)

    @property
    def holes(self) -> list[ProbeOutcome]:
        return [o for o in self.outcomes if not o.refused or o.requests_sent]

    def summary(self) -> dict[str, Any]:
        return {
            "ssrf_probes": self.probes,
            "ssrf_requests_sent": self.requests_sent,
            "ssrf_holes": len(self.holes),
        }


def guarded_settings(**overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "allow_private_networks": False,
        "allowed_networks": (f"{SANDBOX_IP}/32",),
        "http_timeout_s": 3.0,
    }
    values.update(overrides)
    return Settings(**values)


@contextmanager
def probe_world() -> Iterator[tuple[RunningSandbox, RunningSandbox]]:
    """The sandbox (exempt) and the internal service on 127.0.0.2 (a sensor)."""
    outside = start_sandbox()
    inside = start_sandbox(host=INTERNAL_IP)
    try:
        yield outside, inside
    finally:
        inside.stop()
        outside.stop()


def run_probes(
    outside: RunningSandbox,
    inside: RunningSandbox,
    *,
    browser_every: int = 1,
    settings: Settings | None = None,
) -> SsrfReport:
    """Every probe as a URL and as a redirect target; the rebinding and redirect-limit
    drills; then every `browser_every`-th probe the same through Chromium (0: none;
    a render costs about a second, so the short form samples)."""
    settings = settings or guarded_settings()
    report = SsrfReport()
    port = inside.server.server_address[1]
    targets = [(p.name, p.url.format(port=port)) for p in probes()]
    with Fetcher(settings) as fetcher:
        sensor = instrument(fetcher, probe_resolver())
        probe = _Prober(fetcher, sensor, outside, inside, report)
        for name, url in targets:
            probe.direct(name, url, fetcher.fetch, "url")
            probe.redirect(name, url, fetcher.fetch, "redirect")
        probe.redirect_chain(fetcher.fetch)
    rebinding(outside, inside, settings, report)
    if browser_every:
        browser_probes(outside, inside, targets[::browser_every], settings, report)
    return report


Fetch = Callable[[FetchRequest], FetchResult]


@dataclass
class _Prober:
    fetcher: Any
    sensor: CountingBackend
    outside: RunningSandbox
    inside: RunningSandbox
    report: SsrfReport
    count: int = 0

    def _measure(self, name: str, url: str, via: str, send: Callable[[], FetchResult]) -> None:
        before_connects = len(self.sensor.connects)
        before_inside = len(self.inside.state.requests())
        result = send()
        escaped = [c for c in self.sensor.connects[before_connects:] if c[0] != SANDBOX_IP]
        sent = len(escaped) + len(self.inside.state.requests()) - before_inside
        refused = result.status is None and not result.deferred
        self.report.outcomes.append(ProbeOutcome(name, url, via, refused, sent, result.error))

    def direct(self, name: str, url: str, fetch: Fetch, via: str) -> None:
        self._measure(name, url, via, lambda: fetch(FetchRequest(url)))

    def redirect(self, name: str, url: str, fetch: Fetch, via: str) -> None:
        """The sandbox answers a board's listing with a 302 to the target."""
        self.count += 1
        token = f"ssrf-probe-{self.count}"
        self.outside.state.set_fault("greenhouse", token, Fault(redirect=url))
        listing = f"{self.outside.url}/greenhouse/v1/boards/{token}/jobs"
        self._measure(name, url, via, lambda: fetch(FetchRequest(listing)))
        self.outside.state.set_fault("greenhouse", token, None)

    def redirect_chain(self, fetch: Fetch) -> None:
        """A board that redirects to itself forever: the chain stops at the limit
        (MAX_REDIRECTS hops followed, one request each, nothing beyond)."""
        token = "ssrf-redirect-loop"
        listing = f"{self.outside.url}/greenhouse/v1/boards/{token}/jobs"
        self.outside.state.set_fault("greenhouse", token, Fault(redirect=listing))
        since = _last_at(self.outside)
        result = fetch(FetchRequest(listing))
        self.outside.state.set_fault("greenhouse", token, None)
        seen = len(self.outside.state.requests(token=token, since=since))
        stopped = result.status is None and "redirects" in (result.error or "")
        self.report.outcomes.append(
            ProbeOutcome(
                "redirect chain longer than the limit",
                listing,
                "redirect-loop",
                stopped and seen == MAX_REDIRECTS + 1,
                max(0, seen - (MAX_REDIRECTS + 1)),
                result.error,
            )
        )


def _last_at(sandbox: RunningSandbox) -> float:
    entries = sandbox.state.requests()
    return entries[-1].at + 1e-6 if entries else 0.0


def rebinding(
    outside: RunningSandbox, inside: RunningSandbox, settings: Settings, report: SsrfReport
) -> None:
    """A name that resolves to an allowed address, then to an internal one. Each new
    connection is vetted on the answer it connects to: the first reaches the sandbox,
    the second is refused, and the layer under the guard only ever sees the vetted
    address (never the name, so nothing below the guard resolves it again)."""
    resolver = probe_resolver()
    port = outside.server.server_address[1]
    url = f"http://rebind.probe.test:{port}/greenhouse/v1/boards/rebind/jobs"
    before_inside = len(inside.state.requests())
    results, connects = [], []
    for _ in range(2):  # a fresh fetcher each time: a new connection, a new lookup
        with Fetcher(settings) as fetcher:
            sensor = instrument(fetcher, resolver)
            results.append(fetcher.fetch(FetchRequest(url)))
            connects.extend(sensor.connects)
    vetted = [a for name, answer in resolver.calls if name == "rebind.probe.test" for a in answer]
    ok = (
        results[0].status is not None
        and results[1].status is None
        and connects == [(SANDBOX_IP, port)]
        and vetted == [SANDBOX_IP, INTERNAL_IP]
    )
    sent = len(inside.state.requests()) - before_inside + sum(c[0] != SANDBOX_IP for c in connects)
    report.outcomes.append(ProbeOutcome("dns rebinding", url, "url", ok, sent, results[1].error))


def browser_probes(
    outside: RunningSandbox,
    inside: RunningSandbox,
    targets: Iterable[tuple[str, str]],
    settings: Settings,
    report: SsrfReport,
) -> None:
    """The same probes through Chromium: the page itself, a redirect to the target,
    and a page whose script calls the target."""
    from pipeline.crawl.browser import BrowserFetcher

    with Fetcher(settings) as fetcher, BrowserFetcher(settings, fetcher) as browser:
        sensor = instrument(fetcher, probe_resolver())
        probe = _Prober(fetcher, sensor, outside, inside, report)
        for name, url in targets:
            probe.direct(name, url, browser.fetch, "browser")
            probe.redirect(name, url, browser.fetch, "browser-redirect")
            _script_probe(probe, name, url, browser.fetch)


def _script_probe(probe: _Prober, name: str, url: str, fetch: Fetch) -> None:
    """A sandbox page (200, HTML) whose script fetches the target and loads it in a
    frame: the rendered page is fine, the calls must be refused unsent."""
    probe.count += 1
    token = f"ssrf-script-{probe.count}"
    page = (
        "<!DOCTYPE html><html><head><title>jobs</title></head><body><p>jobs</p>"
        f"<script>fetch({url!r}).catch(function(){{}});</script>"
        f"<iframe src={url!r}></iframe></body></html>"
    )
    probe.outside.state.set_fault(
        "greenhouse", token, Fault(status=200, body=page, content_type="text/html")
    )
    listing = f"{probe.outside.url}/greenhouse/v1/boards/{token}/jobs"
    before_connects = len(probe.sensor.connects)
    before_inside = len(probe.inside.state.requests())
    result = fetch(FetchRequest(listing))
    probe.outside.state.set_fault("greenhouse", token, None)
    escaped = [c for c in probe.sensor.connects[before_connects:] if c[0] != SANDBOX_IP]
    sent = len(escaped) + len(probe.inside.state.requests()) - before_inside
    # Every call the page made (its script and its frame; Chromium may rewrite the
    # URL's form, so they are not matched by text) was refused unsent. Chromium itself
    # refuses subresource URLs with credentials in them: no call at all is also safe.
    refused = result.ok and all(r.status is None for r in result.related)
    probe.report.outcomes.append(
        ProbeOutcome(name, url, "browser-script", refused, sent, result.error, len(result.related))
    )
