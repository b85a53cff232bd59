"""Retain last good content: a worse newest parse never replaces what was published;
liveness still refreshes, and removal follows lifecycle status alone."""

from __future__ import annotations

import pytest

from tests.serving.conftest import Seeder

NEXT_DAY = "UPDATE core.postings SET last_seen_at = now() + interval '1 day'"


@pytest.mark.parametrize(
    ("lost", "published"),
    [
        ({"description_text": None}, "description"),
        ({"title": ""}, "title"),
        ({"location_text": None, "location": None}, "location_text"),
    ],
)
def test_a_partial_parse_that_lost_content_keeps_the_last_good_one(
    seed: Seeder, lost: dict, published: str
) -> None:
    posting, _other = seed.postings(2)
    seed.sync()
    good = seed.jobs()[posting]
    seed.parse(posting, "partial", **{"title": "Engineer 0", "company": "Acme Corp", **lost})
    seed.sql(NEXT_DAY)
    report = seed.sync()
    assert (report.staged, report.retained, report.updated) == (1, 1, 0)
    now = seed.jobs()[posting]
    assert now[published] == good[published]
    assert now["company"] == "Acme"  # all of the last good content, never a mix
    assert report.liveness == 2  # but it was seen today, like the other one
    assert seed.sync(full=True).updated == 0  # a full reconcile agrees


def test_a_partial_parse_that_lost_nothing_it_had_is_published(seed: Seeder) -> None:
    posting = seed.posting(remote=None)
    seed.sync()
    seed.parse(posting, "partial", title="Senior Engineer")
    report = seed.sync()
    assert (report.updated, report.retained) == (1, 0)
    assert seed.jobs()[posting]["title"] == "Senior Engineer"


def test_a_rejected_newest_parse_changes_nothing_published(seed: Seeder) -> None:
    posting = seed.posting()
    seed.sync()
    before = seed.jobs()[posting]
    seed.parse(posting, "rejected", title=None, description_text=None)
    seed.sql(NEXT_DAY)
    report = seed.sync()
    assert (report.staged, report.updated, report.liveness) == (0, 0, 1)
    assert seed.jobs()[posting] == before


def test_an_accepted_parse_after_a_partial_one_is_published(seed: Seeder) -> None:
    posting = seed.posting()
    seed.sync()
    seed.parse(posting, "partial", description_text=None)
    seed.sync()
    seed.parse(posting, "accepted", description_text="A new, complete description.")
    report = seed.sync()
    assert (report.updated, report.retained) == (1, 0)
    assert seed.jobs()[posting]["description"] == "A new, complete description."


def test_a_retained_posting_is_still_removed_when_it_closes(seed: Seeder) -> None:
    posting, _other = seed.postings(2)
    seed.sync()
    seed.parse(posting, "partial", title="Engineer 0", description_text=None)
    assert seed.sync().retained == 1
    seed.sql(
        "UPDATE core.postings SET status = 'expired', closed_at = now() WHERE id = %s", (posting,)
    )
    report = seed.sync()
    assert report.removed == 1
    assert posting not in seed.jobs()
    assert seed.serving("SELECT title FROM serving.closed_jobs") == [{"title": "Engineer 0"}]
