"""A connection reset mid-answer and a truncated body (Content-Length longer than what
arrives, then close) are transient failures of a listing read: the scan records the
error (with its cause: "Connection reset by peer" was once an empty `ReadError: `),
nothing is marked missing, the board is retried (backoff), and the next clean read
stores the same postings."""

from __future__ import annotations

import pytest

from pipeline.phases.discover import discover
from tests.apps import board, greenhouse_source, make_due, query, scans, set_fault


@pytest.mark.parametrize(
    ("wire", "said"),
    [("reset", "reset by peer"), ("truncate", "without sending complete message body")],
)
def test_a_listing_cut_off_on_the_wire_is_a_failed_read_that_marks_nothing_missing(
    make_app, sandbox, wire: str, said: str
) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["cut"]))
    assert discover(app, "gh").status == "succeeded"
    before = query(app, "SELECT external_id, status FROM core.postings ORDER BY external_id")
    assert before
    assert all(p["status"] == "active" for p in before)

    set_fault(sandbox, "greenhouse", "cut", wire=wire)
    make_due(app)
    assert discover(app, "gh", force=True).status == "succeeded"
    cut = scans(app, "cut")[-1]
    assert not cut["complete"]
    assert said in (cut["error"] or ""), cut
    assert (
        query(app, "SELECT external_id, status FROM core.postings ORDER BY external_id") == before
    )
    assert board(app, "cut")["state"] == "backoff"  # retried soon; never retired for it

    set_fault(sandbox, "greenhouse", "cut")
    make_due(app)
    assert discover(app, "gh", force=True).status == "succeeded"
    assert scans(app, "cut")[-1]["complete"]
    assert (
        query(app, "SELECT external_id, status FROM core.postings ORDER BY external_id") == before
    )
