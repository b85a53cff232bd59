"""Real servers on loopback that keep what they receive: an SMTP server (the subset
smtplib speaks: EHLO, AUTH PLAIN, MAIL, RCPT, DATA) and an HTTP server for webhooks.
Alerts reach them over real sockets, so the tests prove delivery, not a call."""

from __future__ import annotations

import base64
import email
import email.policy
import json
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    messages: list[EmailMessage] = field(default_factory=list)
    recipients: list[list[str]] = field(default_factory=list)
    logins: list[tuple[str, str]] = field(default_factory=list)
    posts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


class _SmtpHandler(socketserver.StreamRequestHandler):
    server: _SmtpServer

    def _say(self, line: str) -> None:
        self.wfile.write(line.encode() + b"\r\n")

    def handle(self) -> None:
        self._say("220 sink ESMTP")
        recipients: list[str] = []
        while raw := self.rfile.readline():
            line = raw.decode().rstrip("\r\n")
            verb = line.split(" ", 1)[0].upper()
            if verb == "EHLO":
                self._say("250-sink")
                self._say("250 AUTH PLAIN")
            elif verb == "AUTH":
                _, user, password = base64.b64decode(line.split()[2]).decode().split("\0")
                self.server.received.logins.append((user, password))
                ok = password == self.server.password
                self._say("235 ok" if ok else "535 authentication failed")
            elif verb == "RCPT":
                recipients.append(line.split(":", 1)[1].strip(" <>"))
                self._say("250 ok")
            elif verb == "DATA":
                self._say("354 go on")
                self._data(recipients)
                recipients = []
            elif verb == "QUIT":
                self._say("221 bye")
                return
            else:  # HELO, MAIL, RSET, NOOP
                self._say("250 ok")

    def _data(self, recipients: list[str]) -> None:
        lines = []
        while (raw := self.rfile.readline()) not in (b".\r\n", b""):
            lines.append(raw[1:] if raw.startswith(b"..") else raw)
        message = email.message_from_bytes(b"".join(lines), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        self.server.received.messages.append(message)
        self.server.received.recipients.append(recipients)
        self._say("250 queued")


class _SmtpServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, received: Received, password: str) -> None:
        super().__init__(("127.0.0.1", 0), _SmtpHandler)
        self.received = received
        self.password = password


class _HookHandler(BaseHTTPRequestHandler):
    server: _HookServer

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.received.posts.append((self.path, json.loads(body)))
        self.send_response(self.server.status)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:  # quiet test output
        pass


class _HookServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, received: Received, status: int) -> None:
        super().__init__(("127.0.0.1", 0), _HookHandler)
        self.received = received
        self.status = status


@contextmanager
def smtp_sink(password: str = "s3cret-pass") -> Iterator[tuple[int, Received]]:
    """An SMTP server on loopback accepting AUTH PLAIN with `password`: (port, inbox)."""
    received = Received()
    with _serving(_SmtpServer(received, password)) as port:
        yield port, received


@contextmanager
def webhook_sink(status: int = 200) -> Iterator[tuple[int, Received]]:
    """An HTTP server on loopback answering every POST with `status`: (port, posts)."""
    received = Received()
    with _serving(_HookServer(received, status)) as port:
        yield port, received


@contextmanager
def _serving(server: socketserver.TCPServer) -> Iterator[int]:
    """`server` answering on a thread until the block ends; its port."""
    with server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield server.server_address[1]
        finally:
            server.shutdown()
