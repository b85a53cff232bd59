"""Which date a published posting shows, and what that date is (docs/data-model.md,
"Dates"). Pure: the sort key the SQL keeps (serving.jobs.sort_at, migration 0017)
follows the same three cases."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum


class DateKind(StrEnum):
    POSTED = "posted"  # the source's own posted date, at its precision
    FIRST_SEEN = "first_seen"  # undated, new on a board read before: age within a poll
    LISTED_SINCE = "listed_since"  # undated, found on its board's first read: age unknown


def date_kind(posted_at: datetime | None, age_known: bool) -> DateKind:
    """A stated date wins; else the first-seen time, when it estimates the age."""
    if posted_at is not None:
        return DateKind.POSTED
    return DateKind.FIRST_SEEN if age_known else DateKind.LISTED_SINCE
