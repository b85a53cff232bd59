"""The parse phase writes normalized offices for every posting, and re-normalizing
never drops an office found before."""

from __future__ import annotations

import json

from pipeline.cli import main
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving

KEYS = {"input", "offices", "countries", "remote", "unresolved", "more_offices"}


def test_every_parsed_posting_has_normalized_offices(app) -> None:
    for name in ("greenhouse", "vieclam"):
        discover(app, name, force=True)
        fetch_details(app, name)
        parse_source(app, name)
    with app.db.connect() as conn:
        rows = conn.execute(
            """SELECT p.source_id, r.location_text, r.location FROM core.parse_results r
               JOIN core.postings p ON p.id = r.posting_id WHERE r.is_current"""
        ).fetchall()
    assert rows
    assert all(set(r["location"]) == KEYS for r in rows)
    by_text = {r["location_text"]: r["location"] for r in rows}
    assert by_text["London, United Kingdom"]["countries"] == ["GB"]
    assert by_text["Toronto, Ontario, Canada"]["offices"][0]["city"] == "Toronto"
    assert by_text["Remote - US"]["remote"] == "yes"
    vietnamese = [r["location"] for r in rows if r["source_id"] == "vieclam"]
    assert vietnamese
    assert all("VN" in loc["countries"] for loc in vietnamese)


def test_serving_rows_carry_the_resolved_countries_and_cities(app) -> None:
    discover(app, "greenhouse", force=True)
    parse_source(app, "greenhouse")
    sync_serving(app)
    with app.serving_db.connect() as conn:
        rows = conn.execute(
            "SELECT location_text, countries, cities, location_unresolved FROM serving.jobs"
        ).fetchall()
    london = next(r for r in rows if r["location_text"] == "London, United Kingdom")
    assert (london["countries"], london["cities"], london["location_unresolved"]) == (
        ["GB"],
        ["London"],
        False,
    )
    paris = [r for r in rows if r["location_text"] == "Paris, France"]
    assert all(r["countries"] == ["FR"] for r in paris)


def test_reparsing_never_drops_an_office_found_before(app) -> None:
    discover(app, "greenhouse", force=True)
    parse_source(app, "greenhouse")
    with app.db.connect() as conn:
        target = conn.execute(
            """SELECT r.id, r.posting_id, r.location FROM core.parse_results r
               WHERE r.is_current AND r.location_text = 'Austin, TX' LIMIT 1"""
        ).fetchone()
        earlier = dict(target["location"])
        # An earlier normalizer found a second office in the same text (say, a site near Austin).
        earlier["offices"] = [
            *earlier["offices"],
            {
                "city": "Round Rock",
                "region": "Texas",
                "country": "US",
                "geonameid": 4724129,
                "ambiguous": False,
            },
        ]
        conn.execute(
            "UPDATE core.parse_results SET location = %s::jsonb WHERE id = %s",
            (json.dumps(earlier), target["id"]),
        )
        # A new raw object for the posting (its listing row changed), so it is parsed again.
        conn.execute(
            "UPDATE core.postings SET content_raw_sha256 = listing_raw_sha256 WHERE id = %s",
            (target["posting_id"],),
        )
        conn.execute(
            "UPDATE core.parse_results SET parser_version = 'old' WHERE id = %s", (target["id"],)
        )
    assert parse_source(app, "greenhouse").stats["postings"] == 1
    with app.db.connect() as conn:
        now = conn.execute(
            "SELECT location FROM core.parse_results WHERE posting_id = %s AND is_current",
            (target["posting_id"],),
        ).fetchone()["location"]
    assert "Round Rock" in [o["city"] for o in now["offices"]]
    assert "Austin" in [o["city"] for o in now["offices"]]


def test_locate_command(capsys) -> None:
    assert main(["locate", "Toronto, CA", "Franklin, LA"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["countries"] for line in lines] == [["CA"], ["US"]]
    assert lines[1]["offices"][0]["region"] == "Louisiana"
