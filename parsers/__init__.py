"""Pure parsers: stored bytes in, one posting schema out. No I/O, no pipeline imports.

Importing this package registers every built-in parser in `REGISTRY`.
"""

from parsers import (  # noqa: F401  (registration side effect)
    ashby,
    bamboohr,
    breezy,
    greenhouse,
    icims,
    jazzhr,
    jobvite,
    jsonld,
    lever,
    oracle,
    personio,
    pinpoint,
    recruitee,
    rippling,
    smartrecruiters,
    successfactors,
    teamtailor,
    workable,
    workday,
)
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
