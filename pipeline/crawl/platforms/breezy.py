"""Breezy HR: one GET of `https://{company}.breezy.hr/json?verbose=true` is the whole
board with descriptions. A posting's hosted page (`/p/{friendly_id}`) is the direct
check: 404 once the position is unpublished."""

from __future__ import annotations

from pipeline.crawl.platforms.simple import SubdomainPlatform


class Breezy(SubdomainPlatform):
    name = "breezy"
    format_name = "portal JSON (/json?verbose=true)"
    host_template = "{token}.breezy.hr"
    path = "/json?verbose=true"
