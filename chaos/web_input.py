"""Hostile input at the web app (issue 15 section 6): every query parameter of every
route and the job ids, with SQL, tsquery syntax, HTML/JS, path traversal, and huge or
odd unicode strings. A probe passes when the answer is 200, 404, 410 or 422 and no HTML
body carries the payload unescaped; anything else (a 500, an echo) is a crash.

tests/serving/test_web_injection.py runs the corpus against a test server; `python -m
chaos` (the bad_input part) runs it against a private cluster and counts every probe in
`bad_inputs_tried` / `bad_input_crashes`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from urllib.parse import quote

import httpx

ALLOWED = frozenset({200, 404, 410, 422})

SQL = (
    "'",
    "''",
    "' OR 1=1 --",
    "' OR '1'='1",
    "1' OR 1=1;--",
    "x'); DROP TABLE serving.jobs; --",
    '"; SELECT pg_sleep(5); --',
    "%' UNION SELECT rolpassword FROM pg_authid --",
    "1; DELETE FROM serving.jobs",
    "$$; DROP TABLE serving.jobs; $$",
    "$tag$ x $tag$",
    "/* comment */ 1",
    "1 -- trailing",
    "\\x00",
    "{unknown}",
    "{a,b}",
    "E'\\\\'",
)
TSQUERY = (
    "a & b | !c",
    "a <-> b",
    "a <2> b",
    "(a | b) & !(c",
    "foo:*",
    ":*",
    "!!!",
    "&|!<->():*",
    '"unbalanced',
    "'unbalanced",
    '""',
    "-",
    "- - -",
    "or or",
    "a:A",
)
MARKUP = (
    "<script>window.__pwned=1</script>",
    '"><img src=x onerror="window.__pwned=1">',
    "'><svg onload=window.__pwned=1>",
    "javascript:window.__pwned=1",
    "</title><script>alert(1)</script>",
    "<a href='javascript:alert(1)'>x</a>",
    "{{7*7}}",
    "{% raw %}",
    "&lt;script&gt;",
)
TRAVERSAL = (
    "../../etc/passwd",
    "..%2F..%2Fetc%2Fpasswd",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "....//....//etc/passwd",
    "/etc/passwd",
    "C:\\Windows\\win.ini",
    "1\x00",
    "\x00",
    "1%00",
    "-1",
    "1e308",
    "NaN",
    "0x10",
    "99999999999999999999999",
)
ODD = (
    "x" * 4000,
    "ế" * 1000,
    "\u202eevil",
    "\ufeffbom",
    "😀" * 50,
    "\ud7ff\ue000",
    " \t\r\n ",
    "",
)
INJECTIONS: tuple[str, ...] = (*SQL, *TSQUERY, *MARKUP, *TRAVERSAL, *ODD)

QUERY_ROUTES = ("/api/jobs", "/api/stats", "/", "/stats")
ID_ROUTES = ("/api/jobs/", "/jobs/")
_SPECIAL = set("<>\"'&")


def unescaped_echo(body: str, payload: str) -> bool:
    """Whether an HTML body carries the payload raw where escaping would have changed it
    (Jinja writes < > & " ' as entities). One or two characters prove nothing: a lone
    quote is in every page."""
    return len(payload) >= 3 and bool(_SPECIAL & set(payload)) and payload in body


def probe_requests(params: tuple[str, ...]) -> Iterator[tuple[str, str, object]]:
    """(what, path, query params) for every parameter x payload x route, then the ids."""
    for param in params:
        for evil in INJECTIONS:
            for route in QUERY_ROUTES:
                yield evil, route, {param: evil}
    for evil in filter(None, INJECTIONS):  # an empty id is the list route's slash redirect
        for route in ID_ROUTES:
            yield evil, route + quote(evil, safe=""), None


def probe_outcome(response: httpx.Response, payload: str) -> str:
    """'ok: STATUS', or 'crash: ...' for a disallowed status or an unescaped echo."""
    if response.status_code not in ALLOWED:
        return f"crash: status {response.status_code}"
    if response.headers.get("content-type", "").startswith("text/html") and unescaped_echo(
        response.text, payload
    ):
        return "crash: payload echoed unescaped"
    return f"ok: {response.status_code}"


def probe(client: httpx.Client, path: str, params: object, payload: str) -> tuple[str, float]:
    started = time.monotonic()
    try:
        response = client.get(path, params=params)  # type: ignore[arg-type]
    except httpx.HTTPError as exc:
        return f"crash: {type(exc).__name__}: {exc}", time.monotonic() - started
    return probe_outcome(response, payload), time.monotonic() - started
