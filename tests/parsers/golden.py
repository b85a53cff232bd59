"""Golden cases, web-poet style: `tests/golden/<parser>/<version>/<case>/` holds an
`input.*` (the stored bytes), a `meta.json` (url, kind, status, fetched_at and, for
HTML sites, the site's `listing`/`detail` config) and an `expected.json` (the parse
outcome and every posting by the schema's field names, payload left out).

A case belongs to one parser version: bumping a version means new cases (copy the
folder, then regenerate). Regenerate deliberately and review the diff:

    .venv/bin/python -m tests.parsers.golden            # show which cases differ
    .venv/bin/python -m tests.parsers.golden --write    # rewrite their expected.json
    .venv/bin/python -m tests.parsers.golden --write greenhouse/2/single-job
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from parsers.html_site import CODE_VERSION, HtmlSiteSpec, build_parser
from parsers.registry import REGISTRY, Parser
from parsers.types import DocumentKind, RawDocument

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
SITE_PARSER = "html_site"  # configured HTML sites: one folder for all, by code version


@dataclass(frozen=True)
class Case:
    path: Path

    @property
    def parser(self) -> str:
        return self.path.parent.parent.name

    @property
    def version(self) -> str:
        return self.path.parent.name

    @property
    def id(self) -> str:
        return f"{self.parser}/{self.version}/{self.path.name}"

    @property
    def meta(self) -> dict[str, Any]:
        return json.loads((self.path / "meta.json").read_text(encoding="utf-8"))

    @property
    def input(self) -> Path:
        (found,) = self.path.glob("input.*")
        return found

    @property
    def expected_path(self) -> Path:
        return self.path / "expected.json"

    def document(self) -> RawDocument:
        meta = self.meta
        return RawDocument(
            body=self.input.read_bytes(),
            url=meta["url"],
            kind=DocumentKind(meta.get("kind", "listing")),
            status=meta.get("status", 200),
            fetched_at=datetime.fromisoformat(meta["fetched_at"])
            if meta.get("fetched_at")
            else None,
        )

    def resolve_parser(self) -> Parser:
        if self.parser == SITE_PARSER:
            site = self.meta["site"]
            listing, detail = site["listing"], site.get("detail", {})
            return build_parser(
                HtmlSiteSpec(
                    name=site["name"],
                    item=listing["item"],
                    link=listing["link"],
                    id_pattern=listing["id_pattern"],
                    listing_fields=listing.get("fields", {}),
                    detail_fields=detail.get("fields", {}),
                    next_page=listing.get("next_page"),
                    total=listing.get("total"),
                    use_jsonld=detail.get("jsonld", True),
                    drop_query=listing.get("drop_query", False),
                )
            )
        return REGISTRY.get(f"{self.parser}@{self.version}")

    def actual(self) -> dict[str, Any]:
        outcome = self.resolve_parser().parse(self.document())
        return {
            "outcome": outcome.summary(),
            "postings": [p.to_dict(payload=False) for p in outcome.postings],
        }

    def expected(self) -> dict[str, Any] | None:
        if not self.expected_path.exists():
            return None
        return json.loads(self.expected_path.read_text(encoding="utf-8"))

    def write(self) -> None:
        text = json.dumps(self.actual(), indent=2, ensure_ascii=False, sort_keys=True)
        self.expected_path.write_text(text + "\n", encoding="utf-8")


def cases() -> list[Case]:
    return sorted((Case(p) for p in GOLDEN.glob("*/*/*") if p.is_dir()), key=lambda c: c.id)


def versions_with_cases() -> set[tuple[str, str]]:
    return {(c.parser, c.version) for c in cases()}


def expected_versions() -> set[tuple[str, str]]:
    """Every built-in parser's current version, plus the HTML-site code version."""
    built_in = {(name, REGISTRY.versions(name)[-1]) for name in REGISTRY.names()}
    return built_in | {(SITE_PARSER, CODE_VERSION)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.parsers.golden",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("only", nargs="*", help="case ids (parser/version/case) or prefixes")
    parser.add_argument(
        "--write", action="store_true", help="rewrite expected.json of the differing cases"
    )
    args = parser.parse_args(argv)
    changed = 0
    for case in cases():
        if args.only and not any(case.id.startswith(prefix) for prefix in args.only):
            continue
        if case.expected() == case.actual():
            continue
        changed += 1
        print(("rewrote " if args.write else "differs ") + case.id)
        if args.write:
            case.write()
    print(f"{changed} case(s) {'rewritten' if args.write else 'differ'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
