"""Recognize pages that are not what they claim: bot walls and closed postings.

A block page must never be read as an empty listing (that would look like every
posting vanished) nor as a successful record.
"""

from __future__ import annotations

import html
import re

from parsers.types import PageSignal

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


# Cheap substring tests first: a page without any of these cannot match a marker,
# and scanning 64 KB with case-insensitive alternations for every page is slow.
_BLOCK_HINTS = (
    b"just a moment",
    b"attention required",
    b"cf-browser-verification",
    b"/cdn-cgi/",
    b"cf_chl_opt",
    b"__cf$cv$params",
    b"recaptcha",
    b"hcaptcha.com",
    b"captcha-delivery.com",
    b"access denied",
)


# The hints holding "captcha" need not be looked for one by one where it is absent:
# one scan of the head instead of three, on every page every parser reads.
_CAPTCHA_HINTS = tuple(hint for hint in _BLOCK_HINTS if b"captcha" in hint)
_OTHER_HINTS = tuple(hint for hint in _BLOCK_HINTS if b"captcha" not in hint)


# The hints of the `<title>` markers. Each such marker is `<title>`, blanks, then its
# hint: one search for that shape (in the lowercased page, so without re.I) stands for
# three scans of 64 KB for the hints, on every page every parser reads. A body without
# a "<" (a JSON API's answer) holds no title: it is scanned for the script and captcha
# markers' hints only (DataDome's JSON wall names captcha-delivery.com).
_TITLE_HINTS = (b"just a moment", b"attention required", b"access denied")
_UNMARKED_HINTS = tuple(hint for hint in _OTHER_HINTS if hint not in _TITLE_HINTS)
_TITLED_HINT = re.compile(rb"<title>\s*(?:" + b"|".join(map(re.escape, _TITLE_HINTS)) + rb")")


def looks_blocked(body: bytes) -> bool:
    """True when the body is a challenge or captcha page (checks the first 64 KB)."""
    head = body[:65536]
    lowered = head.lower()
    found = lowered.__contains__  # each hint tested by C calls, without a generator
    if not (
        any(map(found, _UNMARKED_HINTS))
        or (b"captcha" in lowered and any(map(found, _CAPTCHA_HINTS)))
        or (b"<" in head and _TITLED_HINT.search(lowered))
    ):
        return False
    return any(marker.search(head) for marker in _BLOCK_MARKERS)


# A hosted job page that says its posting is gone. Phrases are specific on purpose:
# wrongly closing a live job is the worst error, so a vague "closed" never counts.
_APOS = r"(?:'|’|&#39;|&#x27;|&apos;)"
# Each phrase speaks of *this* posting, as a closed page's banner does. Descriptions
# say "until the position is filled" or "no longer accepting applications from
# agencies": bare forms like those never count, and the posting's own description is
# taken out of the page before matching (see closed_phrase).
_THIS = r"(?:this|the) (?:job|position|posting|role|vacancy|opening|listing)"
_CLOSED_PHRASES = re.compile(
    r"(?:job|page) you (?:are|were|re) looking for is no longer (?:open|available)|"
    rf"{_THIS} (?:is|has been) no longer (?:open|available|active|accepting applications)|"
    rf"{_THIS} has (?:been filled|been closed|expired|been removed)|"
    rf"no longer accepting applications for {_THIS}|"
    rf"{_THIS} is (?:closed|filled|expired)(?: and| or|\.|,|!|$)|"
    r"tin tuyển dụng (?:này )?đã (?:hết hạn|đóng|ngừng nhận hồ sơ)|"
    r"việc làm (?:này )?đã hết hạn|"
    r"đã hết hạn nộp hồ sơ|"
    r"tin tuyển dụng (?:này )?không còn (?:tồn tại|hiệu lực)|"
    r"vị trí (?:này )?đã được tuyển|"
    r"diese stelle ist (?:nicht mehr verfügbar|bereits besetzt)|stellenanzeige ist abgelaufen|"
    r"cette offre (?:n" + _APOS + r"est plus disponible|a expiré)|le poste a été pourvu|"
    r"esta oferta ya no está disponible|la vacante ya ha sido cubierta",
    re.I,
)
_NOT_FOUND_PHRASES = re.compile(
    r"<title>[^<]*(?:page not found|not found|404|has found a better job|không tìm thấy)[^<]*</title>|"
    r"page you"
    + _APOS
    + r"?re looking for (?:doesn"
    + _APOS
    + r"?t|does not|could not be found|can"
    + _APOS
    + r"?t be found)|"
    r"couldn" + _APOS + r"?t find anything here|"
    r"trang (?:bạn tìm kiếm )?không tồn tại|việc làm không tồn tại",
    re.I,
)
_CLOSED_HINTS = (
    "no longer", "filled", "closed", "expired", "removed", "đã", "ngừng", "không còn",
    "nicht mehr", "besetzt", "abgelaufen", "plus disponible", "expiré", "pourvu", "ya no", "cubierta",
)  # fmt: skip
# Case-blind matching of the phrases above costs about 30 ns a character (no cased
# first letter lets the engine skip ahead), and a page runs 100 KB. The text they are
# searched in is already lowercased, and their own letters are all lowercase: there a
# case-sensitive twin finds the same matches, unless the text holds a letter that
# case-blind matching equates with another lowercase one (dotless i with i, long s
# with s; re._casefix lists them, and no other phrase letter has one).
_CASE_TRAPS = ("\u0131", "\u017f")
_CASE_SENSITIVE = {
    pattern: re.compile(pattern.pattern, pattern.flags & ~re.I)
    for pattern in (_CLOSED_PHRASES, _NOT_FOUND_PHRASES)
}


def search_lowered(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """`pattern.search(text)` for a case-blind `pattern` of lowercase phrases over a
    lowercased `text`, by its case-sensitive twin where that finds the same."""
    if any(trap in text for trap in _CASE_TRAPS):
        return pattern.search(text)
    return _CASE_SENSITIVE[pattern].search(text)


# Script and style blocks carry UI strings of every state ("no longer accepting
# applications" sits in the i18n bundle of live pages too): only visible text counts.
# The block's body is read as runs of anything but "<" and single "<"s that do not
# close it, each run taken whole (possessive): the same first closing tag a lazy `.*?`
# finds, without trying the closing tag at every character of a 10 KB script.
_INVISIBLE = re.compile(
    r"<(script|style|template|noscript)\b[^<]*+(?:<(?!/\1\s*>)[^<]*+)*+</\1\s*>", re.I
)


_PAGE_CHARS = 400_000  # what the page checks read of a body
_TAG = re.compile(r"<[^>]+>")


def visible_text(body: bytes, limit: int = _PAGE_CHARS) -> str:
    """Lowercased page text without scripts, styles and tags (cheap, regex-based)."""
    return _visible(body[:limit].decode("utf-8", "replace"))


def _visible(page: str) -> str:
    return html.unescape(_TAG.sub(" ", _INVISIBLE.sub(" ", page))).lower()


def _without(text: str, description: str | None) -> str:
    """The page text with the posting's own description taken out: what a description
    says ("until the position is filled") is never the page's verdict on the posting."""
    if not description:
        return text
    for line in description.lower().splitlines():
        line = " ".join(line.split())
        if len(line) >= 12:
            text = text.replace(line, " ")
    return text


def closed_phrase(body: bytes, description: str | None = None) -> str | None:
    """The phrase by which a page says its posting is closed, or None. `description`
    is the posting's own text, when the page shows one: it is not searched."""
    return _closed_phrase(body[:_PAGE_CHARS].decode("utf-8", "replace"), description)


def _closed_phrase(page: str, description: str | None) -> str | None:
    text = _visible(page)
    if not any(k in text for k in _CLOSED_HINTS):
        return None
    match = search_lowered(_CLOSED_PHRASES, _without(" ".join(text.split()), description))
    return match.group(0) if match else None


_NOT_FOUND_HINTS = (
    "not found",
    "404",
    "better job",
    "không tìm thấy",
    "looking for",
    "anything here",
    "không tồn tại",
)
# A cheap "cannot be" before the lowercased page is built (lowering and scanning
# 400 KB of non-ASCII text costs more than half a millisecond): a hint can only be in
# str.lower() of the page if its longest ASCII run is in bytes.lower() of the body,
# since ASCII letters lowercase alike in both and keep their order. The two other
# characters whose lowercase holds an ASCII letter (İ -> i + U+0307, the Kelvin
# sign -> k) send the page to the full check.
_LOWERS_TO_ASCII = ("\u0130", "\u212a")


def _hint_probe(hint: str) -> tuple[bytes, re.Pattern[bytes] | None]:
    """(the hint's longest ASCII run, a pattern of all its runs in order or None).

    A hint of ASCII only is in the lowercased page exactly when it is in the lowercased
    bytes. One with other letters ("không tìm thấy") needs more than its longest run
    ("ng t", in every English "including the"): every ASCII run in order, each letter
    between them one character, whose UTF-8 is 2 to 4 bytes above 0x7F (a character
    lowercasing to a non-ASCII letter is itself non-ASCII, and only U+0130 lowercases
    to two characters)."""
    runs = re.findall(r"[\x00-\x7f]+|[^\x00-\x7f]+", hint)
    core = max((r for r in runs if r.isascii()), key=len).encode()
    if hint.isascii():
        return core, None
    parts = (
        re.escape(r.encode()) if r.isascii() else b"[\x80-\xff]{%d,%d}" % (2 * len(r), 4 * len(r))
        for r in runs
    )
    return core, re.compile(b"".join(parts))


_NOT_FOUND_PROBES = tuple(dict.fromkeys(_hint_probe(hint) for hint in _NOT_FOUND_HINTS))
_JSON_NOT_FOUND = re.compile(r"could not find|not found|does not exist|no such", re.I)


def page_signal(
    body: bytes,
    url: str = "",
    status: int | None = None,
    description: str | None = None,
    *,
    unblocked: bool = False,
) -> PageSignal:
    """What an HTML page says about its posting: blocked, closed, not found, or normal.

    Greenhouse sends a closed posting's page to the board with `?error=true`; other
    sites say it in words (English and Vietnamese, outside the posting's own
    `description`); a 404/410 is not found. `unblocked`: the caller has just found
    `looks_blocked(body)` false, so the scan is not run twice on one page.
    """
    if not unblocked and looks_blocked(body):
        return PageSignal.BLOCKED
    if re.search(r"[?&]error=true\b", url):
        return PageSignal.CLOSED
    page = body[:_PAGE_CHARS].decode("utf-8", "replace")  # decoded once for both checks
    if _closed_phrase(page, description):
        return PageSignal.CLOSED
    if status in (404, 410):
        return PageSignal.NOT_FOUND
    if not _may_say_not_found(body[:_PAGE_CHARS], page):
        return PageSignal.NORMAL
    text = page.lower()
    if any(k in text for k in _NOT_FOUND_HINTS) and search_lowered(_NOT_FOUND_PHRASES, text):
        return PageSignal.NOT_FOUND
    return PageSignal.NORMAL


def _may_say_not_found(raw: bytes, page: str) -> bool:
    """False only when the lowercased page cannot hold any not-found hint. `page` is
    `raw` decoded: the two special characters are looked for there, one code unit
    each, where the bytes would need a multi-byte search of the whole body."""
    if any(special in page for special in _LOWERS_TO_ASCII):
        return True
    lowered = raw.lower()
    return any(
        core in lowered and (runs is None or runs.search(lowered) is not None)
        for core, runs in _NOT_FOUND_PROBES
    )


def json_error_signal(data: object) -> tuple[PageSignal, str] | None:
    """An API's error object ({"error": "Could not find a job ..."}, Lever's
    {"ok": false, "error": "Document not found"}) -> (signal, message), else None."""
    if not isinstance(data, dict):
        return None
    if "error" not in data and data.get("ok") is not False:
        return None
    error = data.get("error") or data.get("message") or "the API answered ok: false"
    message = str(error.get("message") or error) if isinstance(error, dict) else str(error)
    signal = PageSignal.NOT_FOUND if _JSON_NOT_FOUND.search(message) else PageSignal.NORMAL
    return signal, message
