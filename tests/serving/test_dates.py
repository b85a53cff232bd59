"""Dates that do not mislead (docs/data-model.md, "Dates"), on the real serving database
as the web role: undated postings of unknown age ("listed since") sort after every dated
or estimated posting however recently they were first seen, stay out of every
posted_within_days window unless include_undated, and say what their date is."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import psycopg
import pytest

from serving_sync import search
from serving_sync.search import Filters, SearchRequest
from tests.serving.conftest import NOW, insert_jobs, job_row
from tests.serving.test_search_sql import all_pages

# First seen just now, on their board's first read: the flood "newest first" once had.
UNKNOWN_AGE = [
    job_row(300 + i, posted_at=None, posted_precision="unknown", age_known=False,
            first_seen_at=NOW - timedelta(minutes=i))
    for i in range(9)
]  # fmt: skip


@pytest.fixture
def with_unknown_age(seeded: list[dict[str, Any]], serving) -> list[dict[str, Any]]:
    with psycopg.connect(serving.url) as owner:
        insert_jobs(owner, UNKNOWN_AGE)
        owner.execute("ANALYZE serving.jobs")
    return seeded


def _dated_newest(rows: list[dict[str, Any]]) -> list[int]:
    ordered = sorted(rows, key=lambda r: (r["posted_at"] or r["first_seen_at"], r["id"]))
    return [r["id"] for r in reversed(ordered)]


UNKNOWN_IDS = sorted((r["id"] for r in UNKNOWN_AGE), reverse=True)


@pytest.mark.parametrize("limit", [5, 7, 50])
def test_newest_first_puts_every_posting_of_unknown_age_after_the_dated_and_estimated(
    with_unknown_age, web_conn, limit
) -> None:
    """Paging crosses from the dated postings into the unknown-age tail and through it."""
    ids = all_pages(web_conn, Filters(), limit=limit)
    assert ids == _dated_newest(with_unknown_age) + UNKNOWN_IDS


def test_a_text_query_newest_first_also_lists_unknown_age_last(with_unknown_age, web_conn) -> None:
    """The walk of the list index (a word plus parse filters) and the GIN scan agree."""
    for filters in (Filters(q="job"), Filters(q="job", source=("greenhouse", "lever"))):
        ids = all_pages(web_conn, filters, limit=4)
        tail = [i for i in ids if i in UNKNOWN_IDS]
        assert tail
        assert ids[-len(tail) :] == tail == sorted(tail, reverse=True)


def test_posted_within_leaves_out_unknown_age_unless_include_undated(
    with_unknown_age, web_conn
) -> None:
    window = Filters(posted_within_days=10)
    listed = set(all_pages(web_conn, window))
    assert listed
    assert not listed & set(UNKNOWN_IDS)
    wider = Filters(posted_within_days=10, include_undated=True)
    widened = all_pages(web_conn, wider)
    assert set(widened) == listed | set(UNKNOWN_IDS)
    assert widened[-len(UNKNOWN_IDS) :] == UNKNOWN_IDS
    assert search.counts(web_conn, window, ("source",), budget_ms=5000).total == len(listed)
    assert search.counts(web_conn, wider, ("source",), budget_ms=5000).total == len(widened)
    assert ("include_undated", "true") in wider.as_params()


def test_include_undated_alone_filters_nothing(with_unknown_age, web_conn) -> None:
    everything = all_pages(web_conn, Filters(), limit=50)
    assert all_pages(web_conn, Filters(include_undated=True), limit=50) == everything


def test_items_say_listed_since_with_the_first_seen_date(with_unknown_age, web_conn) -> None:
    page = search.search(web_conn, SearchRequest(Filters(source=("greenhouse",)), limit=50))
    kinds = {item["id"]: (item["date_kind"], item["date"]) for item in page.items}
    for row in UNKNOWN_AGE:
        if row["source"] == "greenhouse":
            assert kinds[row["id"]] == ("listed_since", row["first_seen_at"])
    dated = {r["id"]: r for r in with_unknown_age}
    for job_id, (kind, date) in kinds.items():
        if job_id in dated:
            row = dated[job_id]
            assert kind == ("posted" if row["posted_at"] else "first_seen")
            assert date == (row["posted_at"] or row["first_seen_at"])
