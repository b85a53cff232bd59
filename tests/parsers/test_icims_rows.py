"""iCIMS's search rows are built in one step (parsers.icims._listing_posting), reading
the ICIMS mapping's fields by their keys: a change to those fields must be made there
too."""

from __future__ import annotations

from parsers import mappings


def test_the_row_builder_reads_the_fields_the_mapping_names() -> None:
    assert dict(mappings.ICIMS.fields) == {
        "external_id": "id",
        "url": "url",
        "title": "title",
        "department": "category",
        "location_text": "location",
        "posted_at": "posted",
        "detail_url": "detail_url",
    }
    assert mappings.ICIMS.offices == ()
    assert mappings.ICIMS.remote == ()
    assert mappings.ICIMS.single is None  # every row is a listing row, built in one step
