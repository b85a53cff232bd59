"""SSRF guard: refuse connections to private, loopback, link-local, CGNAT and
cloud-metadata addresses.

The check runs where the socket is opened (a wrapped httpcore network backend),
after DNS resolution and for every connection, so redirects and DNS tricks
cannot route around it: the address we vet is the address we connect to.

Egress allowlist (settings.egress_allowlist, on in tests, the demo and benchmarks):
when set, only the listed hosts (`host` or `host:port`) may be reached at all. It
is checked before anything leaves the process: before DNS for a name, before the
connection for an address, and (in the fetcher and the browser) before a request
or a browser is even started. A refusal names the destination and the list.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import httpcore

from pipeline.crawl.http.streams import IdleCheckedStream
from pipeline.errors import BlockedAddressError, EgressRefusedError
from pipeline.settings import Allowlist

_EXTRA_BLOCKED = tuple(
    ipaddress.ip_network(net)
    for net in (
        "100.64.0.0/10",  # CGNAT shared address space (not flagged private by ipaddress)
        "169.254.169.254/32",  # cloud metadata (also link-local; listed to be explicit)
        "192.0.0.0/24",
        "198.18.0.0/15",  # benchmarking
        "fd00:ec2::254/128",  # AWS metadata over IPv6
    )
)


_NAT64 = ipaddress.ip_network("64:ff9b::/96")

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def _embedded_ipv4(ip: IpAddress) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address carries (mapped, 6to4, Teredo, NAT64): each
    reaches that IPv4 host, so each must pass the same checks."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    found = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    if ip in _NAT64:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return [a for a in found if a is not None]


def refusal_reason(address: str) -> str | None:
    """Why connecting to this IP is refused, or None if it is a public address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    for inner in _embedded_ipv4(ip):
        reason = refusal_reason(str(inner))
        if reason:
            return f"{reason} (embedded in {ip})"
    checks = (
        (ip.is_unspecified, "unspecified"),
        (ip.is_loopback, "loopback"),
        (ip.is_link_local, "link-local"),
        (ip.is_private, "private"),
        (ip.is_multicast, "multicast"),
        (ip.is_reserved, "reserved"),
        (isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local, "site-local"),
    )
    for flagged, reason in checks:
        if flagged:
            return reason
    for net in _EXTRA_BLOCKED:
        if ip.version == net.version and ip in net:
            return "cgnat/metadata/special"
    return None


def parse_networks(networks: Iterable[str]) -> tuple[IpNetwork, ...]:
    return tuple(ipaddress.ip_network(n.strip(), strict=False) for n in networks if n.strip())


def is_allowed(address: str, allowed: tuple[IpNetwork, ...]) -> bool:
    """An explicit exception (settings.allowed_networks), e.g. one test server."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    return any(ip.version == net.version and ip in net for net in allowed)


def egress_refusal(host: str, port: int | None, allowlist: Allowlist | None) -> str | None:
    """Why reaching host:port is refused by the allowlist, or None when it is allowed."""
    if allowlist is None:
        return None
    name = host.strip("[]").lower().rstrip(".")
    if name in allowlist or f"{name}:{port}" in allowlist or f"[{name}]:{port}" in allowlist:
        return None
    listed = ", ".join(sorted(allowlist)) or "nothing"
    return f"egress refused: {name}:{port} is not on the egress allowlist ({listed})"


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """Resolves the host itself, vets every address, connects only to a vetted one."""

    def __init__(
        self,
        inner: httpcore.AsyncNetworkBackend,
        *,
        allow_private: bool,
        allowed_networks: Iterable[str] = (),
        egress_allowlist: Allowlist | None = None,
    ) -> None:
        self.inner = inner
        self.allow_private = allow_private
        self.allowed = parse_networks(allowed_networks)
        self.egress = egress_allowlist

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self._vet_egress(host, port)
        if not self.allow_private:
            addresses = await _resolve(host, port)
            for address in addresses:
                reason = None if is_allowed(address, self.allowed) else refusal_reason(address)
                if reason:
                    raise BlockedAddressError(
                        f"refused to connect to a {reason} address", host=host, address=address
                    )
            host = addresses[0]
        stream = await self.inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return IdleCheckedStream(stream)

    def preflight(self, url: str) -> BlockedAddressError | None:
        """The refusal a request to `url` would meet, known before anything is sent
        (no DNS, no connection): an address the SSRF guard refuses (the more precise
        answer), or a destination off the egress allowlist. None: go ahead."""
        if self.egress is None:
            return None
        parts = urlsplit(url)
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme, 0)
        return self._refusal(parts.hostname or "", port)

    def _refusal(self, host: str, port: int) -> BlockedAddressError | None:
        literal = _ip_literal(host)
        if literal is not None and not self.allow_private:
            reason = None if is_allowed(literal, self.allowed) else refusal_reason(literal)
            if reason:
                return BlockedAddressError(
                    f"refused to connect to a {reason} address", host=host, address=literal
                )
        refusal = egress_refusal(host, port, self.egress)
        return EgressRefusedError(refusal, host=host, port=port) if refusal else None

    def _vet_egress(self, host: str, port: int) -> None:
        """The allowlist at the socket, before DNS for a name or a connection."""
        refused = self._refusal(host, port) if self.egress is not None else None
        if refused is not None:
            raise refused

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        raise BlockedAddressError("unix sockets are not crawl targets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def _ip_literal(host: str) -> str | None:
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    return host.strip("[]")


async def _resolve(host: str, port: int) -> list[str]:
    literal = _ip_literal(host)
    if literal is not None:
        return [literal]
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    # Every address the name resolves to must be public: one private answer is enough
    # to refuse, since we cannot know which one a retry would get.
    return list(dict.fromkeys(str(info[4][0]) for info in infos))
