"""Cookies through the fetcher, which reads them only from responses carrying
Set-Cookie: kept and sent back as httpx's own client does, over a real loopback
server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pipeline.crawl.http.fetcher import Fetcher, FetchRequest
from pipeline.settings import Settings


class _CookieHandler(BaseHTTPRequestHandler):
    """/set answers with a cookie; /plain with none; /echo says which Cookie it got."""

    def do_GET(self) -> None:
        echoed = self.headers.get("Cookie") or "(none)"
        body = echoed.encode() if self.path == "/echo" else b"ok"
        self.send_response(200)
        if self.path == "/set":
            self.send_header("Set-Cookie", "session=abc123; Path=/")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return  # quiet test output


@pytest.fixture
def cookie_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _CookieHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _echoed_after(base: str, *paths: str) -> bytes:
    with Fetcher(Settings(allow_private_networks=True), max_connections=2) as fetcher:
        for path in paths:
            assert fetcher.fetch(FetchRequest(base + path)).status == 200
        return fetcher.fetch(FetchRequest(base + "/echo")).body


def test_a_cookie_a_host_sets_is_sent_back_to_it_on_later_requests(cookie_server: str) -> None:
    assert _echoed_after(cookie_server, "/set", "/plain") == b"session=abc123"


def test_responses_without_set_cookie_leave_requests_without_a_cookie(cookie_server: str) -> None:
    assert _echoed_after(cookie_server, "/plain", "/plain") == b"(none)"
