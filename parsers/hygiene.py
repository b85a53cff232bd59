"""Text the database cannot store: screened out of every parse outcome, with an issue.

PostgreSQL refuses NUL (U+0000) in text and JSONB, and a lone surrogate
(U+D800..U+DFFF, which JSON's \\uXXXX escapes can produce) cannot be encoded to
UTF-8 at all. One such posting would fail the whole transaction and lose its batch;
so a posting carrying either anywhere (its fields, its offices, its salary, its
payload) is dropped from the outcome with an issue naming it and the field, and
counts as a dropped row (a listing that dropped a row cannot prove an absence).
Other control characters are stored as given: they are valid text.

Applied to every registered parser by the registry (parsers.registry.add).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from parsers.types import Issue, ParseOutcome, Posting, Quality

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_field(value: Any, path: str = "") -> str | None:
    """The path of the first text inside `value` the database cannot store, or None."""
    if isinstance(value, str):
        return path or "value" if _UNSTORABLE.search(value) else None
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = unstorable_field(str(key), f"{path}.{key}") or unstorable_field(
                item, f"{path}.{key}"
            )
            if found:
                return found
        return None
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = unstorable_field(item, f"{path}[{i}]")
            if found:
                return found
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            found = unstorable_field(getattr(value, f.name), f"{path}.{f.name}".lstrip("."))
            if found:
                return found
    return None


def screen(outcome: ParseOutcome) -> ParseOutcome:
    """The outcome without postings the database cannot store (each one an issue)."""
    kept: list[Posting] = []
    issues: list[Issue] = []
    for posting in outcome.postings:
        where = unstorable_field(posting)
        if where is None:
            kept.append(posting)
            continue
        shown = _UNSTORABLE.sub("?", posting.external_id)[:80]
        issues.append(
            Issue(
                "unstorable_text",
                f"posting {shown!r} dropped: NUL or a lone surrogate in {where}",
                path=where,
            )
        )
    if not issues:
        return outcome
    quality = Quality.REJECTED if not kept else outcome.quality
    return dataclasses.replace(
        outcome,
        quality=quality,
        postings=tuple(kept),
        issues=(*outcome.issues, *issues),
        dropped=outcome.dropped + len(issues),
    )
