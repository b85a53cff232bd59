"""The sandbox job web: a local HTTP server speaking real job-board formats.

Formats (sandbox/formats) declare their routes; this server dispatches, keeps
per-board state (revisions, faults), adds ETag / Last-Modified validators and
answers conditional requests with 304. Admin routes:
  GET  /_sandbox/state                                 revisions and faults, as JSON
  POST /_sandbox/advance?platform=P&token=T[&steps=N]  change a board (one closes, one changes, one opens)
  POST /_sandbox/advance-many  {"platform": P, "tokens": [...]}  the same for many boards
  POST /_sandbox/fault?platform=P&token=T  (JSON body)  set a board's fault; empty body clears it
  POST /_sandbox/remove?platform=P&token=T[&id=ID]    remove a posting for real (without id:
                                                       every posting of the board): gone from
                                                       the listing, its own URLs answer as the
                                                       platform answers for a removed job
  POST /_sandbox/reset                                 every board back to revision 0, no faults,
                                                       nothing removed
  POST /_sandbox/robots?status=N  (text body)          what /robots.txt answers (reset restores it)
  GET  /_sandbox/log[?since=T]                         every request received, with arrival times
  GET  /robots.txt

The request log is how tests prove politeness: it is the host's own record of
when each request arrived (monotonic seconds, this process's clock).
"""

from __future__ import annotations

import hashlib
import json
import socket
import struct
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from sandbox import faults
from sandbox.formats import FORMATS
from sandbox.routing import Format, Reply, Request, Route, is_posting_route, not_found
from sandbox.world import EPOCH, Board, build_board

DEFAULT_SEED = 7
DEFAULT_ROBOTS = (200, "User-agent: *\nDisallow: /private/\n")
LOG_LIMIT = 200_000
LOGGED_HEADERS = ("user-agent", "if-none-match", "if-modified-since")
ETAG_CACHE_LIMIT = 200_000


@dataclass
class LoggedRequest:
    """One request as the sandbox saw it arrive."""

    at: float  # time.monotonic() on arrival
    method: str
    path: str  # with the query string
    platform: str | None
    token: str | None
    headers: dict[str, str]
    status: int | None = None  # filled in once answered
    cooldown_until: float | None = None  # the end (monotonic) of a Retry-After it was given

    def as_dict(self) -> dict[str, object]:
        return dict(vars(self))


@dataclass
class SandboxState:
    seed: int = DEFAULT_SEED
    revisions: dict[tuple[str, str], int] = field(default_factory=dict)
    faults: dict[tuple[str, str], faults.Fault] = field(default_factory=dict)
    fault_uses: dict[tuple[str, str], int] = field(default_factory=dict)
    robots: tuple[int, str] = DEFAULT_ROBOTS
    log: deque[LoggedRequest] = field(default_factory=lambda: deque(maxlen=LOG_LIMIT))
    # (path with query, platform, token, revision) -> (ETag, Last-Modified) of the body
    # last served: lets a conditional request be answered 304 without building the body.
    etags: dict[tuple[str, str, str, int], tuple[str, str]] = field(default_factory=dict)
    # Postings removed for real (POST /_sandbox/remove): job ids, or None for all of them.
    removed: dict[tuple[str, str], frozenset[int] | None] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def remove(self, platform: str, token: str, job_id: int | None) -> None:
        with self.lock:
            key = (platform, token)
            if job_id is None:
                self.removed[key] = None
            elif key not in self.removed or self.removed[key] is not None:
                self.removed[key] = (self.removed.get(key) or frozenset()) | {job_id}
            self.etags.clear()  # cached 304s were for the board before the removal

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
            self.fault_uses.pop((platform, token), None)
            if fault is None:
                self.faults.pop((platform, token), None)
            else:
                self.faults[(platform, token)] = fault

    def fault(self, platform: str, token: str) -> faults.Fault | None:
        with self.lock:
            return self.faults.get((platform, token))

    def use_fault(
        self, platform: str, token: str, *, posting_route: bool = False, path: str = ""
    ) -> faults.Fault | None:
        """The board's fault for this request; a fault with `times` wears off (only by
        the requests it applies to)."""
        key = (platform, token)
        with self.lock:
            fault = self.faults.get(key)
            if fault is not None and not fault.applies_to(posting_route=posting_route, path=path):
                return None
            if fault is not None and fault.times is not None:
                used = self.fault_uses.get(key, 0) + 1
                self.fault_uses[key] = used
                if used >= fault.times:
                    del self.faults[key]
                    self.fault_uses.pop(key, None)
            return fault

    def record(self, entry: LoggedRequest) -> None:
        with self.lock:
            self.log.append(entry)

    def requests(
        self, *, platform: str | None = None, token: str | None = None, since: float = 0.0
    ) -> list[LoggedRequest]:
        with self.lock:
            entries = list(self.log)
        return [
            e
            for e in entries
            if e.at >= since
            and (platform is None or e.platform == platform)
            and (token is None or e.token == token)
        ]

    def reset(self) -> None:
        with self.lock:
            self.revisions.clear()
            self.faults.clear()
            self.fault_uses.clear()
            self.robots = DEFAULT_ROBOTS
            self.log.clear()
            self.etags.clear()
            self.removed.clear()

    def board(self, platform: str, token: str, *, vietnamese: bool = False) -> Board:
        board = build_board(self.seed, platform, token, self.revision(platform, token), vietnamese)
        with self.lock:
            if (platform, token) not in self.removed:
                return board
            gone = self.removed[(platform, token)]
        kept = () if gone is None else tuple(j for j in board.jobs if j.job_id not in gone)
        return replace(board, jobs=kept)

    def snapshot(self) -> dict[str, object]:
        with self.lock:
            return {
                "seed": self.seed,
                "revisions": {f"{p}/{t}": r for (p, t), r in sorted(self.revisions.items())},
                "faults": {f"{p}/{t}": f.as_dict() for (p, t), f in sorted(self.faults.items())},
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


@ADMIN.post(r"/_sandbox/advance-many")
def admin_advance_many(request: Request) -> Reply:
    """Change many boards of one platform at once: {"platform": P, "tokens": [...]}."""
    try:
        data = json.loads(request.body)
        platform, tokens = str(data["platform"]), [str(t) for t in data["tokens"]]
    except (ValueError, KeyError, TypeError):
        return Reply(400, b'{"error": "body must be {\\"platform\\": P, \\"tokens\\": [...]}"}')
    for token in tokens:
        request.state.advance(platform, token)
    return Reply(200, json.dumps({"platform": platform, "advanced": len(tokens)}).encode())


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
        json.dumps(
            {"platform": platform, "token": token, "fault": fault and fault.as_dict()}
        ).encode(),
    )


@ADMIN.post(r"/_sandbox/remove")
def admin_remove(request: Request) -> Reply:
    platform, token, job = request.arg("platform"), request.arg("token"), request.arg("id") or None
    if not platform or not token:
        return Reply(400, b'{"error": "platform and token are required"}')
    if job is not None and not job.isdigit():
        return Reply(400, b'{"error": "id must be a posting\'s numeric job id"}')
    request.state.remove(platform, token, int(job) if job is not None else None)
    removed = "all" if job is None else int(job)
    return Reply(
        200, json.dumps({"platform": platform, "token": token, "removed": removed}).encode()
    )


@ADMIN.post(r"/_sandbox/reset")
def admin_reset(request: Request) -> Reply:
    request.state.reset()
    return Reply(200, b'{"reset": true}')


@ADMIN.post(r"/_sandbox/robots")
def admin_robots(request: Request) -> Reply:
    status = int(request.arg("status", "200"))
    with request.state.lock:
        request.state.robots = (status, request.body.decode())
    return Reply(200, json.dumps({"status": status}).encode())


@ADMIN.get(r"/_sandbox/log")
def admin_log(request: Request) -> Reply:
    since = float(request.arg("since", "0"))
    entries = [e.as_dict() for e in request.state.requests(since=since)]
    return Reply(200, json.dumps({"now": time.monotonic(), "requests": entries}).encode())


@ADMIN.get(r"/robots\.txt")
def robots(request: Request) -> Reply:
    status, text = request.state.robots
    return Reply(status, text.encode(), "text/plain; charset=utf-8")


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
        state = self.server.state
        headers = {k.lower(): v for k, v in self.headers.items()}
        for route in ROUTES:
            match = route.pattern.fullmatch(parts.path)
            if match is None or route.method != self.command:
                continue
            request = Request(
                self.command,
                parts.path,
                match,
                parse_qs(parts.query),
                headers,
                body,
                f"http://{host}:{port}",
                state,
                route.platform,
            )
            entry = LoggedRequest(
                time.monotonic(),
                self.command,
                self.path,
                route.platform,
                request.token,
                _logged_headers(headers),
            )
            if not self.path.startswith("/_sandbox/"):
                state.record(entry)
            reply, fault = self._answer(route, request)
            asked = faults.asked_cooldown_s(reply)
            entry.cooldown_until = None if asked is None else time.monotonic() + asked
            entry.status = self._send(reply, fault)
            return
        state.record(
            LoggedRequest(
                time.monotonic(), self.command, self.path, None, None, _logged_headers(headers)
            )
        )
        self._send(not_found(), None)

    def _answer(self, route: Route, request: Request) -> tuple[Reply, faults.Fault | None]:
        fault = None
        try:
            if route.platform is not None:
                posting_route = is_posting_route(route)
                fault = self.server.state.use_fault(
                    route.platform,
                    request.token or "",
                    posting_route=posting_route,
                    path=request.path,
                )
                if fault is not None and fault.omit and not posting_route:
                    request = replace(request, omit=frozenset(fault.omit))
                if fault is not None and fault.delay_s:
                    time.sleep(fault.delay_s)
                replaced = faults.before_handler(request.token, fault)
                if replaced is not None:
                    return replaced, fault
                cached = self._cached_not_modified(route, request, fault)
                if cached is not None:
                    return cached, fault
            reply = faults.after_handler(route.handler(request), fault)
            if route.platform is not None and fault is None and reply.revision is not None:
                self._remember_validators(route, request, reply)
            return reply, fault
        except Exception as exc:  # a sandbox bug must still answer, visibly
            return Reply(500, f"sandbox error: {exc!r}".encode(), "text/plain"), fault

    # ---- validators

    def _etag_key(self, route: Route, request: Request) -> tuple[str, str, str, int]:
        platform, token = route.platform or "", request.token or ""
        return (self.path, platform, token, self.server.state.revision(platform, token))

    def _cached_not_modified(
        self, route: Route, request: Request, fault: faults.Fault | None
    ) -> Reply | None:
        """A 304 straight from the validators of the body last served at this revision
        (building a large listing only to hash it is the sandbox's main cost)."""
        if fault is not None or self.command != "GET":
            return None
        known = self.server.state.etags.get(self._etag_key(route, request))
        if known is None:
            return None
        etag, modified = known
        if not self._not_modified(etag, parsedate_to_datetime(modified)):
            return None
        return Reply(304, headers=(("ETag", etag), ("Last-Modified", modified)))

    def _remember_validators(self, route: Route, request: Request, reply: Reply) -> None:
        etags = self.server.state.etags
        if len(etags) >= ETAG_CACHE_LIMIT:
            etags.clear()
        etags[self._etag_key(route, request)] = _validators(reply)

    def _send(self, reply: Reply, fault: faults.Fault | None) -> int:
        headers = list(reply.headers)
        status, body = reply.status, reply.body
        if fault is not None and fault.wire is not None and status == 200:
            return self._send_broken(reply, fault.wire)
        mode = fault.validators if fault is not None else "both"
        if status == 200 and reply.revision is not None and mode != "none":
            etag, modified = _validators(reply)
            if mode in ("both", "etag"):
                headers.append(("ETag", etag))
            if mode in ("both", "last_modified"):
                headers.append(("Last-Modified", modified))
            if self._not_modified(
                etag if mode != "last_modified" else None,
                parsedate_to_datetime(modified) if mode != "etag" else None,
            ):
                status, body = 304, b""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status != 304:
            self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return status

    def _send_broken(self, reply: Reply, wire: str) -> int:
        """The answer's head (Content-Length of the whole body) and half its body, then
        the connection ends: a reset (RST: SO_LINGER 0, then close) or a plain close."""
        self.send_response(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        self.wfile.write(reply.body[: len(reply.body) // 2])
        self.wfile.flush()
        self.close_connection = True
        if wire == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        else:
            self.connection.shutdown(socket.SHUT_RDWR)
        return reply.status

    def _not_modified(self, etag: str | None, modified: datetime | None) -> bool:
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None and etag is not None:
            return if_none_match.strip() == "*" or etag in [
                t.strip() for t in if_none_match.split(",")
            ]
        since = self.headers.get("If-Modified-Since")
        if since and modified is not None:
            try:
                return parsedate_to_datetime(since) >= modified
            except (TypeError, ValueError):
                return False
        return False


def _logged_headers(headers: dict[str, str]) -> dict[str, str]:
    return {name: headers[name] for name in LOGGED_HEADERS if name in headers}


def _validators(reply: Reply) -> tuple[str, str]:
    """ETag (a digest of the body) and Last-Modified (the board's revision time)."""
    assert reply.revision is not None
    etag = '"' + hashlib.sha1(reply.body).hexdigest() + '"'
    modified = EPOCH + timedelta(hours=reply.revision)
    return etag, format_datetime(modified, usegmt=True)


class SandboxServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], state: SandboxState) -> None:
        self.state = state
        super().__init__(address, SandboxHandler)

    def handle_error(self, request: object, client_address: object) -> None:
        # A client that gave up on a slow answer (a `delay_s` fault) is expected.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


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
