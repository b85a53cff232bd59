"""What every response carries and every GET route also answers: security headers (a
Content-Security-Policy with no inline script or style, nosniff, a referrer policy, no
framing) and HEAD, answered as the GET it names without its body."""

from __future__ import annotations

from typing import Any

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Only the app's own origin: no CDN, no inline script or style (the stats bars are
# sized by class, not by a style attribute), no framing, forms posted only here.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
}


def security_headers() -> dict[str, str]:
    """The headers every response carries (the API docs too: their assets are served
    from here, web.pages.api_docs)."""
    return {**SECURITY_HEADERS, "Content-Security-Policy": CONTENT_SECURITY_POLICY}


class HeadAsGet:
    """HEAD on any route that answers GET: the same status and headers (its
    Content-Length included), no body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, without_body)


def install(app: Any) -> None:
    """HEAD outermost, then compression of text bodies worth it, then the headers."""
    app.add_middleware(GZipMiddleware, minimum_size=500)
    app.add_middleware(HeadAsGet)
