"""Hostile input at the web app (docs/reliability.md §6): every query parameter of every
route and the job ids, with SQL, tsquery syntax, HTML/JS, path traversal, and huge or
odd unicode strings. A probe passes when the answer is 200, 404, 410 or 422 and no HTML
body carries the payload unescaped; anything else (a 500, an echo) is a crash.

tests/web/test_injection.py runs the corpus against a test server; `python -m
chaos` (the bad_input part) runs it against a private cluster and counts every probe in
`bad_inputs_tried` / `bad_input_crashes`.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx

from chaos.bad_input import Tried
from pipeline.db.connect import Database

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
# Characters that can open markup or leave an attribute. A raw & alone cannot (and an
# entity-looking payload such as "&lt;script&gt;" also appears, rightly, wherever a real
# "<script>" in the data was escaped), so it does not make a payload count.
_SPECIAL = set("<>\"'")


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


# ---------------------------------------------------------------- the chaos run


def _hostile_rows(conn: Any) -> None:
    """A few published postings whose every text field is a payload (they must render)."""
    for i, payload in enumerate(MARKUP):
        conn.execute(
            """INSERT INTO serving.jobs (id, source, external_id, status, title, company,
                   location_text, countries, regions, cities, location_unresolved, work_mode,
                   posted_precision, first_seen_at, url, description)
               VALUES (%s, 'chaos', %s, 'active', %s, %s, %s, '{}', '{}', '{}', true, 'unknown',
                   'unknown', now(), 'https://jobs.example.test/x', %s)""",
            (1 + i, f"x{i}", payload, payload, payload, payload),
        )


def _start_web(reader_url: str) -> tuple[Any, threading.Thread, str]:
    import socket

    import uvicorn

    from web.app import create_app
    from web.settings import WebSettings

    settings = WebSettings(web_rate_limit_per_minute=0, web_counts_cache_s=0)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(reader_url, settings), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    return server, thread, f"http://127.0.0.1:{port}"


def probe_web(report: Any, serving_url: str, params: tuple[str, ...] | None = None) -> None:
    """Every probe against the real app, as the web role of this serving database
    (`params`: only these query parameters; default every one)."""
    import psycopg

    from serving_sync import roles, search

    with psycopg.connect(serving_url, autocommit=True) as owner:
        _hostile_rows(owner)
    password = secrets.token_urlsafe(16)
    roles.provision_web_role(Database(serving_url), password)
    server, thread, base = _start_web(roles.reader_url(serving_url, password))
    params = params or (*search.filter_names(), "sort", "cursor", "limit")
    try:
        # Followed, as a browser follows the search page's redirect to its short address
        # (a loop raises TooManyRedirects, which the probe counts as a crash).
        with httpx.Client(base_url=base, timeout=30, follow_redirects=True) as client:
            for payload, path, query in probe_requests(params):
                outcome, elapsed = probe(client, path, query, payload)
                name = f"{path} {sorted(query) if query else 'id'}: {payload[:40]!r}"
                report.tried.append(Tried("web", name, outcome, round(elapsed, 2)))
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def run_web_inputs(report: Any) -> None:
    """The probes against a private, throwaway cluster with a migrated serving schema."""
    import shutil
    import tempfile
    from pathlib import Path

    from pipeline.db.embedded import ensure_cluster, stop_cluster
    from serving_sync import schema as serving_schema

    work = Path(tempfile.mkdtemp(prefix="jobharbor-web-chaos-"))
    cluster = ensure_cluster(
        work / "pg", databases=("chaos_serving",), durable=False, password_auth=False
    )
    try:
        serving_schema.upgrade(Database(cluster.url("chaos_serving")))
        probe_web(report, cluster.url("chaos_serving"))
    finally:
        stop_cluster(work / "pg")
        shutil.rmtree(work, ignore_errors=True)
