"""What changes on every request without the listing changing: strip it before hashing.

Pages carry security nonces, CSRF tokens, server clocks, request ids, relative
dates ("posted 3 days ago", "3 ngày trước") and tracking parameters. None of them
is news about the postings, but all of them change the bytes, so a board hashed
naively looks changed on every poll. Hashes are computed over a *stable* copy:

- `stable_body` for whole pages (the board's body hash: skip parsing when equal),
- `stable_value` for one posting's row (the row hash: fetch details only for rows
  that really changed).

The raw bytes themselves are always stored untouched; only the hash input is
normalized. Rules are per platform (an adapter's `volatile` attribute); the
defaults below cover what the ATS APIs and job sites we read are known to vary.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_REL = "<relative-time>"

# Relative dates: English (Workday's "Posted 30+ Days Ago", Lever-style "2 days ago")
# and Vietnamese ("3 ngày trước", "hôm qua"). Each pattern has literal words one of
# which must occur for it to match: looking for those first (a plain substring test)
# spares running the patterns over every long description.
_RELATIVE_WORDS = ("ago", "Ago", "AGO", "posted", "Posted", "POSTED", "trước", "hôm", "Hôm", "HÔM")
_RELATIVE_TIME = (
    re.compile(
        r"\b(?:posted\s+)?(?:\d+\+?|an?|one)\s+(?:second|minute|hour|day|week|month|year)s?\s+ago\b",
        re.I,
    ),
    re.compile(r"\bposted\s+(?:today|yesterday|just now)\b", re.I),
    re.compile(r"\d+\+?\s*(?:giây|phút|giờ|ngày|tuần|tháng|năm)\s+trước", re.I),
    re.compile(r"\b(?:hôm nay|hôm qua)\b", re.I),
)

# Tracking parameters: campaign tags and click ids, never part of what a link names.
TRACKING_PARAMS = (
    r"utm_[a-z]+",
    r"gh_src",
    r"lever-(?:source|origin)[^=&]*",
    r"gclid",
    r"fbclid",
    r"msclkid",
    r"yclid",
    r"mc_[a-z]+",
    r"_hs[a-z]+",
    r"trk",
    r"trackingId",
    r"refId",
)

_DEFAULT_TEXT = tuple((p, _REL) for p in _RELATIVE_TIME)

_HTML_NOISE = (
    # <script nonce="..."> / <style nonce=...>: a fresh nonce per response.
    (re.compile(r"""\bnonce=(["'])[^"']*\1""", re.I), "nonce=''"),
    # CSRF / XSRF tokens in meta tags and hidden inputs.
    (
        re.compile(
            r"""(\b(?:name|id)=["'][^"']*(?:csrf|xsrf|authenticity_token|request[-_]?id)[^"']*["'][^>]*?\b(?:content|value)=)(["'])[^"']*\2""",
            re.I,
        ),
        r"\1''",
    ),
    (
        re.compile(
            r"""(\b(?:content|value)=)(["'])[^"']*\2([^>]*?\b(?:name|id)=["'][^"']*(?:csrf|xsrf|authenticity_token)[^"']*["'])""",
            re.I,
        ),
        r"\1''\3",
    ),
    # Server clocks: `window.__SERVER_TIME__ = '...'`, data-server-time="...", and the
    # text of an element whose class names a server time.
    (
        re.compile(r"""(server[-_]?(?:time|now|date)\w*["']?\s*[:=]\s*["']?)[^"'<,;}\s]+""", re.I),
        r"\1<clock>",
    ),
    (
        re.compile(r"""(class=["'][^"']*server[-_]?time[^"']*["'][^>]*>)[^<]*""", re.I),
        r"\1<clock>",
    ),
)

DEFAULT_JSON_KEYS = frozenset(
    {
        "server_time",
        "serverTime",
        "generated_at",
        "generatedAt",
        "request_id",
        "requestId",
        "trace_id",
        "traceId",
        "nonce",
        "csrf",
        "csrf_token",
        "csrfToken",
        "posted_ago",
    }
)


@dataclass(frozen=True)
class VolatileRules:
    """What to ignore when deciding whether a body or a row changed."""

    json_keys: frozenset[str] = DEFAULT_JSON_KEYS  # dropped at any depth
    text: tuple[tuple[re.Pattern[str], str], ...] = field(default_factory=lambda: _DEFAULT_TEXT)
    html: tuple[tuple[re.Pattern[str], str], ...] = _HTML_NOISE
    tracking_params: tuple[str, ...] = TRACKING_PARAMS

    def extend(
        self,
        *,
        json_keys: Iterable[str] = (),
        text: Iterable[tuple[str, str]] = (),
        tracking_params: Iterable[str] = (),
    ) -> VolatileRules:
        """These rules plus a platform's own (regex, replacement) pairs and keys."""
        return VolatileRules(
            json_keys=self.json_keys | frozenset(json_keys),
            text=self.text + tuple((re.compile(p, re.I), r) for p, r in text),
            html=self.html,
            tracking_params=self.tracking_params + tuple(tracking_params),
        )

    @property
    def _tracking(self) -> re.Pattern[str]:
        return _tracking_pattern(self.tracking_params)

    def clean_text(self, text: str) -> str:
        if self.text is not _DEFAULT_TEXT or any(w in text for w in _RELATIVE_WORDS):
            for pattern, replacement in self.text:
                text = pattern.sub(replacement, text)
        if "=" in text:
            text = self._tracking.sub(_drop_param, text)
        return text


DEFAULT_RULES = VolatileRules()


def _tracking_pattern(params: tuple[str, ...]) -> re.Pattern[str]:
    cached = _TRACKING_CACHE.get(params)
    if cached is None:
        names = "|".join(params)
        cached = re.compile(rf"([?&]|&amp;)(?:{names})=[^&#\s\"'<>]*", re.I)
        _TRACKING_CACHE[params] = cached
    return cached


_TRACKING_CACHE: dict[tuple[str, ...], re.Pattern[str]] = {}


def _drop_param(match: re.Match[str]) -> str:
    # Keep a "?" so the next parameter still starts a query; "&" separators just go.
    return "?" if match.group(1) == "?" else ""


# ---------------------------------------------------------------- stable copies


def stable_value(rules: VolatileRules, value: Any) -> Any:
    """A JSON-like value without volatile keys, with volatile text normalized."""
    if isinstance(value, dict):
        return {k: stable_value(rules, v) for k, v in value.items() if k not in rules.json_keys}
    if isinstance(value, list | tuple):
        return [stable_value(rules, v) for v in value]
    if isinstance(value, str):
        return rules.clean_text(value)
    return value


def stable_body(rules: VolatileRules, body: bytes, content_type: str | None) -> bytes:
    """The body as it would look without per-request noise (for hashing only)."""
    kind = (content_type or "").lower()
    text = body.decode("utf-8", "replace")
    is_json = "json" in kind or (not kind and body[:1] in (b"{", b"["))
    if is_json and not any(f'"{key}"' in text for key in rules.json_keys):
        # No volatile key in it: the text rules alone tell the same changes apart
        # as parsing, dropping keys and re-encoding would, at a fraction of the cost.
        return rules.clean_text(text).encode()
    if is_json:
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            pass
        else:
            return json.dumps(
                stable_value(rules, data), sort_keys=True, ensure_ascii=False, separators=(",", ":")
            ).encode()
    if "html" in kind or "<html" in text[:2048].lower():
        for pattern, replacement in rules.html:
            text = pattern.sub(replacement, text)
    return rules.clean_text(text).encode()


def body_hash(rules: VolatileRules, pages: Iterable[tuple[bytes, str | None]]) -> str:
    """One hash over every page of a listing, each stripped of volatile fields."""
    digest = hashlib.sha256()
    for body, content_type in pages:
        digest.update(hashlib.sha256(stable_body(rules, body, content_type)).digest())
    return digest.hexdigest()


def row_hash(rules: VolatileRules, payload: Any) -> str:
    """A posting's listing row, stripped of volatile fields (detail fetches key on it)."""
    blob = json.dumps(stable_value(rules, payload), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()
