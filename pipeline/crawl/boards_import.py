"""`jobharbor boards import FILE`: find ATS boards in a list of URLs (for example a
Common Crawl URL index), probe each, and register the valid ones as boards
(`origin = 'import'`, which the catalog sync never disables).

Recognition is pure (`recognize`). Probing asks the formats the board's token leads to
(`Platform.board_formats`, best first; docs/parsers.md, "Formats per platform"), one
request each, and stops at the first that answers with a listing its parser reads: a
board is asked one format at a time, and only after the better one failed. Requests go
through the project's fetcher, so each host's shared budget and the SSRF guard apply
(unless settings allow private networks); registering is one idempotent insert per
board, with the format it answered in (crawl.boards.format). The report names, for
every board it accepts, that format, why it was chosen, and whether the board was
registered.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol
from urllib.parse import parse_qs, unquote, urlsplit

from parsers.registry import ParserRegistry
from parsers.types import DocumentKind, Quality, RawDocument
from pipeline.config import AtsSource, SourceConfig, parser_ref
from pipeline.crawl.board_urls import SUBDOMAIN as _NEXT_SUBDOMAIN
from pipeline.crawl.board_urls import recognize_board
from pipeline.crawl.catalog import CatalogContext, sync_catalog
from pipeline.crawl.http.fetcher import Fetcher, FetchRequest, FetchResult
from pipeline.crawl.platforms import host_of, platform_of
from pipeline.crawl.platforms.base import GONE_STATUSES, NOT_THIS_FORMAT, ONLY_FORMAT
from pipeline.crawl.validation import validate_body
from pipeline.db.rows import BoardRow
from pipeline.normalize.company import company_from_token
from pipeline.workday_sites import WorkdaySite, workday_site

_URL = re.compile(r"(?:https?://)?(?:[a-z0-9-]+\.)+[a-z]{2,}(?:/[^\s\"'<>,|]*)?", re.I)
_TOKEN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_LOCALE = re.compile(r"^[a-z]{2}(?:-[A-Za-z]{2})?$")
_NOT_BOARDS = frozenset(
    {"www", "api", "app", "help", "support", "status", "jobs", "careers", "embed", "v0", "v1"}
)


@dataclass(frozen=True)
class BoardRef:
    """A board as a URL names it: the platform, its token, and its region."""

    platform: str
    token: str
    region: str | None = None  # "eu" for EU-hosted instances (a different API host)

    @property
    def key(self) -> tuple[str, str, str | None]:
        # Hosts are case-insensitive; paths (SmartRecruiters, Workday sites) are not.
        token = self.token.lower() if self.platform in _SUBDOMAIN else self.token
        return self.platform, token, self.region


_SUBDOMAIN = frozenset({"recruitee", "bamboohr", "personio", "teamtailor"}) | _NEXT_SUBDOMAIN


def _first_segment(path: str) -> str | None:
    parts = [unquote(p) for p in path.split("/") if p]
    return parts[0] if parts else None


def _segments(path: str) -> list[str]:
    return [unquote(p) for p in path.split("/") if p]


def recognize(url: str) -> BoardRef | None:
    """The ATS board a URL belongs to, or None. Job and apply URLs name their board."""
    if "://" not in url:
        url = "https://" + url
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    path = parts.path
    segments = _segments(path)
    found = _recognize(host, segments, parts.query)
    if found is None or not _TOKEN.match(found.token.removeprefix("@").split("/")[0]):
        return None
    if found.token.removeprefix("@").lower() in _NOT_BOARDS:
        return None
    return found


def _recognize(host: str, segments: list[str], query: str) -> BoardRef | None:
    first = segments[0] if segments else None
    if host in (
        "boards.greenhouse.io",
        "job-boards.greenhouse.io",
        "boards.eu.greenhouse.io",
        "job-boards.eu.greenhouse.io",
    ):
        if first == "embed":
            token = (parse_qs(query).get("for") or [""])[0]
            return BoardRef("greenhouse", token) if token else None
        # EU boards are served by the same global API host (verified in the captures).
        return BoardRef("greenhouse", first) if first else None
    if host in ("boards-api.greenhouse.io", "boards-api.eu.greenhouse.io"):
        if len(segments) >= 3 and segments[:2] == ["v1", "boards"]:
            return BoardRef("greenhouse", segments[2])
        return None
    if host in ("jobs.lever.co", "jobs.eu.lever.co"):
        return BoardRef("lever", first, "eu" if ".eu." in host else None) if first else None
    if host in ("api.lever.co", "api.eu.lever.co"):
        if len(segments) >= 3 and segments[:2] == ["v0", "postings"]:
            return BoardRef("lever", segments[2], "eu" if ".eu." in host else None)
        return None
    if host == "jobs.ashbyhq.com":
        return BoardRef("ashby", first) if first else None
    if host == "api.ashbyhq.com":
        if len(segments) >= 3 and segments[:2] == ["posting-api", "job-board"]:
            return BoardRef("ashby", segments[2])
        return None
    if host in ("jobs.smartrecruiters.com", "careers.smartrecruiters.com"):
        return BoardRef("smartrecruiters", first) if first else None
    if host == "api.smartrecruiters.com":
        if len(segments) >= 3 and segments[:2] == ["v1", "companies"]:
            return BoardRef("smartrecruiters", segments[2])
        return None
    if host == "apply.workable.com":
        if segments[:4] == ["api", "v1", "widget", "accounts"] and len(segments) >= 5:
            return BoardRef("workable", segments[4])
        return BoardRef("workable", first) if first and first not in ("j", "api") else None
    match = re.match(r"^([a-z0-9_-]+)\.(wd\d+)\.myworkdayjobs\.com$", host)
    if match:
        return _workday(match.group(1), match.group(2), segments)
    match = re.match(r"^(wd\d+)\.myworkdaysite\.com$", host)
    if match:
        return _shared_workday(match.group(1), segments)
    for suffix, platform in (
        (".recruitee.com", "recruitee"),
        (".bamboohr.com", "bamboohr"),
        (".jobs.personio.de", "personio"),
        (".jobs.personio.com", "personio"),
        (".teamtailor.com", "teamtailor"),
        (".workable.com", "workable"),
    ):
        if host.endswith(suffix) and host.count(".") == suffix.count("."):
            return BoardRef(platform, host.removesuffix(suffix))
    found = recognize_board(host, segments, query)  # subdomain, feed and composite boards
    return BoardRef(*found) if found else None


def _workday(tenant: str, dc: str, segments: list[str]) -> BoardRef | None:
    """tenant.wdN.myworkdayjobs.com/[locale/]Site[/job/...] -> tenant.wdN/Site."""
    if segments and segments[0] == "wday":  # the CXS API: /wday/cxs/{tenant}/{site}/...
        site = segments[3] if len(segments) >= 4 and segments[1] == "cxs" else None
    else:
        rest = segments[1:] if segments and _LOCALE.match(segments[0]) else segments
        site = rest[0] if rest else None
    return _workday_ref(WorkdaySite(tenant, dc, site)) if site else None


def _shared_workday(dc: str, segments: list[str]) -> BoardRef | None:
    """wdN.myworkdaysite.com/[locale/]recruiting/{tenant}/{site}[/job/...], or its CXS
    API /wday/cxs/{tenant}/{site}/... -> wdN.myworkdaysite.com/recruiting/{tenant}/{site}."""
    if segments[:2] == ["wday", "cxs"]:
        named = segments[2:4]
    else:
        rest = segments[1:] if segments and _LOCALE.match(segments[0]) else segments
        named = rest[1:3] if rest[:1] == ["recruiting"] else []
    if len(named) != 2:
        return None
    return _workday_ref(WorkdaySite(named[0], dc, named[1], shared_host=True))


def _workday_ref(site: WorkdaySite) -> BoardRef | None:
    """The board, when its parts spell a valid token (no stray characters)."""
    token = site.token
    return BoardRef("workday", token) if workday_site(token) == site else None


def urls_in(lines: Iterable[str]) -> Iterator[str]:
    """Every URL-looking string in the lines (plain lists, CSV, CDX/JSON index lines)."""
    for line in lines:
        yield from (m.group(0).rstrip(".);]}") for m in _URL.finditer(line))


# ---------------------------------------------------------------- the import


@dataclass(frozen=True)
class FormatOption:
    """One listing format a board's token leads to: what it is and where it is asked."""

    name: str  # crawl.boards.format (ONLY_FORMAT: the platform has one)
    label: str
    why: str
    url: str


@dataclass(frozen=True)
class Candidate:
    board: BoardRef
    url: str  # the first URL that named it
    source: str
    listing_url: str
    lane: str
    host: str
    # Which of the platform's formats the listing URL asks for (the source decides it:
    # Workable's widget API, or its v3 API under an `api_base` ending in /api/v3).
    format: str = ""
    # The board's name as its listing states it (ParseOutcome.board_company), once validated.
    listed_company: str | None = None
    # The formats the board leads to, best first, and the one being asked (`at`).
    options: tuple[FormatOption, ...] = ()
    at: int = 0
    # Why each better format was passed over: (format label, the reason).
    passed: tuple[tuple[str, str], ...] = ()

    @property
    def format_name(self) -> str | None:
        """What crawl.boards.format records: None for a platform with one format."""
        if not self.options or self.options[self.at].name == ONLY_FORMAT:
            return None
        return self.options[self.at].name

    def why(self) -> str:
        """Why the board is read in this format."""
        if self.passed:
            return "; ".join(
                f"{label} did not answer with a listing ({why})" for label, why in self.passed
            )
        if len(self.options) > 1:
            return self.options[self.at].why or "the best format this board leads to"
        return "the platform's listing"

    def next_option(self, reason: str) -> Candidate | None:
        """The same board at its next format, after this one failed for `reason`."""
        if self.at + 1 >= len(self.options):
            return None
        option = self.options[self.at + 1]
        return replace(
            self,
            listing_url=option.url,
            host=host_of(option.url),
            format=option.label,
            at=self.at + 1,
            passed=(*self.passed, (self.format, reason)),
        )

    def company(self) -> dict[str, str | None]:
        """What the board is registered with: the listing's name, else the token's."""
        if self.listed_company:
            return {"company": self.listed_company, "company_source": "board"}
        derived = company_from_token(self.board.platform, self.board.token)
        return {"company": derived, "company_source": "derived" if derived else None}


@dataclass(frozen=True)
class AcceptedBoard:
    """A board that answered with a readable listing, and the format it was read in."""

    source: str
    token: str
    format: str
    listing_url: str
    registered: bool  # False in a dry run, or when the row already existed
    why: str = ""  # why this format: the best one, or the better ones that failed

    def line(self) -> str:
        state = "registered" if self.registered else "valid, not registered"
        said = f"{state}: {self.source} {self.token}: {self.format} ({self.listing_url})"
        return f"{said}: {self.why}" if self.why else said


@dataclass
class ImportReport:
    urls: int = 0
    recognized: int = 0
    duplicates: int = 0
    valid: int = 0
    registered: int = 0
    invalid: list[tuple[str, str]] = field(default_factory=list)  # (url, reason)
    unrecognized: int = 0
    accepted: list[AcceptedBoard] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.urls} URLs: {self.recognized} boards recognized, {self.duplicates} duplicates, "
            f"{self.valid} valid ({self.registered} registered), {len(self.invalid)} invalid, "
            f"{self.unrecognized} not a known ATS board"
        )


class ImportContext(CatalogContext, Protocol):
    """What an import needs besides the catalog's (pipeline.app.App has it): the parsers
    that judge a board's listing and a paced fetcher."""

    @property
    def registry(self) -> ParserRegistry: ...

    def fetcher(self) -> Fetcher: ...


def _source_for(app: ImportContext, board: BoardRef, only: str | None) -> tuple[str | None, str]:
    """The configured source a board belongs to (matching platform and region)."""
    names = [only] if only else list(app.sources.sources)
    matches: list[tuple[str, SourceConfig]] = []
    for name in names:
        source = app.sources.get(name)
        if not isinstance(source, AtsSource) or source.platform != board.platform:
            continue
        is_eu = bool(source.api_base and ".eu." in source.api_base)
        if board.platform == "lever" and is_eu != (board.region == "eu"):
            continue
        matches.append((name, source))
    if not matches:
        region = " (EU instance: api_base https://api.eu.lever.co)" if board.region == "eu" else ""
        scope = f"source {only!r}" if only else "sources.yaml"
        return None, f"no {board.platform}{region} source in {scope}"
    matches.sort(key=lambda item: not item[1].enabled)  # enabled sources first
    return matches[0][0], ""


def _existing(app: ImportContext) -> set[tuple[str, str]]:
    with app.db.connect() as conn:
        return {
            (r["source_id"], r["board_key"])
            for r in conn.execute("SELECT source_id, board_key FROM crawl.boards")
        }


def _candidate(app: ImportContext, board: BoardRef, url: str, source_name: str) -> Candidate | None:
    """The board at the best format its token leads to, or None when it leads to none."""
    source = app.sources.get(source_name)
    platform = platform_of(source)
    assert isinstance(source, AtsSource)
    base = platform.api_base_for(source)
    options = tuple(
        FormatOption(fmt.name, platform.format_label(fmt.name, listing), fmt.why, listing)
        for fmt, listing in platform.board_formats(base, board.token)
    )
    if not options:
        return None
    first = options[0]
    return Candidate(
        board,
        url,
        source_name,
        first.url,
        platform.lane(source, first.url),
        host_of(first.url),
        first.label,
        options=options,
    )


@dataclass(frozen=True)
class ProbeVerdict:
    """What one probe found: a readable listing (`reason` None), or why not, and whether
    the answer says the board has no listing in this format at all (`unavailable`: then
    its next format is asked; a failure that may pass is reported instead)."""

    reason: str | None
    listed_company: str | None = None
    unavailable: bool = False


def _verdict(app: ImportContext, candidate: Candidate, result: FetchResult) -> ProbeVerdict:
    if result.status is None:
        return ProbeVerdict(result.error or "no response")
    source = app.sources.get(candidate.source)
    verdict = validate_body(result, source.validation, frozenset({candidate.host}))
    if not verdict.ok:
        gone = result.status in GONE_STATUSES and verdict.outcome != "blocked"
        return ProbeVerdict(verdict.reason or "invalid response", unavailable=gone)
    parser = app.registry.get(parser_ref(candidate.source, source))
    doc = RawDocument(
        result.body, result.final_url, DocumentKind.LISTING, result.content_type, result.status
    )
    outcome = parser.parse(doc)
    if outcome.quality is Quality.REJECTED:
        first = outcome.issues[0] if outcome.issues else None
        other = any(issue.code in NOT_THIS_FORMAT for issue in outcome.issues)
        said = first.message if first else "rejected"
        return ProbeVerdict(f"{parser.ref} rejected the listing: {said}", unavailable=other)
    return ProbeVerdict(None, outcome.board_company)


_INSERT = """
INSERT INTO crawl.boards (source_id, board_key, url, lane, host, enabled, origin, company,
                          company_source, format)
VALUES (%(source)s, %(key)s, %(url)s, %(lane)s, %(host)s, true, 'import', %(company)s,
        %(company_source)s, %(format)s)
ON CONFLICT (source_id, board_key) DO NOTHING
"""


def import_boards(
    app: ImportContext, path: Path, *, source: str | None = None, dry_run: bool = False
) -> ImportReport:
    """Recognize, deduplicate, validate with one request each, and register."""
    if source is not None:
        app.sources.get(source)  # a clear error for an unknown name
    sync_catalog(app)  # sources must exist before boards can point at them
    report = ImportReport()
    known = _existing(app)
    seen: set[tuple[str, str, str | None]] = set()
    candidates: list[Candidate] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for url in urls_in(handle):
            report.urls += 1
            board = recognize(url)
            if board is None:
                report.unrecognized += 1
                continue
            report.recognized += 1
            if board.key in seen:
                report.duplicates += 1
                continue
            seen.add(board.key)
            source_name, reason = _source_for(app, board, source)
            if source_name is None:
                report.invalid.append((url, reason))
                continue
            if (source_name, board.token) in known:
                report.duplicates += 1
                continue
            candidate = _candidate(app, board, url, source_name)
            if candidate is None:
                report.invalid.append((url, f"{board.token}: leads to no listing format"))
                continue
            candidates.append(candidate)
    valid = _validate(app, candidates, report)
    report.valid = len(valid)
    inserted = set() if dry_run else _register(app, valid)
    report.registered = len(inserted)
    report.accepted = [
        AcceptedBoard(
            c.source,
            c.board.token,
            c.format,
            c.listing_url,
            (c.source, c.board.token) in inserted,
            c.why(),
        )
        for c in valid
    ]
    return report


def _register(app: ImportContext, valid: list[Candidate]) -> set[tuple[str, str]]:
    """Insert the boards; the (source, token) pairs that were new rows."""
    inserted: set[tuple[str, str]] = set()
    if not valid:
        return inserted
    with app.db.connect() as conn, conn.transaction(), conn.cursor() as cur:
        for candidate in valid:
            cur.execute(
                _INSERT,
                {
                    "source": candidate.source,
                    "key": candidate.board.token,
                    "url": candidate.listing_url,
                    "lane": candidate.lane,
                    "host": candidate.host,
                    "format": candidate.format_name,
                    **candidate.company(),
                },
            )
            if cur.rowcount:
                inserted.add((candidate.source, candidate.board.token))
    return inserted


def _probe(app: ImportContext, candidate: Candidate) -> FetchRequest:
    """The request that asks the candidate's current format for its listing."""
    platform = platform_of(app.sources.get(candidate.source))
    # Not stored yet (no id): the board as its first request sees it, no validators.
    unsaved = BoardRow(0, candidate.source, candidate.board.token, candidate.listing_url)
    request = platform.first_request(unsaved, {})
    return FetchRequest(request.url, request.headers, candidate, request.method, request.body)


def _reasons(candidate: Candidate, last: str) -> str:
    """Why no format of the board was accepted: each format's failure, best first."""
    if not candidate.passed:
        return last
    said = [f"{label}: {why}" for label, why in (*candidate.passed, (candidate.format, last))]
    return "; ".join(said)


def _validate(
    app: ImportContext, candidates: list[Candidate], report: ImportReport
) -> list[Candidate]:
    valid: list[Candidate] = []
    requests = [_probe(app, candidate) for candidate in candidates]
    with app.fetcher() as fetcher:
        # The fetcher spends each host's shared budget; what it cannot place now comes
        # back deferred (never sent) and is tried again when the budget allows.
        while requests:
            deferred: list[FetchRequest] = []
            wait_s = 0.0
            for result in fetcher.fetch_all(requests):
                if result.deferred:
                    deferred.append(result.request)
                    wait_s = max(wait_s, min(result.deferred_s or 1.0, 60.0))
                    continue
                candidate = result.request.tag
                found = _verdict(app, candidate, result)
                if found.reason is None:
                    valid.append(replace(candidate, listed_company=found.listed_company))
                    continue
                following = candidate.next_option(found.reason) if found.unavailable else None
                if following is not None:
                    deferred.append(_probe(app, following))  # the next format, next round
                else:
                    report.invalid.append((candidate.url, _reasons(candidate, found.reason)))
            if deferred:
                time.sleep(wait_s)
            requests = deferred
    return sorted(valid, key=lambda c: (c.source, c.board.token))
