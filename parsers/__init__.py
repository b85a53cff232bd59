"""Pure parsers: stored bytes in, one posting schema out. No I/O, no pipeline imports.

Importing this package registers every built-in parser in `REGISTRY`.
"""

from parsers import greenhouse, jsonld  # noqa: F401  (registration side effect)
from parsers.registry import REGISTRY, Parser, ParserRegistry
from parsers.types import (
    DocumentKind,
    Issue,
    PageSignal,
    ParseOutcome,
    Posting,
    Quality,
    RawDocument,
    RawOffice,
    Salary,
)

__all__ = [
    "REGISTRY",
    "DocumentKind",
    "Issue",
    "PageSignal",
    "ParseOutcome",
    "Parser",
    "ParserRegistry",
    "Posting",
    "Quality",
    "RawDocument",
    "RawOffice",
    "Salary",
]
