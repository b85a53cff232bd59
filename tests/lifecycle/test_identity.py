"""Posting identity: repost keys, openings, and incremental duplicate groups."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pipeline.lifecycle.identity import (
    first_office,
    normalize_employer,
    normalize_title,
    opening_key,
    repost_key,
    shingles,
    similarity,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Acme, Inc.", "acme"),
        ("ACME Inc", "acme"),
        ("Công ty TNHH Phần mềm FPT", "phan mem fpt"),
        ("Zürich Versicherung AG", "zurich versicherung"),
        (None, ""),
    ],
)
def test_employer_names_normalize(raw, expected) -> None:
    assert normalize_employer(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Senior Software Engineer (Remote)", "senior software engineer"),
        ("Software Engineer - London", "software engineer"),
        ("Data Analyst [REQ-12345]", "data analyst"),
        ("Kỹ sư phần mềm", "ky su phan mem"),
        ("Senior Data Engineer", "senior data engineer"),
    ],
)
def test_titles_normalize_but_keep_seniority(raw, expected) -> None:
    assert normalize_title(raw) == expected


def test_same_role_shares_a_key_and_a_new_date_is_a_new_opening() -> None:
    office = first_office(
        {"offices": [{"city": "Berlin", "region": None, "country": "DE"}]}, "Berlin, Germany"
    )
    a = repost_key("Acme Inc.", "Data Engineer (m/w/d)", office)
    b = repost_key("ACME", "Data Engineer", office)
    assert a == b
    assert a != repost_key("ACME", "Senior Data Engineer", office)
    jan = opening_key(a, datetime(2026, 1, 5, tzinfo=UTC), "day")
    apr = opening_key(a, datetime(2026, 4, 9, tzinfo=UTC), "exact")
    assert jan != apr
    assert opening_key(a, datetime(2026, 1, 5, 18, tzinfo=UTC), "exact") == jan
    # Unknown dates are "undated", never an invented day.
    assert opening_key(a, None, "unknown") == opening_key(
        a, datetime(2026, 2, 2, tzinfo=UTC), "unknown"
    )


def test_missing_employer_or_title_gives_no_key() -> None:
    assert repost_key(None, "Engineer", "berlin") is None
    assert repost_key("Acme", "", "berlin") is None


def test_near_identical_descriptions_are_similar_and_others_are_not() -> None:
    text = (
        "We are hiring a data engineer to build pipelines with Python and PostgreSQL every day " * 5
    )
    assert similarity(shingles(text), shingles(text + " Apply now.")) > 0.85
    assert (
        similarity(
            shingles(text), shingles("A completely different role in sales and marketing " * 5)
        )
        < 0.1
    )
    assert similarity(shingles(None), shingles(text)) == 0.0


def test_duplicates_across_boards_are_grouped_incrementally(app, sandbox) -> None:
    from pipeline.phases.discover import discover
    from pipeline.phases.parse import parse_source

    discover(app, "greenhouse", force=True)
    first = parse_source(app, "greenhouse").stats
    # Copy one posting's role and text onto another posting of another board: a cross-post.
    with app.db.connect() as conn:
        a, b = conn.execute(
            """SELECT p.id FROM core.postings p JOIN crawl.boards bo ON bo.id = p.board_id
               WHERE p.source_id = 'greenhouse' ORDER BY bo.board_key <> 'northwind', p.id LIMIT 2"""
        ).fetchall()
        conn.execute(
            """UPDATE core.parse_results dst SET title = src.title, company = src.company,
                   location = src.location, location_text = src.location_text,
                   description_text = src.description_text, content_hash = 'changed'
               FROM core.parse_results src
               WHERE src.posting_id = %s AND src.is_current AND dst.posting_id = %s AND dst.is_current""",
            (a["id"], b["id"]),
        )
        from pipeline.lifecycle.identity_store import refresh_identity

        report = refresh_identity(conn, [b["id"]])
        rows = conn.execute(
            "SELECT id, repost_key, duplicate_group FROM core.postings WHERE id = ANY(%s) ORDER BY id",
            ([a["id"], b["id"]],),
        ).fetchall()
        again = refresh_identity(conn, [b["id"]])
    assert first["duplicates_grouped"] >= 0
    assert report.grouped == 1
    assert rows[0]["repost_key"] == rows[1]["repost_key"]
    assert rows[0]["duplicate_group"] == rows[1]["duplicate_group"] == min(a["id"], b["id"])
    assert again.grouped == 0  # unchanged content: not regrouped
