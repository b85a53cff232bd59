"""Is a fetched body a real response? Checked before anything is stored as data.

A block or challenge page is `blocked`: never a successful record, and never
read as an empty listing (which would look like every posting vanished). The
rules come from the source's `validation` block in sources.yaml.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from parsel import Selector

from parsers.signals import looks_blocked
from pipeline.config import Validation
from pipeline.crawl.http.fetcher import FetchResult
from pipeline.crawl.platforms import host_of


@dataclass(frozen=True)
class Verdict:
    ok: bool
    outcome: str | None = None  # "blocked" or "invalid" when not ok
    reason: str | None = None


ACCEPTED = Verdict(ok=True)


def is_block_page(body: bytes, rules: Validation) -> bool:
    """A bot challenge, captcha or the site's own configured block page."""
    return looks_blocked(body) or any(m.search(body[:65536]) for m in _markers(rules.block_markers))


@lru_cache(maxsize=256)
def _markers(patterns: tuple[str, ...]) -> tuple[re.Pattern[bytes], ...]:
    return tuple(re.compile(p.encode(), re.I) for p in patterns)


def validate_body(result: FetchResult, rules: Validation, own_hosts: frozenset[str]) -> Verdict:
    if is_block_page(result.body, rules):
        return Verdict(False, "blocked", "bot-challenge, captcha or block page")
    if result.status not in rules.expect_status:
        return Verdict(False, "invalid", f"HTTP {result.status} is not an expected status")
    allowed = frozenset(rules.allowed_hosts) or own_hosts
    if allowed and host_of(result.final_url) not in allowed:
        return Verdict(False, "invalid", f"ended on a foreign host: {result.final_url}")
    path = urlsplit(result.final_url).path or "/"
    if rules.allowed_paths and not any(path.startswith(p) for p in rules.allowed_paths):
        return Verdict(False, "invalid", f"ended outside the allowed paths: {result.final_url}")
    content_type = (result.content_type or "").lower()
    if (
        rules.content_types
        and content_type
        and not any(t in content_type for t in rules.content_types)
    ):
        return Verdict(False, "invalid", f"unexpected content type {content_type!r}")
    if len(result.body) < rules.min_bytes:
        return Verdict(
            False, "invalid", f"body has {len(result.body)} bytes, fewer than {rules.min_bytes}"
        )
    if rules.required_json_keys:
        reason = _missing_json_keys(result.body, rules.required_json_keys)
        if reason:
            return Verdict(False, "invalid", reason)
    if rules.required_selectors:
        page = Selector(text=result.body.decode("utf-8", "replace"))
        missing = [css for css in rules.required_selectors if not page.css(css)]
        if missing:
            return Verdict(False, "invalid", f"required selectors not found: {', '.join(missing)}")
    return ACCEPTED


def _missing_json_keys(body: bytes, keys: tuple[str, ...]) -> str | None:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return "body is not JSON"
    if not isinstance(data, dict):
        return "JSON body is not an object" if keys else None
    missing = [key for key in keys if key not in data]
    return f"required JSON keys missing: {', '.join(missing)}" if missing else None
