"""A posting stored under the id an earlier parser gave its listing row keeps its row
when the row's id changes: Workday's parser 2 named a reposted requisition's row after
its page path ("R12345-1"), parser 3 after its requisition id ("R12345"). Discover
renames the stored posting instead of storing the job twice, and only then: on
Workday, for the exact repost relation the row itself confirmed, when the new id is
not stored already. The pure rules first, then the real discover over the sandbox,
whose "repost" tenants name every page with a repost suffix and show the requisition
id in `bulletFields` on every other row (parsers.workday.listing_id)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from parsers.types import Posting
from parsers.workday import superseded_id
from pipeline.app import App
from pipeline.crawl.platforms import Platform
from pipeline.crawl.platforms.workday import Workday
from pipeline.db.rows import PostingState
from pipeline.lifecycle.identity import IdRename, id_renames, is_repost_suffixed, rename_event
from pipeline.phases.discover import discover
from pipeline.phases.recorder import former_ids
from sandbox.formats.workday import req_id
from sandbox.server import RunningSandbox
from sandbox.world import Job, build_board
from tests.apps import MakeApp, greenhouse_source, sandbox_ats_source

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "workday" / "3"
REPOSTED = "repostco.wd5"  # the sandbox's "repost" tenants suffix every page path
BOARD = 7


def stored(external_id: str, board_id: int = BOARD, posting_id: int = 1) -> PostingState:
    return PostingState(posting_id, external_id, board_id, "missing", 2)


# ------------------------------------------------------------------ the pure rules


def test_the_parser_names_the_former_id_only_where_the_row_confirmed_its_requisition() -> None:
    rows = json.loads((GOLDEN / "myworkdaysite-listing-repost-suffix" / "input.json").read_text())
    found = {
        row["externalPath"].rsplit("_", 1)[-1]: superseded_id(row) for row in rows["jobPostings"]
    }
    assert found == {
        "R12345-1": "R12345-1",  # bulletFields ["R12345"]: the row is R12345 now
        "JR-0001234-2": "JR-0001234-2",
        "R-7": None,  # an id with a dash of its own
        "R555-2": None,  # bulletFields do not confirm a suffix: the path's id stands
        "JR777-3": None,
    }
    assert superseded_id({"bulletFields": ["R1"]}) is None  # no path: nothing to supersede


def test_only_workday_knows_a_former_id() -> None:
    row = {"externalPath": "/job/Reston-VA/Senior-Buyer_R12345-1", "bulletFields": ["R12345"]}
    posting = Posting("R12345", "https://x/R12345", "Senior Buyer", payload=row)
    assert former_ids(Workday(), [posting]) == {"R12345": "R12345-1"}
    assert former_ids(Platform(), [posting]) == {}


def test_a_stored_repost_suffixed_id_is_renamed_to_the_listed_requisition_id() -> None:
    old = stored("R12345-1")
    renames = id_renames({"R12345": "R12345-1"}, {"R12345"}, {"R12345-1": old}, BOARD)
    assert renames == [IdRename(old, "R12345")]
    event = rename_event(renames[0], "workday@3", run_id=3, scan_id=4)
    assert (event.from_status, event.to_status, event.reason) == (
        "missing",
        "missing",
        "external_id_renamed",
    )
    assert (
        event.evidence["note"] == "external id renamed from R12345-1 to R12345 by parser workday@3"
    )


def test_no_rename_when_both_ids_are_stored_or_the_old_one_is_listed_or_elsewhere() -> None:
    former, old, new = {"R12345": "R12345-1"}, stored("R12345-1"), stored("R12345", posting_id=2)
    assert id_renames(former, {"R12345"}, {"R12345-1": old, "R12345": new}, BOARD) == []
    assert id_renames(former, {"R12345", "R12345-1"}, {"R12345-1": old}, BOARD) == []
    on_another_board = {"R12345-1": stored("R12345-1", board_id=BOARD + 1)}
    assert id_renames(former, {"R12345"}, on_another_board, BOARD) == []
    assert id_renames(former, {"R12345"}, {}, BOARD) == []


def test_only_the_exact_repost_relation_renames() -> None:
    assert is_repost_suffixed("R12345-1", "R12345")
    assert is_repost_suffixed("JR-0001234-12", "JR-0001234")
    assert not is_repost_suffixed("R12345-1", "R1234")
    assert not is_repost_suffixed("R12345-A", "R12345")
    assert not is_repost_suffixed("R12345", "R12345")
    assert not is_repost_suffixed("R1.2345-1", "R1*2345")  # no pattern in an id
    former = {"R1234": "R12345-1"}  # a platform hook naming an unrelated id
    assert id_renames(former, {"R1234"}, {"R12345-1": stored("R12345-1")}, BOARD) == []


# ------------------------------------------------------------------ discover over the sandbox


def first_crawl(make_app: MakeApp, sandbox: RunningSandbox) -> tuple[App, Job, Job]:
    """The reposted board discovered once, and (confirmed_and_not) two of its jobs."""
    app = make_app(sandbox_ats_source("wd", "workday", sandbox.url, [f"{REPOSTED}/Careers"]))
    poll(app, "wd")
    return app, *confirmed_and_not(sandbox)


def world(sandbox: RunningSandbox) -> list[Job]:
    return list(build_board(sandbox.state.seed, "workday", REPOSTED, 0).jobs)


def confirmed_and_not(sandbox: RunningSandbox) -> tuple[Job, Job]:
    """A job whose row names its requisition id, and one whose row names none."""
    jobs = world(sandbox)
    confirmed = [j for j in jobs if j.job_id % 2 == 0]
    unconfirmed = [j for j in jobs if j.job_id % 2]
    assert confirmed, "the board has a row that names its requisition id"
    assert unconfirmed, "the board has a row that names none"
    return confirmed[0], unconfirmed[0]


def rows(app: App, source: str) -> dict[str, dict[str, Any]]:
    with app.db.connect() as conn:
        found = conn.execute(
            "SELECT * FROM core.postings WHERE source_id = %s ORDER BY id", (source,)
        ).fetchall()
    return {r["external_id"]: r for r in found}


def events(app: App, posting_id: int) -> list[dict[str, Any]]:
    with app.db.connect() as conn:
        return conn.execute(
            "SELECT * FROM core.posting_events WHERE posting_id = %s ORDER BY id", (posting_id,)
        ).fetchall()


def store_as_before(app: App, source: str, renames: dict[str, str]) -> None:
    """Postings as an earlier parser left them: under another id, `missing` after two
    complete scans without that id. The board's validators and listing hash were of
    that listing, so the next one is read and written."""
    with app.db.connect() as conn:
        for external_id, former_id in renames.items():
            conn.execute(
                """UPDATE core.postings SET external_id = %s, status = 'missing', missing_count = 2
                   WHERE source_id = %s AND external_id = %s""",
                (former_id, source, external_id),
            )
        conn.execute(
            """UPDATE crawl.boards SET etag = NULL, last_modified = NULL, body_hash = NULL,
                   listing_hash = NULL WHERE source_id = %s""",
            (source,),
        )


def poll(app: App, source: str) -> dict[str, Any]:
    report = discover(app, source, force=True)
    assert report.status == "succeeded", report
    return dict(report.stats)


def test_a_posting_stored_under_its_suffixed_id_is_renamed_and_listed_once(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app, job, _ = first_crawl(make_app, sandbox)
    new_id = req_id(job)
    posting_id = rows(app, "wd")[new_id]["id"]
    store_as_before(app, "wd", {new_id: f"{new_id}-1"})

    stats = poll(app, "wd")
    assert (stats["postings_renamed"], stats["postings_new"]) == (1, 0), stats
    after = rows(app, "wd")
    assert len(after) == len(world(sandbox)), "no posting was added"
    assert f"{new_id}-1" not in after
    renamed = after[new_id]
    assert (renamed["id"], renamed["status"], renamed["missing_count"]) == (posting_id, "active", 0)
    history = events(app, posting_id)
    assert [e["reason"] for e in history] == ["external_id_renamed", "seen_again"]
    assert history[0]["evidence"] == {
        "from": f"{new_id}-1",
        "to": new_id,
        "parser": "workday@3",
        "note": f"external id renamed from {new_id}-1 to {new_id} by parser workday@3",
    }
    assert (history[0]["from_status"], history[0]["to_status"]) == ("missing", "missing")

    again = poll(app, "wd")  # the next listing finds the posting under its id
    assert again["postings_renamed"] == 0
    assert rows(app, "wd")[new_id]["id"] == posting_id


def test_both_ids_stored_are_left_to_the_lifecycle(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app, job, other = first_crawl(make_app, sandbox)
    new_id = req_id(job)
    # Another stored posting of the board holds the suffixed id beside the listed one.
    store_as_before(app, "wd", {f"{req_id(other)}-1": f"{new_id}-1"})
    before = rows(app, "wd")

    stats = poll(app, "wd")
    assert stats["postings_renamed"] == 0
    after = rows(app, "wd")
    assert after[new_id]["id"] == before[new_id]["id"]
    assert after[f"{new_id}-1"]["id"] == before[f"{new_id}-1"]["id"]
    renamed = [
        e
        for r in after.values()
        for e in events(app, r["id"])
        if e["reason"] == "external_id_renamed"
    ]
    assert renamed == []


def test_a_row_whose_requisition_id_did_not_confirm_keeps_its_id(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app, _, job = first_crawl(make_app, sandbox)
    whole = f"{req_id(job)}-1"  # no bulletFields on its row: the path's id is the id
    first = rows(app, "wd")
    assert whole in first
    assert req_id(job) not in first
    store_as_before(app, "wd", {})

    stats = poll(app, "wd")
    assert (stats["postings_renamed"], stats["postings_new"]) == (0, 0), stats
    after = rows(app, "wd")
    assert set(after) == set(first)
    assert after[whole]["id"] == first[whole]["id"]
    assert [e["reason"] for e in events(app, after[whole]["id"])] == []


def test_another_platform_with_the_same_id_shapes_is_untouched(
    make_app: MakeApp, sandbox: RunningSandbox
) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["northwind"]))
    poll(app, "gh")
    listed = rows(app, "gh")
    new_id = next(iter(listed))
    store_as_before(app, "gh", {new_id: f"{new_id}-1"})

    stats = poll(app, "gh")
    assert (stats["postings_renamed"], stats["postings_new"]) == (0, 1), stats
    after = rows(app, "gh")
    assert after[f"{new_id}-1"]["id"] == listed[new_id]["id"]
    assert after[new_id]["id"] != listed[new_id]["id"]
    assert len(after) == len(listed) + 1
