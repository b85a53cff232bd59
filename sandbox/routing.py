"""How sandbox formats plug in: each platform module declares its routes.

A route names the platform it serves and matches a `token` group (the board),
so the server can apply per-board state (revisions) and fault switches before
the format's handler runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sandbox.server import SandboxState
    from sandbox.world import Board

HTML = "text/html; charset=utf-8"
JSON = "application/json; charset=utf-8"


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes = b""
    content_type: str = JSON
    revision: int | None = None  # drives ETag / Last-Modified; None = no validators
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    match: re.Match[str]
    query: Mapping[str, list[str]]
    headers: Mapping[str, str]
    body: bytes
    base_url: str  # http://host:port of this sandbox
    state: SandboxState
    platform: str | None = None
    omit: frozenset[int] = frozenset()  # job ids this (listing) reply leaves out (faults.omit)

    def arg(self, name: str, default: str = "") -> str:
        return self.query.get(name, [default])[0]

    @property
    def token(self) -> str | None:
        groups = self.match.groupdict()
        return groups.get("token")

    def board(self, *, vietnamese: bool = False) -> Board:
        assert self.platform is not None
        assert self.token is not None
        board = self.state.board(self.platform, self.token, vietnamese=vietnamese)
        if not self.omit:
            return board
        return replace(board, jobs=tuple(j for j in board.jobs if j.job_id not in self.omit))


Handler = Callable[[Request], Reply]


# Groups that name one posting in a route's pattern: such routes are a posting's own
# page or detail API; the others are listings (and board pages).
POSTING_GROUPS = frozenset({"id", "job_id", "slug", "path", "code"})


@dataclass(frozen=True)
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    platform: str | None = None  # board-scoped routes: faults and revisions apply


def is_posting_route(route: Route) -> bool:
    return bool(POSTING_GROUPS & set(route.pattern.groupindex))


@dataclass
class Format:
    """A platform's routes. `platform` is the key its boards use in sandbox state."""

    name: str
    routes: list[Route] = field(default_factory=list)

    def get(self, pattern: str, *, platform: str | None = None) -> Callable[[Handler], Handler]:
        return self._add("GET", pattern, platform)

    def post(self, pattern: str, *, platform: str | None = None) -> Callable[[Handler], Handler]:
        return self._add("POST", pattern, platform)

    def _add(self, method: str, pattern: str, platform: str | None) -> Callable[[Handler], Handler]:
        def decorator(handler: Handler) -> Handler:
            self.routes.append(Route(method, re.compile(pattern), handler, platform))
            return handler

        return decorator


def not_found(message: str = "not found", content_type: str = JSON) -> Reply:
    if content_type == HTML:
        return Reply(404, f"<html><body><h1>{message}</h1></body></html>".encode(), HTML)
    return Reply(404, (f'{{"status": 404, "error": "{message}"}}').encode(), JSON)
