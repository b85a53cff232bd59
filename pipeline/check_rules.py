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
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from parsers.signals import looks_blocked
from parsers.text import html_to_text
from parsers.types import PageSignal, ParseOutcome

NOT_FOUND = "not_found"
EXPIRED = "expired"
LIVE = "live"
AMBIGUOUS = "ambiguous"
CONCLUSIVE = frozenset({NOT_FOUND, EXPIRED})

# Phrases employers' pages use for a closed role, by language. Matched on the
# page's visible text after case and diacritic folding.
CLOSED_PHRASES: Mapping[str, tuple[str, ...]] = {
    "en": (
        "no longer accepting applications",
        "this job is no longer available",
        "this job posting is no longer available",
        "this position is no longer available",
        "this position has been filled",
        "this role has been filled",
        "the job you are looking for is no longer available",
        "this job has expired",
        "this job posting has expired",
        "this posting has been closed",
        "job is no longer open",
        "this job is closed",
    ),
    "vi": (
        "tin tuyển dụng đã hết hạn",
        "việc làm này đã hết hạn",
        "công việc này đã hết hạn",
        "đã ngừng nhận hồ sơ",
        "hết hạn nộp hồ sơ",
        "vị trí này đã được tuyển",
        "tin tuyển dụng không còn tồn tại",
    ),
    "de": (
        "diese stelle ist nicht mehr verfügbar",
        "die stelle wurde bereits besetzt",
        "stellenanzeige ist abgelaufen",
    ),
    "fr": ("cette offre n'est plus disponible", "cette offre a expiré", "le poste a été pourvu"),
    "es": ("esta oferta ya no está disponible", "la vacante ya ha sido cubierta"),
}


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.replace("đ", "d").replace("Đ", "D"))
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).lower().split())


_FOLDED_PHRASES = tuple(
    (lang, phrase, fold(phrase)) for lang, phrases in CLOSED_PHRASES.items() for phrase in phrases
)


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


def closed_phrase(body: bytes) -> tuple[str, str] | None:
    """(language, phrase) of the first closed-role phrase in the page's visible text."""
    text = html_to_text(body[:400_000].decode("utf-8", "replace")) or ""
    folded = fold(text)
    for lang, phrase, folded_phrase in _FOLDED_PHRASES:
        if folded_phrase in folded:
            return lang, phrase
    return None


def _redirected_up(response: CheckedResponse, external_id: str) -> bool:
    """Sent from the posting to its board (or the tenant's error page): the posting is gone."""
    if not response.redirects:
        return False
    start, end = urlsplit(response.requested_url), urlsplit(response.final_url)
    if start.netloc.lower() != end.netloc.lower() or external_id in response.final_url:
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
    if parsed is not None and parsed.signal is PageSignal.CLOSED:
        return CheckVerdict(EXPIRED, "page_says_closed", {**evidence, "signal": "parser"})
    phrase = closed_phrase(response.body)
    if phrase:
        return CheckVerdict(
            EXPIRED, "page_says_closed", {**evidence, "language": phrase[0], "phrase": phrase[1]}
        )
    if _shows_posting(parsed, external_id, title):
        return CheckVerdict(LIVE, "posting_page_live", evidence)
    return CheckVerdict(AMBIGUOUS, "not_the_posting", evidence)


def _shows_posting(parsed: ParseOutcome | None, external_id: str, title: str | None) -> bool:
    if parsed is None or not parsed.postings:
        return False
    wanted = re.sub(r"\W+", " ", (title or "").lower()).strip()
    for posting in parsed.postings:
        if posting.external_id == external_id:
            return True
        if wanted and re.sub(r"\W+", " ", posting.title.lower()).strip() == wanted:
            return True
    return False
