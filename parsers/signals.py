"""Recognize pages that are not what they claim: bot walls and closed postings.

A block page must never be read as an empty listing (that would look like every
posting vanished) nor as a successful record.
"""

from __future__ import annotations

import re

# Markers seen on real Cloudflare challenge pages ("Just a moment...", "Attention
# Required!", managed challenges, bot-fight mode) and common captcha walls.
_BLOCK_MARKERS = (
    re.compile(rb"<title>\s*Just a moment\.\.\.\s*</title>", re.I),
    re.compile(rb"<title>\s*Attention Required! \| Cloudflare\s*</title>", re.I),
    re.compile(
        rb"cf-browser-verification|/cdn-cgi/challenge-platform/|cf_chl_opt|__cf\$cv\$params", re.I
    ),
    re.compile(rb"class=[\"']g-recaptcha[\"']|hcaptcha\.com/1/api\.js|captcha-delivery\.com", re.I),
    re.compile(rb"<title>\s*Access denied\s*</title>", re.I),
)


def looks_blocked(body: bytes) -> bool:
    """True when the body is a challenge or captcha page (checks the first 64 KB)."""
    head = body[:65536]
    return any(marker.search(head) for marker in _BLOCK_MARKERS)
