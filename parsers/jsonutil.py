"""Decoding JSON bodies into a clear rejection instead of an exception."""

from __future__ import annotations

import json
from typing import Any

from parsers.signals import looks_blocked
from parsers.types import Issue, PageSignal, ParseOutcome, RawDocument


def load_json(doc: RawDocument) -> tuple[Any, ParseOutcome | None]:
    """(data, None) on success; (None, rejection) for empty, blocked or broken bodies."""
    if not doc.body.strip():
        return None, ParseOutcome.rejected(Issue("empty_body", "the response body is empty"))
    if looks_blocked(doc.body):
        return None, ParseOutcome.rejected(
            Issue("blocked", "the response is a bot-challenge page, not data"),
            signal=PageSignal.BLOCKED,
        )
    try:
        return json.loads(doc.body), None
    except UnicodeDecodeError as exc:
        return None, ParseOutcome.rejected(Issue("bad_encoding", f"not UTF-8 JSON: {exc}"))
    except json.JSONDecodeError as exc:
        return None, ParseOutcome.rejected(
            Issue(
                "invalid_json", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            )
        )
    except RecursionError:
        return None, ParseOutcome.rejected(
            Issue("invalid_json", "JSON nested too deeply to be a job listing")
        )
