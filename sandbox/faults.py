"""Fault switches: make any sandbox board misbehave the way real boards do.

A fault is set per board (platform + token) through the admin API and applied
around the board's format handler. Tokens starting with "gone-" always answer
404, like a deleted board.

    {"status": 429, "retry_after": "5"}          rate limited, with Retry-After
    {"status": 429, "retry_after_date_s": 2}     the same, Retry-After as an HTTP date this
                                                 many seconds after the answer (the date
                                                 has whole seconds: the wait is 1 to 2 s)
    {"wire": "reset"}                            the real answer's headers and half its body,
                                                 then a TCP reset (RST, no FIN)
    {"wire": "truncate"}                         the real answer's headers (Content-Length of
                                                 the whole body) and half of it, then close
    {"status": 503}                              a server error, no Retry-After
    {"delay_s": 3}                               answer slowly (the real listing)
    {"status": 200, "body": "<html>..."}         any body, e.g. a block page
    {"validators": "none"}                       no ETag / Last-Modified, never 304
    {"validators": "last_modified"}              Last-Modified only (If-Modified-Since)
    {"shuffle": true}                            same jobs in a new order on every request
    {"restamp": true}                            same jobs, new nonces, clocks, "N days ago"
    {"redirect": "http://10.0.0.1/"}             302 to anywhere, e.g. a private address
    {"times": 1, ...}                            apply to the next N requests only
    {"omit": [job_id, ...]}                      leave these jobs out of the board's listings
                                                 (totals match; their own pages stay live)
    {"on": "postings", ...}                      apply only to the board's per-posting URLs
                                                 (pages, detail APIs); "listing": only to the
                                                 rest; "all" (the default): to both
    {"path": "/api/v1/", ...}                    apply only to requests whose path holds
                                                 this text (one of a board's formats)
"""

from __future__ import annotations

import json
import random
import re
import time
import uuid
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, datetime
from email.utils import formatdate, parsedate_to_datetime
from typing import Any

from sandbox.routing import Reply, not_found

VALIDATOR_MODES = ("both", "etag", "last_modified", "none")
SCOPES = ("all", "listing", "postings")
WIRE_MODES = ("reset", "truncate")


@dataclass(frozen=True)
class Fault:
    status: int | None = None  # answer this status instead of the listing
    body: str = ""
    content_type: str = "text/plain; charset=utf-8"
    retry_after: str | None = None  # Retry-After header on the replaced reply
    retry_after_date_s: float | None = None  # ... as an HTTP date, this far ahead
    delay_s: float = 0.0  # wait this long before answering
    validators: str = "both"
    shuffle: bool = False
    restamp: bool = False
    redirect: str | None = None
    times: int | None = None  # None: until cleared
    omit: tuple[int, ...] = ()  # job ids left out of listings (a partial listing, total matching)
    on: str = "all"  # which of the board's routes the fault applies to (see SCOPES)
    wire: str | None = None  # break the connection mid-answer (see WIRE_MODES)
    path: str = ""  # only requests whose path holds this (one format of the board's)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Fault:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown fault settings: {', '.join(sorted(unknown))}")
        fault = cls(**data)  # type: ignore[arg-type]
        if fault.status is not None:
            fault = replace(fault, status=int(fault.status))
        if fault.validators not in VALIDATOR_MODES:
            raise ValueError(f"validators must be one of {', '.join(VALIDATOR_MODES)}")
        if fault.times is not None and int(fault.times) < 1:
            raise ValueError("times must be at least 1")
        if fault.on not in SCOPES:
            raise ValueError(f"on must be one of {', '.join(SCOPES)}")
        if fault.wire is not None and fault.wire not in WIRE_MODES:
            raise ValueError(f"wire must be one of {', '.join(WIRE_MODES)}")
        omit = tuple(int(job_id) for job_id in fault.omit)
        return replace(fault, delay_s=float(fault.delay_s), body=str(fault.body), omit=omit)

    def applies_to(self, *, posting_route: bool, path: str = "") -> bool:
        if self.path and self.path not in path:
            return False
        return self.on == "all" or (self.on == "postings") == posting_route

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def before_handler(token: str | None, fault: Fault | None) -> Reply | None:
    """A reply that replaces the handler's, or None to let the handler answer."""
    if token is not None and token.startswith("gone-"):
        return not_found("Job board not found")
    if fault is None:
        return None
    if fault.redirect is not None:
        return Reply(302, b"", "text/plain", headers=(("Location", fault.redirect),))
    if fault.status is not None:
        return Reply(fault.status, fault.body.encode(), fault.content_type, headers=_retry(fault))
    return None


def _retry(fault: Fault) -> tuple[tuple[str, str], ...]:
    if fault.retry_after_date_s is not None:
        when = time.time() + float(fault.retry_after_date_s)
        return (("Retry-After", formatdate(when, usegmt=True)),)
    return (("Retry-After", fault.retry_after),) if fault.retry_after is not None else ()


def asked_cooldown_s(reply: Reply) -> float | None:
    """How long, from now, the reply's Retry-After asks the client to wait (seconds or
    an HTTP date), for the request log: the judge of cooldowns reads it."""
    value = next((v for k, v in reply.headers if k.lower() == "retry-after"), None)
    if value is None:
        return None
    if value.strip().isdigit():
        return float(value)
    try:
        return parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError, IndexError):
        return None


def after_handler(reply: Reply, fault: Fault | None) -> Reply:
    """The handler's reply, reshuffled or re-stamped when the fault says so."""
    if fault is None or reply.status != 200 or not (fault.shuffle or fault.restamp):
        return reply
    body = reply.body
    if "json" in reply.content_type:
        body = _json_variant(body, fault)
    elif "html" in reply.content_type:
        body = _html_variant(body, fault)
    return replace(reply, body=body)


# ---------------------------------------------------------------- variants of the same data


def _json_variant(body: bytes, fault: Fault) -> bytes:
    data = json.loads(body)
    if not isinstance(data, dict):
        return body
    items = next((v for v in data.values() if isinstance(v, list)), None)
    if items is not None and fault.shuffle:
        random.shuffle(items)
    if fault.restamp:
        # What real APIs add on every request: a clock, a request id, relative dates.
        data["server_time"] = datetime.now(UTC).isoformat()
        data["request_id"] = uuid.uuid4().hex
        for item in items or ():
            if isinstance(item, dict):
                item["posted_ago"] = f"Posted {random.randint(2, 29)} Days Ago"
    return json.dumps(data, ensure_ascii=False).encode()


_CARD = re.compile(rb"<article class='job-card'>.*?</article>", re.S)


def _html_variant(body: bytes, fault: Fault) -> bytes:
    if fault.shuffle:
        cards = _CARD.findall(body)
        shuffled = random.sample(cards, len(cards))
        replacements = iter(shuffled)
        body = _CARD.sub(lambda _: next(replacements), body)
    if fault.restamp:
        nonce = uuid.uuid4().hex
        now = datetime.now(UTC).isoformat()
        stamp = (
            f"<meta name='csrf-token' content='{uuid.uuid4().hex}'>"
            f"<link rel='canonical' href='/jobs?utm_source=feed&amp;trk={nonce[:8]}'>"
            f"<script nonce='{nonce}'>window.__SERVER_TIME__ = '{now}';</script>"
        ).encode()
        body = body.replace(b"</head>", stamp + b"</head>", 1)
        body = body.replace(
            b"</body>", f"<footer><span class='server-time'>{now}</span></footer></body>".encode()
        )
        body = re.sub(
            rb"</time>",
            lambda _: (
                f"</time><span class='ago'>{random.randint(2, 29)} ngày trước</span>".encode()
            ),
            body,
        )
    return body
