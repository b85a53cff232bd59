"""Bad input, bounded: hostile bodies meet a recorded rejection, never a crash or a hang.

Two layers, each tried on purpose-built inputs:

- the wire (`http_inputs`): a hostile server on loopback answers with a body over
  the cap (streamed: does reading stop?), gzip bombs, gzip stacked three times,
  codings we never asked for (br, zstd), corrupt and truncated gzip, a body that
  drips forever. Through the real Fetcher: each must come back as a failed result
  with an error (what the phases record), within a time bound;
- the parsers (`parser_inputs`): every registered parser, as listing and as
  detail, over JSON nested 10,000 deep, a 50 MB JSON-LD block, 100,000 postings in
  one listing, a 10 MB HTML page, invalid and mislabelled encodings, NUL bytes and
  control characters; and the location normalizer over a 100 KB string. Each must
  return an outcome (a rejection carries an issue) within a time bound.

A crash is an exception out of the component; a hang is an input that took longer
than its bound. `scale` < 1 shrinks the big inputs for the short form.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

from parsers import REGISTRY, DocumentKind, Quality, RawDocument
from pipeline.crawl.http.fetcher import Fetcher, FetchRequest
from pipeline.normalize.locations import locate
from pipeline.settings import Settings

PARSE_BOUND_S = 60.0  # the longest any one input may take before it counts as a hang


@dataclass
class Tried:
    layer: str
    name: str
    outcome: str  # "rejected: ...", "accepted", "partial", "crash: ...", "hang: ..."
    elapsed_s: float

    @property
    def crashed(self) -> bool:
        return self.outcome.startswith(("crash", "hang", "wrong"))


@dataclass
class BadInputReport:
    tried: list[Tried] = field(default_factory=list)

    @property
    def crashes(self) -> list[Tried]:
        return [t for t in self.tried if t.crashed]

    def summary(self) -> dict[str, Any]:
        return {"bad_inputs_tried": len(self.tried), "bad_input_crashes": len(self.crashes)}


# ---------------------------------------------------------------- the wire


def _gzip_bomb(decoded_mb: int) -> bytes:
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = b"\0" * (1024 * 1024)
    return b"".join(z.compress(chunk) for _ in range(decoded_mb)) + z.flush()


def hostile_bodies(cap: int, scale: float) -> dict[str, tuple[dict[str, str], Any]]:
    """path -> (headers, body bytes or a generator of chunks)."""
    bomb = _gzip_bomb(max(8, int(1024 * scale)))  # 1 GB of zeros in the long form

    def endless() -> Iterator[bytes]:
        while True:
            yield b"x" * 65536

    def drip() -> Iterator[bytes]:
        while True:
            yield b"x"
            time.sleep(0.2)

    small = json.dumps({"jobs": []}).encode()
    return {
        "/over-cap": ({"Content-Type": "application/json"}, endless),
        "/over-cap-declared": (
            {"Content-Type": "text/html", "Content-Length": str(cap * 4)},
            lambda: iter([b"y" * (cap * 4)]),
        ),
        "/gzip-bomb": ({"Content-Encoding": "gzip", "Content-Type": "application/json"}, bomb),
        "/gzip-x3": (
            {"Content-Encoding": "gzip, gzip, gzip", "Content-Type": "application/json"},
            gzip.compress(gzip.compress(gzip.compress(b"\0" * (4 * 1024 * 1024)))),
        ),
        "/brotli": ({"Content-Encoding": "br", "Content-Type": "application/json"}, bomb[:4096]),
        "/zstd": ({"Content-Encoding": "zstd", "Content-Type": "application/json"}, bomb[:4096]),
        "/corrupt-gzip": (
            {"Content-Encoding": "gzip", "Content-Type": "application/json"},
            b"\x1f\x8b\x08\x00" + b"\xde\xad\xbe\xef" * 64,
        ),
        "/truncated-gzip": (
            {"Content-Encoding": "gzip", "Content-Type": "application/json"},
            gzip.compress(small * 50)[:-12],
        ),
        "/truncated-length": (
            {"Content-Type": "application/json", "Content-Length": "100000"},
            small,
        ),
        "/drip": ({"Content-Type": "text/html"}, drip),
    }


class _Hostile(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    bodies: ClassVar[dict[str, tuple[dict[str, str], Any]]] = {}
    sent: ClassVar[dict[str, int]] = {}

    def do_GET(self) -> None:
        headers, body = self.bodies[self.path]
        self.send_response(200)
        for key, value in headers.items():
            self.send_header(key, value)
        chunks = body() if callable(body) else iter([body])
        if "Content-Length" not in headers and not callable(body):
            self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.sent[self.path] = 0
        try:
            for chunk in chunks:
                self.wfile.write(chunk)
                self.sent[self.path] += len(chunk)
                if self.sent[self.path] > 2 * 1024**3:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: what the cap is for
        self.close_connection = True

    def log_message(self, *args: Any) -> None:
        pass


def http_inputs(report: BadInputReport, *, cap: int, scale: float) -> None:
    """Every hostile body through the real Fetcher, with the body cap at `cap`."""
    bodies = hostile_bodies(cap, scale)
    handler = type("Hostile", (_Hostile,), {"bodies": bodies, "sent": {}})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    settings = Settings(
        allow_private_networks=True,
        http_timeout_s=2.0,
        http_max_body_bytes=cap,
        http_total_timeout_s=5.0,
    )
    try:
        with Fetcher(settings) as fetcher:
            for path in bodies:
                _try_http(report, fetcher, base + path, path, handler.sent, cap)
    finally:
        server.shutdown()
        server.server_close()


def _try_http(
    report: BadInputReport, fetcher: Fetcher, url: str, path: str, sent: dict[str, int], cap: int
) -> None:
    started = time.monotonic()
    try:
        result = fetcher.fetch(FetchRequest(url))
    except Exception as exc:  # the crash this drill exists to catch
        outcome = f"crash: {type(exc).__name__}: {exc}"
    else:
        outcome = f"rejected: {result.error}" if result.error else "wrong: accepted"
        # Streamed: reading stopped near the cap (socket buffers allow a few MB more).
        if path == "/over-cap" and sent.get(path, 0) > cap + 16 * 1024 * 1024:
            outcome = f"wrong: {sent[path]} bytes were read for a cap of {cap}"
    elapsed = time.monotonic() - started
    if elapsed > 30:
        outcome = f"hang: {elapsed:.0f}s"
    report.tried.append(Tried("http", path, outcome, round(elapsed, 2)))


# ---------------------------------------------------------------- the parsers


def parser_inputs(scale: float) -> Iterator[tuple[str, bytes, str]]:
    """(name, body, content type) of the hostile documents every parser meets."""
    deep = 10_000
    yield "json nested 10,000 deep (arrays)", b"[" * deep + b"]" * deep, "application/json"
    yield (
        "json nested 10,000 deep (objects)",
        b'{"jobs":' * deep + b"1" + b"}" * deep,
        "application/json",
    )
    block = b"x" * int(50 * 1024 * 1024 * scale)
    yield (
        "50 MB JSON-LD block",
        b'<html><head><script type="application/ld+json">{"@type":"JobPosting","title":"'
        + block
        + b'"}</script></head><body></body></html>',
        "text/html",
    )
    n = int(100_000 * scale)
    jobs = [
        {"id": i, "title": f"Engineer {i}", "absolute_url": f"https://x.example/jobs/{i}"}
        for i in range(n)
    ]
    yield "100,000 postings (jobs array)", json.dumps({"jobs": jobs}).encode(), "application/json"
    yield "100,000 postings (top-level array)", json.dumps(jobs).encode(), "application/json"
    card = b'<article class="job-card"><a class="job-title" href="/jobs/x-1">Engineer</a></article>'
    page = b"<html><body>" + card * int(10 * 1024 * 1024 * scale / len(card)) + b"</body></html>"
    yield "10 MB HTML page", page, "text/html"
    yield "invalid utf-8", b'{"jobs": [{"title": "\xff\xfe\xc3\x28 bad"}]}', "application/json"
    yield (
        "utf-16 labelled utf-8",
        '{"jobs": []}'.encode("utf-16"),
        "application/json; charset=utf-8",
    )
    yield (
        "latin-1 labelled shift_jis",
        "<html><body><h1>Ingénieur</h1></body></html>".encode("latin-1"),
        "text/html; charset=shift_jis",
    )
    yield "unknown charset label", b"<html><body>x</body></html>", "text/html; charset=x-nonsense"
    yield "random bytes", bytes(range(256)) * 64, "application/octet-stream"
    yield (
        "NUL and control characters",
        json.dumps(
            {"jobs": [{"id": 1, "title": "a\x00b\x01\x1b", "absolute_url": "u\x00"}]}
        ).encode()
        + b"\x00\x00",
        "application/json",
    )
    yield "empty body", b"", "application/json"


def run_parsers(report: BadInputReport, *, scale: float) -> None:
    for name, body, content_type in parser_inputs(scale):
        for parser in REGISTRY:
            for kind in DocumentKind:
                doc = RawDocument(
                    body=body, url="https://x.example/jobs", kind=kind, content_type=content_type
                )
                _try(
                    report,
                    "parser",
                    f"{parser.ref} {kind.value}: {name}",
                    lambda d=doc, p=parser: p.parse(d),
                )
    text = "Berlin, Germany; " * int(6000 * max(scale, 0.1))
    for name, value in (
        ("100 KB location list", text),
        ("100 KB of one word", "a" * 100_000),
        ("100 KB of separators", ", " * 50_000),
        ("NUL and control characters", "Berlin\x00\x01\x1b, Germany"),
    ):
        _try(report, "locations", name, lambda v=value: locate([v]))


def _try(report: BadInputReport, layer: str, name: str, call: Callable[[], Any]) -> None:
    started = time.monotonic()
    try:
        result = call()
    except Exception as exc:
        outcome = f"crash: {type(exc).__name__}: {str(exc)[:200]}"
    else:
        outcome = _describe(result)
    elapsed = time.monotonic() - started
    if elapsed > PARSE_BOUND_S:
        outcome = f"hang: {elapsed:.0f}s ({outcome})"
    report.tried.append(Tried(layer, name, outcome, round(elapsed, 2)))


def _describe(result: Any) -> str:
    quality = getattr(result, "quality", None)
    if quality is None:
        return "accepted"
    if quality is Quality.REJECTED and not result.issues:
        return "wrong: rejected without an issue"
    return f"{quality.value}: {','.join(i.code for i in result.issues[:3])}"


def run_bad_inputs(*, scale: float = 1.0, cap: int | None = None) -> BadInputReport:
    report = BadInputReport()
    http_inputs(report, cap=cap or max(1024 * 1024, int(50 * 1024 * 1024 * scale)), scale=scale)
    run_parsers(report, scale=scale)
    return report
