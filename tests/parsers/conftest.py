"""Helpers for parser tests: documents from bytes, the real captures, shipped sites."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime
from pathlib import Path

from parsers.registry import REGISTRY, Parser
from parsers.types import DocumentKind, ParseOutcome, RawDocument
from pipeline.app import build_registry
from pipeline.config import load_sources
from pipeline.settings import REPO_ROOT

FETCHED_AT = datetime(2026, 10, 1, 12, 0, tzinfo=UTC)


def doc(
    body: bytes | str,
    url: str = "https://example.com/jobs",
    kind: DocumentKind = DocumentKind.LISTING,
    fetched_at: datetime | None = FETCHED_AT,
    status: int = 200,
) -> RawDocument:
    data = body.encode() if isinstance(body, str) else body
    return RawDocument(body=data, url=url, kind=kind, fetched_at=fetched_at, status=status)


def parse(
    name: str, body: bytes | str, url: str = "https://example.com/jobs", **kw: object
) -> ParseOutcome:
    return REGISTRY.get(name).parse(doc(body, url, **kw))  # type: ignore[arg-type]


def read_real(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def shipped_site_parser(name: str) -> Parser:
    """The parser of an HTML site exactly as the shipped sources.yaml configures it."""
    sources = load_sources(REPO_ROOT / "sources.yaml", env={})
    return build_registry(sources).get(name)
