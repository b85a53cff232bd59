"""Canned answers a posting's own page can give, for lifecycle tests and demos.

`/scenarios/<name>/<anything>` answers the same way whatever follows the name,
so a posting URL can be pointed at one of them. Each mirrors something real:
an ATS's 404, a redirect to the board, a "no longer accepting" page, a login
wall, a search page that answers 200 for a removed job, a rate limit.
"""

from __future__ import annotations

from sandbox.routing import HTML, JSON, Format, Reply, Request

FORMAT = Format("scenarios")


def _page(title: str, body: str) -> bytes:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body><main>{body}</main></body></html>"
    ).encode()


PAGES: dict[str, Reply] = {
    "gone": Reply(404, _page("Not found", "<h1>Page not found</h1>"), HTML),
    "gone-410": Reply(410, _page("Gone", "<h1>This posting was removed</h1>"), HTML),
    "forbidden": Reply(403, _page("Forbidden", "<h1>Access denied</h1>"), HTML),
    "unauthorized": Reply(401, _page("Sign in", "<h1>Please sign in</h1>"), HTML),
    "rate-limited": Reply(429, b"slow down", "text/plain", headers=(("Retry-After", "1"),)),
    "server-error": Reply(503, b"maintenance", "text/plain"),
    "login-wall": Reply(
        200,
        _page("Sign in", "<form><h1>Sign in to see this job</h1><input name=email></form>"),
        HTML,
    ),
    "soft-404": Reply(
        200,
        _page(
            "Search jobs", "<h1>Search jobs</h1><ul><li><a href='/jobs/1'>Other job</a></li></ul>"
        ),
        HTML,
    ),
    "closed-en": Reply(
        200,
        _page(
            "Data Analyst",
            "<h1>Data Analyst</h1><p>This job is no longer accepting applications.</p>",
        ),
        HTML,
    ),
    "closed-vi": Reply(
        200,
        _page(
            "Kế toán",
            "<h1>Nhân viên kế toán</h1><div class='alert'>Tin tuyển dụng đã hết hạn</div>",
        ),
        HTML,
    ),
    "error-json": Reply(400, b'{"error": "Could not find a job with id \'123\'"}', JSON),
}


@FORMAT.get(r"/scenarios/(?P<name>[a-z0-9-]+)(?:/.*)?")
def scenario(request: Request) -> Reply:
    name = request.match["name"]
    if name == "redirect-to-board":
        # Like Greenhouse: a removed posting sends you to the board with ?error=true.
        return Reply(302, b"", HTML, headers=(("Location", "/scenarios-board/acme?error=true"),))
    if name == "redirect-to-login":
        return Reply(302, b"", HTML, headers=(("Location", "/scenarios-login?next=/jobs/1"),))
    return PAGES.get(name, Reply(404, _page("Unknown scenario", name), HTML))


@FORMAT.get(r"/scenarios-board/(?P<board>[a-z0-9-]+)")
def board_root(request: Request) -> Reply:
    return Reply(
        200, _page("Jobs at Acme", "<h1>Open positions</h1><ul><li>Some other job</li></ul>"), HTML
    )


@FORMAT.get(r"/scenarios-login")
def login(request: Request) -> Reply:
    return PAGES["login-wall"]
