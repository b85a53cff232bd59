"""Pinpoint: one GET of `https://{company}.pinpointhq.com/postings.json` is the whole
board, with descriptions. A posting's own page (`/en/postings/{uuid}`) is the direct
check: 404 once the posting is withdrawn."""

from __future__ import annotations

from pipeline.crawl.platforms.simple import SubdomainPlatform


class Pinpoint(SubdomainPlatform):
    name = "pinpoint"
    format_name = "public postings feed (postings.json)"
    host_template = "{token}.pinpointhq.com"
    path = "/postings.json"
