"""Company pages' addresses: a company's slug is its name folded and split into words as
the typeahead keys are (serving.suggestion_keys), joined by hyphens: "Quiet Systems,
Inc." -> quiet-systems-inc. serving.web_company finds the published name back."""

from __future__ import annotations

from typing import Any

import psycopg

from serving_sync.text import fold
from serving_sync.typeahead import SEPARATORS

MAX_SLUG_CHARS = 200
COMPANY_SQL = "SELECT * FROM serving.web_company(%s)"


def slug(company: str) -> str:
    return "-".join(SEPARATORS.sub(" ", fold(company)).split())


def company_named(conn: psycopg.Connection[Any], wanted: str) -> str | None:
    """The published company whose slug is `wanted` (the one with most postings if
    several names fold the same), or None."""
    if not 0 < len(wanted) <= MAX_SLUG_CHARS or wanted != wanted.lower():
        return None
    rows = conn.execute(COMPANY_SQL, (wanted,)).fetchall()
    found = [row["company"] for row in rows if slug(row["company"]) == wanted]
    return found[0] if found else None
