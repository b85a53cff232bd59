"""Fault switches: make any sandbox board misbehave the way real boards do.

A fault is set per board (platform + token) through the admin API and applied
before the board's format handler runs. Tokens starting with "gone-" always
answer 404, like a deleted board.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.routing import Reply, not_found


@dataclass(frozen=True)
class Fault:
    status: int | None = None  # answer this status instead of the listing
    body: str = ""
    content_type: str = "text/plain; charset=utf-8"

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Fault:
        unknown = set(data) - {"status", "body", "content_type"}
        if unknown:
            raise ValueError(f"unknown fault settings: {', '.join(sorted(unknown))}")
        status = data.get("status")
        return cls(
            status=int(status) if status is not None else None,
            body=str(data.get("body", "")),
            content_type=str(data.get("content_type") or "text/plain; charset=utf-8"),
        )


def before_handler(token: str | None, fault: Fault | None) -> Reply | None:
    """A reply that replaces the handler's, or None to let the handler answer."""
    if token is not None and token.startswith("gone-"):
        return not_found("Job board not found")
    if fault is None:
        return None
    if fault.status is not None:
        return Reply(fault.status, fault.body.encode(), fault.content_type)
    return None
