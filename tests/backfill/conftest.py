from __future__ import annotations

from dataclasses import replace

import pytest

from parsers.registry import Parser
from parsers.types import ParseOutcome, RawDocument
from pipeline.app import App
from pipeline.phases.discover import discover
from pipeline.phases.parse import parse_source


@pytest.fixture
def parsed_lever(app: App) -> App:
    """lever discovered and parsed with lever@1."""
    assert discover(app, "lever", force=True).status == "succeeded"
    assert parse_source(app, "lever").stats["postings"] > 0
    return app


def bump_lever(app: App) -> None:
    """Register lever@2 (titles upper-cased) on a test-local copy of the registry."""
    current = app.registry.get("lever")

    def shouting(doc: RawDocument) -> ParseOutcome:
        outcome = current.parse(doc)
        return replace(
            outcome, postings=tuple(replace(p, title=p.title.upper()) for p in outcome.postings)
        )

    registry = app.registry.copy()
    registry.add(Parser("lever", "2", shouting))
    app.registry = registry
