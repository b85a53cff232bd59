"""Board URLs of the platforms whose board is a subdomain, a feed URL's parameter or a
composite token (used by `jobharbor boards import` after its own host table): pure,
(host, path segments, query) in, (platform, token) out or None.

Tokens are what sources.yaml writes for the board: a subdomain (Pinpoint, Breezy),
a board slug (Rippling), or a composite where one name is not enough (see each
platform's adapter in pipeline/crawl/platforms/)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs

# Platforms whose board is the host's first label: its case never matters.
SUBDOMAIN = frozenset({"pinpoint", "breezy", "jazzhr", "icims"})

_SUFFIXES = (
    (".pinpointhq.com", "pinpoint"),
    (".breezy.hr", "breezy"),
    (".applytojob.com", "jazzhr"),
    (".icims.com", "icims"),  # careers-acme.icims.com: the portal is the first label
)
_NOT_BOARDS = frozenset(
    {"www", "api", "app", "help", "support", "status", "developers", "developer", "community"}
)


def recognize_board(host: str, segments: list[str], query: str) -> tuple[str, str] | None:
    if segments[:1] == ["career"] and _SF_HOST.match(host):
        company = (parse_qs(query).get("company") or [""])[0]
        return ("successfactors", f"{host}/{company}") if company else None
    oracle = _oracle(host, segments, query)
    if oracle is not None:
        return oracle
    if host == "app.jazz.co" and segments[:3] == ["feeds", "export", "jobs"]:
        return ("jazzhr", segments[3].lower()) if len(segments) >= 4 else None
    if host in ("app.jobvite.com", "jobs.jobvite.com", "www.jobvite.com", "hire.jobvite.com"):
        if [s.lower() for s in segments[:2]] == ["companyjobs", "xml.aspx"]:
            eid = (parse_qs(query).get("c") or [""])[0]
            return ("jobvite", eid) if eid else None
        # A career-site URL names the slug, not the companyEId the feed needs: the board
        # it names is read from the career site (`@slug`, pipeline/crawl/platforms/jobvite.py).
        if host == "jobs.jobvite.com" and segments and segments[0].lower() not in _NOT_BOARDS:
            return "jobvite", "@" + segments[0]
        return None
    if segments == ["googlefeed.xml"] and not _SF_HOST.match(host):
        # A Career Site Builder site's RSS feed: the site is the board (SuccessFactors).
        return "successfactors", host
    if host == "ats.rippling.com":
        return _rippling(segments)
    if host == "api.rippling.com":  # the older v1 board API names the same slug
        if segments[:4] == ["platform", "api", "ats", "v1"] and len(segments) >= 6:
            return ("rippling", segments[5]) if segments[4] == "board" else None
        return None
    for suffix, platform in _SUFFIXES:
        if host.endswith(suffix) and host.count(".") == suffix.count("."):
            label = host.removesuffix(suffix)
            return None if label in _NOT_BOARDS else (platform, label)
    return None


def _rippling(segments: list[str]) -> tuple[str, str] | None:
    """ats.rippling.com/{board}[/jobs[/{id}]] and /api/v2/board/{board}/jobs."""
    if segments[:3] == ["api", "v2", "board"] and len(segments) >= 4:
        return "rippling", segments[3]
    first = segments[0] if segments else None
    if not first or first in _NOT_BOARDS or first in ("api", "en-US", "en"):
        return None
    return "rippling", first


_SF_HOST = re.compile(r"^career\d*\.(?:successfactors|sapsf)\.(?:com|eu|cn)$")
_ORACLE_SITE = re.compile(r"siteNumber=([A-Za-z0-9_-]+)")


def _oracle(host: str, segments: list[str], query: str) -> tuple[str, str] | None:
    """Candidate Experience pages (`/hcmUI/CandidateExperience/{lang}/sites/{site}/...`,
    on an Oracle pod or the employer's own domain) and the REST search name
    `host/site`."""
    if segments[:2] == ["hcmUI", "CandidateExperience"] and len(segments) >= 5:
        return ("oracle", f"{host}/{segments[4]}") if segments[3] == "sites" else None
    if segments[:1] == ["hcmRestApi"] and "recruitingCEJobRequisitions" in segments:
        finder = " ".join(parse_qs(query).get("finder", []))
        site = _ORACLE_SITE.search(finder)
        return ("oracle", f"{host}/{site.group(1)}") if site else None
    return None
