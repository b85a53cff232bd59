"""Workday's listing rows are built in one step (parsers.workday._listing_posting),
reading the WORKDAY mapping's fields by their keys: a change to those fields must be
made there too."""

from __future__ import annotations

from parsers import mappings
from parsers.jsonmap import RemoteRule
from parsers.workday import _POSTED_KEYS, _REMOTE


def test_the_row_builder_reads_the_fields_the_mapping_names() -> None:
    assert dict(mappings.WORKDAY.fields) == {
        "url": "externalUrl",
        "title": "title",
        "company": "$.hiringOrganization.name",
        "location_text": "locationsText",
        "description_html": "jobDescription",
        "employment_type": "timeType",
        "posted_at": ("startDate", "postedOn"),
    }
    assert _POSTED_KEYS == ("startDate", "postedOn")
    assert mappings.WORKDAY.offices == ()
    assert mappings.WORKDAY.remote == (RemoteRule("remoteType", _REMOTE.values),)
