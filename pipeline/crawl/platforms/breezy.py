"""Breezy HR: one GET of `https://{company}.breezy.hr/json?verbose=true` is the whole
board with descriptions. A posting's hosted page (`/p/{friendly_id}`) is the direct
check: 404 once the position is unpublished."""

from __future__ import annotations

from pipeline.crawl.platforms.simple import SubdomainPlatform


class Breezy(SubdomainPlatform):
    name = "breezy"
    host_template = "{token}.breezy.hr"
    path = "/json?verbose=true"
