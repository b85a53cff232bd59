"""`jobharbor parse-file`: run one parser over a saved response, for debugging.

Postings go to stdout as JSON lines (one object per posting, the schema's field
names); the outcome's quality, signal and issues go to stderr. Exit codes: 0 when
the input parses (accepted or partial), 3 when the parser rejects it, 2 when the
command cannot run (unknown parser, unreadable file).
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

import parsers
from parsers.registry import Parser, ParserRegistry, UnknownParserError
from parsers.types import DocumentKind, Issue, ParseOutcome, Quality, RawDocument
from pipeline.app import build_registry
from pipeline.config import load_sources
from pipeline.crawl.platforms import PLATFORMS
from pipeline.errors import ConfigError
from pipeline.settings import load_settings

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_REJECTED = 3
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class ParsedFile:
    parser: Parser
    kind: DocumentKind
    outcome: ParseOutcome


def read_body(path: Path) -> tuple[bytes | None, Issue | None]:
    """The file's bytes, gunzipped when they are gzip (whatever the file's name)."""
    data = path.read_bytes()
    if not data.startswith(GZIP_MAGIC):
        return data, None
    try:
        return gzip.decompress(data), None
    except (OSError, EOFError, zlib.error) as exc:
        return None, Issue("bad_gzip", f"the file looks gzipped but does not decompress: {exc}")


def registry_for(sources_file: Path | None) -> tuple[ParserRegistry, str | None]:
    """Built-in parsers plus the HTML sites configured in the sources file; when the
    file cannot be used, the built-in parsers alone and a note saying why."""

    path = sources_file or load_settings().sources_file
    try:
        return build_registry(load_sources(path, env={})), None
    except ConfigError as exc:
        return (
            parsers.REGISTRY,
            f"note: {path} not usable ({exc.problems[0]}); built-in parsers only",
        )


def parse_document(
    parser: Parser, body: bytes, url: str, kind: str, fetched_at: datetime | None
) -> ParsedFile:
    """`kind` listing / detail, or auto: a listing first, a detail page if that is rejected."""

    def run(as_kind: DocumentKind) -> ParseOutcome:
        doc = RawDocument(body=body, url=url, kind=as_kind, fetched_at=fetched_at)
        try:
            return parser.parse(doc)
        except Exception as exc:  # a parser bug is reported, like the phases record it
            return ParseOutcome.rejected(Issue("parser_error", f"{type(exc).__name__}: {exc}"))

    if kind != "auto":
        chosen = DocumentKind(kind)
        return ParsedFile(parser, chosen, run(chosen))
    listing = run(DocumentKind.LISTING)
    if listing.quality is not Quality.REJECTED:
        return ParsedFile(parser, DocumentKind.LISTING, listing)
    detail = run(DocumentKind.DETAIL)
    if detail.quality is not Quality.REJECTED or detail.signal is not listing.signal:
        return ParsedFile(parser, DocumentKind.DETAIL, detail)
    return ParsedFile(parser, DocumentKind.LISTING, listing)


def board_url(platform: str, token: str) -> str:
    """The listing address a board token stands for (as the crawler would fetch it);
    ValueError when the platform has no board URLs or the token is malformed."""

    adapter = PLATFORMS.get(platform)
    if adapter is None or platform == "html_site":
        raise ValueError(f"{platform} has no board tokens: pass --url")
    try:
        return adapter.listing_url(adapter.default_api_base, token)  # type: ignore[arg-type]
    except (ValueError, NotImplementedError) as exc:
        raise ValueError(str(exc)) from None


def needs_fetch_url(outcome: ParseOutcome) -> bool:
    """Rejected because postings had no URL: the parser builds them from the address
    the response was fetched from (BambooHR, Personio, Workday), which it lacked."""
    return outcome.quality is Quality.REJECTED and any(
        i.code == "missing_url" for i in outcome.issues
    )


def report(parsed: ParsedFile, err: TextIO) -> None:
    summary = parsed.outcome.summary()
    print(
        f"{parsed.parser.ref} ({parsed.kind.value}): {summary['quality']}, "
        f"{summary['postings']} posting(s), total {summary['total']}, signal {summary['signal']}"
        + (f", next page {summary['next_page_url']}" if summary["next_page_url"] else ""),
        file=err,
    )
    for issue in parsed.outcome.issues:
        where = f" at {issue.path}" if issue.path else ""
        print(f"  {issue.code}{where}: {issue.message}", file=err)


def run(
    parser_ref: str,
    path: Path,
    *,
    url: str | None = None,
    board: str | None = None,
    kind: str = "auto",
    fetched_at: datetime | None = None,
    sources_file: Path | None = None,
    payload: bool = True,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    registry, note = registry_for(sources_file)
    try:
        parser = registry.get(parser_ref)
    except UnknownParserError as exc:
        print(f"error: {exc}", file=err)
        return EXIT_USAGE
    if note and "@" not in parser_ref and parser_ref not in parsers.REGISTRY:
        print(note, file=err)
    try:
        body, problem = read_body(path)
        saved_at = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    except OSError as exc:
        print(f"error: cannot read {path}: {exc.strerror or exc}", file=err)
        return EXIT_USAGE
    if problem is not None or body is None:
        print(f"{parser.ref}: rejected: {problem.message if problem else 'unreadable'}", file=err)
        return EXIT_REJECTED
    if board and not url:
        try:
            url = board_url(parser.name, board)
        except ValueError as exc:
            print(f"error: --board {board!r}: {exc}", file=err)
            return EXIT_USAGE
    when = fetched_at or saved_at  # relative dates ("Posted 3 Days Ago") count from here
    parsed = parse_document(parser, body, url or path.resolve().as_uri(), kind, when)
    try:
        for posting in parsed.outcome.postings:
            out.write(json.dumps(posting.to_dict(payload=payload), ensure_ascii=False, default=str))
            out.write("\n")
        out.flush()
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the interpreter's final flush
    report(parsed, err)
    if not url and needs_fetch_url(parsed.outcome):
        print(
            f"  {parser.name} builds posting URLs from the address the response was fetched "
            "from: pass --url URL (the listing's address) or --board TOKEN",
            file=err,
        )
    if not fetched_at and parsed.outcome.postings:
        print(f"  relative dates count from the file's time, {when.isoformat()}", file=err)
    return EXIT_REJECTED if parsed.outcome.quality is Quality.REJECTED else EXIT_OK
