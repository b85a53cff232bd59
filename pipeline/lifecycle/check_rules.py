"""How a direct check of a posting's own page is judged. Pure: response in, verdict out.

Only positive evidence closes a posting: 404/410, a redirect up to the board
(or to the tenant's error page), a page saying the role is closed, or the
platform's own closed flag. Everything else (401, 403, 429, 5xx, timeouts, login
walls, search pages, a cheerful 200 that is not the posting) is ambiguous and
leaves the posting exactly as it was: wrongly closing a live job is the worst
error this system can make.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, parse_qs, urlsplit

from parsers.signals import closed_phrase, looks_blocked
from parsers.types import PageSignal, ParseOutcome, Posting

NOT_FOUND = "not_found"
EXPIRED = "expired"
LIVE = "live"
AMBIGUOUS = "ambiguous"
CONCLUSIVE = frozenset({NOT_FOUND, EXPIRED})


@dataclass(frozen=True)
class CheckVerdict:
    outcome: str  # not_found | expired | live | ambiguous
    reason: str
    evidence: Mapping[str, Any] = field(default_factory=dict)

    @property
    def conclusive(self) -> bool:
        return self.outcome in CONCLUSIVE


@dataclass(frozen=True)
class CheckedResponse:
    """What the checker saw; decoupled from the fetcher so the rules stay pure."""

    requested_url: str
    final_url: str
    status: int | None
    body: bytes
    redirects: tuple[str, ...] = ()
    error: str | None = None


ClosedFlag = Callable[[CheckedResponse], str | None]


# Second-level suffixes under which a site's own name is the third label.
_SHARED_SUFFIXES = frozenset(
    [
        "co.uk",
        "org.uk",
        "ac.uk",
        "com.au",
        "net.au",
        "co.jp",
        "co.nz",
        "co.in",
        "com.br",
        "com.mx",
        "com.sg",
        "com.vn",
        "net.vn",
        "edu.vn",
        "gov.vn",
        "com.cn",
        "com.tw",
        "com.hk",
        "co.kr",
        "co.za",
        "com.tr",
    ]
)


def site_of(url: str) -> str:
    """The registrable name a URL belongs to (jobs.acme.co.uk -> acme.co.uk): a redirect
    within one site (boards. -> job-boards.greenhouse.io) stays the employer's own answer."""
    host = (_split(url).hostname or "").lower().rstrip(".")
    labels = host.split(".")
    keep = 3 if ".".join(labels[-2:]) in _SHARED_SUFFIXES else 2
    return ".".join(labels[-keep:])


def _split(url: str) -> SplitResult:
    """urlsplit, or an empty URL for one it cannot parse (a broken IPv6 literal from a
    hostile listing): no site, so never "the same site", so never evidence to close."""
    try:
        parts = urlsplit(url)
        parts.hostname  # noqa: B018  (parses the host: raises for a broken one)
    except ValueError:
        return SplitResult("", "", "", "", "")
    return parts


def _redirected_elsewhere(response: CheckedResponse) -> bool:
    return bool(response.redirects) and site_of(response.final_url) != site_of(
        response.requested_url
    )


def _shown_description(
    parsed: ParseOutcome | None, external_id: str, title: str | None
) -> str | None:
    posting = _shown_posting(parsed, external_id, title)
    return posting.description_text if posting else None


def _redirected_up(response: CheckedResponse, external_id: str) -> bool:
    """Sent from the posting to its board (or the tenant's error page): the posting is gone."""
    if not response.redirects:
        return False
    start, end = _split(response.requested_url), _split(response.final_url)
    same_site = site_of(response.final_url) == site_of(response.requested_url)
    if not same_site or external_id in response.final_url:
        return False
    if parse_qs(end.query).get("error") == ["true"]:
        return True
    start_path, end_path = start.path.rstrip("/"), end.path.rstrip("/")
    return bool(end_path) and end_path != start_path and start_path.startswith(end_path + "/")


def judge(
    response: CheckedResponse,
    *,
    external_id: str,
    title: str | None,
    parsed: ParseOutcome | None = None,
    closed_flag: ClosedFlag | None = None,
) -> CheckVerdict:
    evidence: dict[str, Any] = {
        "url": response.requested_url,
        "final_url": response.final_url,
        "status": response.status,
    }
    if response.status is None:
        return CheckVerdict(AMBIGUOUS, "no_response", {**evidence, "error": response.error})
    if _redirected_elsewhere(response):
        # Another site's answer (a migrated careers domain, a login provider) says
        # nothing about this posting, whatever it says.
        return CheckVerdict(
            AMBIGUOUS, "redirected_elsewhere", {**evidence, "redirects": list(response.redirects)}
        )
    if response.status in (404, 410):
        return CheckVerdict(NOT_FOUND, f"http_{response.status}", evidence)
    flag = closed_flag(response) if closed_flag else None
    if flag:
        return CheckVerdict(EXPIRED, "platform_closed_flag", {**evidence, "flag": flag})
    if not 200 <= response.status < 300:
        return CheckVerdict(AMBIGUOUS, f"http_{response.status}", evidence)
    if _redirected_up(response, external_id):
        return CheckVerdict(
            EXPIRED, "redirected_to_board", {**evidence, "redirects": list(response.redirects)}
        )
    if looks_blocked(response.body):
        return CheckVerdict(AMBIGUOUS, "blocked", evidence)
    # A closed page's banner, not the posting's own words ("until the position is filled").
    phrase = closed_phrase(response.body, _shown_description(parsed, external_id, title))
    if phrase:
        return CheckVerdict(EXPIRED, "page_says_closed", {**evidence, "phrase": phrase})
    if parsed is not None and parsed.signal is PageSignal.CLOSED:
        return CheckVerdict(EXPIRED, "page_says_closed", {**evidence, "signal": "parser"})
    if _shows_posting(parsed, external_id, title):
        return CheckVerdict(LIVE, "posting_page_live", evidence)
    return CheckVerdict(AMBIGUOUS, "not_the_posting", evidence)


def _shows_posting(parsed: ParseOutcome | None, external_id: str, title: str | None) -> bool:
    return _shown_posting(parsed, external_id, title) is not None


def _shown_posting(
    parsed: ParseOutcome | None, external_id: str, title: str | None
) -> Posting | None:
    if parsed is None or not parsed.postings:
        return None
    wanted = re.sub(r"\W+", " ", (title or "").lower()).strip()
    for posting in parsed.postings:
        if posting.external_id == external_id:
            return posting
        if wanted and re.sub(r"\W+", " ", posting.title.lower()).strip() == wanted:
            return posting
    return None
