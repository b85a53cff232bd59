"""The pure identity decisions behind refresh_identity (its SQL is tested in test_identity)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

from pipeline.db.rows import DuplicateCandidate, PostingIdentity
from pipeline.lifecycle.identity import employer_of, merged_group, posting_keys

BERLIN = {"offices": [{"city": "Berlin", "country": "DE"}]}


def row(**values: object) -> PostingIdentity:
    base = PostingIdentity(
        id=1,
        source_id="greenhouse",
        board_key="harbor-labs",
        platform="greenhouse",
        company=None,
        title="Senior Engineer (Req 12345)",
        location=BERLIN,
        location_text="Berlin",
        posted_at=datetime(2026, 3, 2, tzinfo=UTC),
        posted_precision="day",
        content_hash=None,
        grouped_content_hash=None,
        description_text=None,
        duplicate_group=None,
    )
    return replace(base, **values)  # type: ignore[arg-type]


def test_an_ats_board_names_its_employer_but_a_job_site_board_does_not() -> None:
    assert employer_of(row(company="Acme Inc.")) == "Acme Inc."
    assert employer_of(row()) == "greenhouse:harbor-labs"
    assert employer_of(row(platform="html_site")) is None


def test_keys_read_a_location_stored_as_json_text_like_a_mapping() -> None:
    as_mapping = posting_keys(row())
    as_text = posting_keys(row(location=json.dumps(BERLIN)))
    assert as_mapping == as_text
    role, opening = as_mapping
    assert role is not None
    assert opening is not None
    assert opening != role


def test_a_posting_without_an_employer_has_no_keys() -> None:
    assert posting_keys(row(platform="html_site")) == (None, None)


def test_merging_keeps_the_smallest_id_of_every_group_and_posting() -> None:
    matches = [DuplicateCandidate(9, 4, None), DuplicateCandidate(3, None, None)]
    group, ids, groups = merged_group(12, 7, matches)
    assert (group, ids, groups) == (3, [12, 9, 3], [7, 4])
    assert merged_group(12, None, [DuplicateCandidate(20, None, None)]) == (12, [12, 20], [])
