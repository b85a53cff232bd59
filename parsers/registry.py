"""Parsers registered by name@version; a duplicate registration fails loudly.

A parser is a pure function from stored bytes to a ParseOutcome. Bumping a
parser's version makes `jobharbor parse --reparse` produce new current results
from the same raw objects while keeping the old ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from parsers.types import ParseOutcome, RawDocument

ParseFunction = Callable[[RawDocument], ParseOutcome]


class DuplicateParserError(RuntimeError):
    pass


class UnknownParserError(LookupError):
    pass


@dataclass(frozen=True)
class Parser:
    name: str
    version: str
    parse: ParseFunction

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"


def _version_key(version: str) -> tuple[tuple[int, str], ...]:
    return tuple(
        (int(p), "") if p.isdigit() else (-1, p) for p in version.replace("+", ".").split(".")
    )


class ParserRegistry:
    def __init__(self) -> None:
        self._parsers: dict[tuple[str, str], Parser] = {}

    def add(self, parser: Parser) -> Parser:
        parser = screened(parser)
        key = (parser.name, parser.version)
        if key in self._parsers:
            raise DuplicateParserError(f"parser {parser.ref} is registered twice")
        self._parsers[key] = parser
        return parser

    def register(self, name: str, version: str) -> Callable[[ParseFunction], ParseFunction]:
        def decorator(func: ParseFunction) -> ParseFunction:
            self.add(Parser(name=name, version=version, parse=func))
            return func

        return decorator

    def names(self) -> list[str]:
        return sorted({name for name, _ in self._parsers})

    def versions(self, name: str) -> list[str]:
        return sorted((v for n, v in self._parsers if n == name), key=_version_key)

    def get(self, ref: str) -> Parser:
        """`name` (latest version) or `name@version`."""
        name, _, version = ref.partition("@")
        if version:
            try:
                return self._parsers[(name, version)]
            except KeyError:
                known = ", ".join(self.versions(name)) or "none"
                raise UnknownParserError(
                    f"no parser {ref} (versions of {name!r}: {known})"
                ) from None
        versions = self.versions(name)
        if not versions:
            raise UnknownParserError(f"no parser named {name!r} (known: {', '.join(self.names())})")
        return self._parsers[(name, versions[-1])]

    def copy(self) -> ParserRegistry:
        clone = ParserRegistry()
        clone._parsers = dict(self._parsers)
        return clone

    def __iter__(self) -> Iterator[Parser]:
        return iter(self._parsers.values())

    def __contains__(self, name: str) -> bool:
        return any(n == name for n, _ in self._parsers)


# The registry of parsers that ship with code. Configured HTML sites add theirs to a
# copy of it at load time (see parsers.html_site), so config never mutates this one.
REGISTRY = ParserRegistry()
register = REGISTRY.register


def screened(parser: Parser) -> Parser:
    """The parser with its outcomes screened for text the database cannot store
    (parsers.hygiene): applied once, whatever registers it."""
    if getattr(parser.parse, "screened", False):
        return parser
    from parsers.hygiene import screen

    inner = parser.parse

    def parse(doc: RawDocument) -> ParseOutcome:
        return screen(inner(doc))

    parse.screened = True  # type: ignore[attr-defined]
    return replace(parser, parse=parse)
