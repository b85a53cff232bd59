"""The sandbox job web: a local HTTP server speaking real job-board formats.

Formats (sandbox/formats) declare their routes; this server dispatches, keeps
per-board state (revisions, faults), adds ETag / Last-Modified validators and
answers conditional requests with 304. Admin routes:
  GET  /_sandbox/state                                 revisions and faults, as JSON
  POST /_sandbox/advance?platform=P&token=T[&steps=N]  change a board (one closes, one changes, one opens)
  POST /_sandbox/fault?platform=P&token=T  (JSON body)  set a board's fault; empty body clears it
  POST /_sandbox/reset                                 every board back to revision 0, no faults
  GET  /robots.txt
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from sandbox import faults
from sandbox.formats import FORMATS
from sandbox.routing import Format, Reply, Request, Route, not_found
from sandbox.world import EPOCH, Board, build_board

DEFAULT_SEED = 7


@dataclass
class SandboxState:
    seed: int = DEFAULT_SEED
    revisions: dict[tuple[str, str], int] = field(default_factory=dict)
    faults: dict[tuple[str, str], faults.Fault] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def revision(self, platform: str, token: str) -> int:
        with self.lock:
            return self.revisions.get((platform, token), 0)

    def advance(self, platform: str, token: str, steps: int = 1) -> int:
        with self.lock:
            value = self.revisions.get((platform, token), 0) + steps
            self.revisions[(platform, token)] = value
            return value

    def set_fault(self, platform: str, token: str, fault: faults.Fault | None) -> None:
        with self.lock:
            if fault is None:
                self.faults.pop((platform, token), None)
            else:
                self.faults[(platform, token)] = fault

    def fault(self, platform: str, token: str) -> faults.Fault | None:
        with self.lock:
            return self.faults.get((platform, token))

    def reset(self) -> None:
        with self.lock:
            self.revisions.clear()
            self.faults.clear()

    def board(self, platform: str, token: str, *, vietnamese: bool = False) -> Board:
        return build_board(self.seed, platform, token, self.revision(platform, token), vietnamese)

    def snapshot(self) -> dict[str, object]:
        with self.lock:
            return {
                "seed": self.seed,
                "revisions": {f"{p}/{t}": r for (p, t), r in sorted(self.revisions.items())},
                "faults": {f"{p}/{t}": vars(f) for (p, t), f in sorted(self.faults.items())},
            }


ADMIN = Format("admin")


@ADMIN.get(r"/_sandbox/state")
def admin_state(request: Request) -> Reply:
    return Reply(200, json.dumps(request.state.snapshot()).encode())


@ADMIN.post(r"/_sandbox/advance")
def admin_advance(request: Request) -> Reply:
    platform, token = request.arg("platform"), request.arg("token")
    if not platform or not token:
        return Reply(400, b'{"error": "platform and token are required"}')
    revision = request.state.advance(platform, token, int(request.arg("steps", "1")))
    return Reply(
        200, json.dumps({"platform": platform, "token": token, "revision": revision}).encode()
    )


@ADMIN.post(r"/_sandbox/fault")
def admin_fault(request: Request) -> Reply:
    platform, token = request.arg("platform"), request.arg("token")
    if not platform or not token:
        return Reply(400, b'{"error": "platform and token are required"}')
    try:
        fault = faults.Fault.from_dict(json.loads(request.body)) if request.body.strip() else None
    except (ValueError, TypeError) as exc:
        return Reply(400, json.dumps({"error": str(exc)}).encode())
    request.state.set_fault(platform, token, fault)
    return Reply(
        200,
        json.dumps({"platform": platform, "token": token, "fault": fault and vars(fault)}).encode(),
    )


@ADMIN.post(r"/_sandbox/reset")
def admin_reset(request: Request) -> Reply:
    request.state.reset()
    return Reply(200, b'{"reset": true}')


@ADMIN.get(r"/robots\.txt")
def robots(request: Request) -> Reply:
    return Reply(200, b"User-agent: *\nDisallow: /private/\n", "text/plain; charset=utf-8")


ROUTES: list[Route] = [route for fmt in [ADMIN, *FORMATS] for route in fmt.routes]


class SandboxHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: SandboxServer

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: tests and benchmarks make many thousands of requests

    def do_GET(self) -> None:
        self._dispatch(b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._dispatch(self.rfile.read(length) if length else b"")

    def _dispatch(self, body: bytes) -> None:
        parts = urlsplit(self.path)
        host, port = self.server.server_address[:2]
        for route in ROUTES:
            match = route.pattern.fullmatch(parts.path)
            if match is None or route.method != self.command:
                continue
            request = Request(
                self.command,
                parts.path,
                match,
                parse_qs(parts.query),
                {k.lower(): v for k, v in self.headers.items()},
                body,
                f"http://{host}:{port}",
                self.server.state,
                route.platform,
            )
            self._send(self._answer(route, request))
            return
        self._send(not_found())

    def _answer(self, route: Route, request: Request) -> Reply:
        try:
            if route.platform is not None:
                fault = self.server.state.fault(route.platform, request.token or "")
                replaced = faults.before_handler(request.token, fault)
                if replaced is not None:
                    return replaced
            return route.handler(request)
        except Exception as exc:  # a sandbox bug must still answer, visibly
            return Reply(500, f"sandbox error: {exc!r}".encode(), "text/plain")

    def _send(self, reply: Reply) -> None:
        headers = list(reply.headers)
        status, body = reply.status, reply.body
        if status == 200 and reply.revision is not None:
            etag = '"' + hashlib.sha1(body).hexdigest() + '"'
            modified = EPOCH + timedelta(hours=reply.revision)
            headers += [("ETag", etag), ("Last-Modified", format_datetime(modified, usegmt=True))]
            if self._not_modified(etag, modified):
                status, body = 304, b""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _not_modified(self, etag: str, modified: datetime) -> bool:
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:
            return if_none_match.strip() == "*" or etag in [
                t.strip() for t in if_none_match.split(",")
            ]
        since = self.headers.get("If-Modified-Since")
        if since:
            try:
                return parsedate_to_datetime(since) >= modified
            except (TypeError, ValueError):
                return False
        return False


class SandboxServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], state: SandboxState) -> None:
        self.state = state
        super().__init__(address, SandboxHandler)


@dataclass
class RunningSandbox:
    server: SandboxServer
    thread: threading.Thread

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def state(self) -> SandboxState:
        return self.server.state

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def start_sandbox(
    host: str = "127.0.0.1", port: int = 0, seed: int = DEFAULT_SEED
) -> RunningSandbox:
    """Serve in a background thread (tests, demo); port 0 picks a free port."""
    server = SandboxServer((host, port), SandboxState(seed=seed))
    thread = threading.Thread(target=server.serve_forever, name="sandbox", daemon=True)
    thread.start()
    return RunningSandbox(server, thread)
