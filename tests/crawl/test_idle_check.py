"""The pool's idle check on our connection streams (pipeline.crawl.http.streams):
a keep-alive connection the server has closed is seen as such before it is reused,
over real loopback sockets."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import httpcore
import pytest

from pipeline.crawl.http.fetcher import Fetcher, FetchRequest
from pipeline.crawl.http.guard import GuardedBackend
from pipeline.crawl.http.streams import IdleCheckedStream
from pipeline.settings import Settings


def _answer_once_then_close(listener: socket.socket, stop: threading.Event) -> None:
    """An HTTP/1.1 server that answers each connection's first request without
    `Connection: close`, as if it would keep it open, then closes it."""
    listener.settimeout(0.2)
    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        with conn:
            received = b""
            while b"\r\n\r\n" not in received:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                received += chunk
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")


@pytest.fixture
def closing_server() -> Iterator[str]:
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    thread = threading.Thread(target=_answer_once_then_close, args=(listener, stop), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


def test_an_idle_connection_reads_readable_only_once_the_server_has_closed_it() -> None:
    async def scenario() -> tuple[bool, bool, bool]:
        closed = asyncio.Event()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await closed.wait()
            writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        backend = GuardedBackend(httpcore.AnyIOBackend(), allow_private=True)
        stream = await backend.connect_tcp("127.0.0.1", port)
        wrapped = isinstance(stream, IdleCheckedStream)
        open_readable = stream.get_extra_info("is_readable")
        closed.set()
        deadline = time.monotonic() + 5
        while not stream.get_extra_info("is_readable") and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        closed_readable = stream.get_extra_info("is_readable")
        await stream.aclose()
        server.close()
        return wrapped, open_readable, closed_readable

    wrapped, open_readable, closed_readable = asyncio.run(scenario())
    assert wrapped
    assert open_readable is False
    assert closed_readable is True


class _OverSocket(httpcore.AsyncNetworkStream):
    """A stream that is only its socket: what the idle check looks at."""

    def __init__(self, sock: socket.socket | None) -> None:
        self.sock = sock

    def get_extra_info(self, info: str) -> object:
        return self.sock if info == "socket" else None


def test_a_closed_socket_or_none_counts_as_readable_so_the_pool_drops_it() -> None:
    left, right = socket.socketpair()
    with right:
        checked = IdleCheckedStream(_OverSocket(left))
        assert checked.get_extra_info("is_readable") is False
        left.close()
        assert checked.get_extra_info("is_readable") is True
    assert IdleCheckedStream(_OverSocket(None)).get_extra_info("is_readable") is True


def test_a_socket_with_unread_data_counts_as_readable() -> None:
    left, right = socket.socketpair()
    with left, right:
        checked = IdleCheckedStream(_OverSocket(left))
        right.sendall(b"HTTP/1.1 408 Request Timeout\r\n\r\n")
        assert checked.get_extra_info("is_readable") is True


def test_the_fetcher_reconnects_when_the_server_closed_a_kept_alive_connection(
    closing_server: str,
) -> None:
    """Every response leaves the connection in the pool as reusable; the server closes
    it. Each next request must see that and connect again, not send into a dead one."""
    with Fetcher(Settings(allow_private_networks=True), max_connections=1) as fetcher:
        results = []
        for _ in range(5):
            results.append(fetcher.fetch(FetchRequest(closing_server)))
            time.sleep(0.05)  # the server's close reaches our socket
    assert [(r.status, r.body, r.error) for r in results] == [(200, b"ok", None)] * 5
