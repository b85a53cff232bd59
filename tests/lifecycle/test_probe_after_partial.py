"""Count-probed boards: a partial listing that shows a posting the last
complete one lacked forgets the board's validators (its body hash among them), and a
count probe does not stand in for a complete listing while they are forgotten. The next
poll reads the listing in full, so the posting's absences are counted at once, not at
the daily full pass. In the steady state (a complete pass stored, nothing new since)
the probe is trusted as before: one page.

Driven through the real discover over the sandbox's Workday CXS and Postgres."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.app import App
from pipeline.crawl.catalog import sync_catalog
from pipeline.phases.discover import discover
from sandbox.formats.workday import req_id
from tests.lifecycle.test_scenarios import events, fault, postings

# A board of three pages (sandbox.world.BOARD_SIZES): a first page that is the whole
# listing is read as a complete scan, so only a board of several pages is probed.
TOKEN = "atlas.wd1"  # the sandbox keys a Workday board by tenant and data center
BOARD = "atlas.wd1/Careers"
PAGES = 3


def wd_app(app: App, sandbox, tmp_path: Path, board: str = BOARD) -> App:
    """The test app with one Workday board."""
    sources = tmp_path / "sources.yaml"
    sources.write_text(
        "sources:\n  workday:\n    platform: workday\n"
        f"    api_base: {sandbox.url}/workday\n    boards: [{board}]\n"
        "    pacing: {rate_per_s: 500, burst: 500}\n"
        "    validation: {content_types: [application/json]}\n"
    )
    scoped = App.create(settings=app.settings.model_copy(update={"sources_file": sources}))
    sync_catalog(scoped)
    return scoped


def poll(app: App) -> dict[str, Any]:
    return dict(discover(app, "workday", force=True).stats)


def board_row(app: App) -> dict[str, Any]:
    with app.db.connect() as conn:
        return conn.execute("SELECT * FROM crawl.boards WHERE board_key = %s", (BOARD,)).fetchone()


def listing_requests(sandbox) -> int:
    return sum(1 for e in sandbox.state.requests(platform="workday") if e.path.endswith("/jobs"))


def serve(sandbox, spec: dict[str, Any] | None) -> None:
    fault(sandbox, spec, token=TOKEN, platform="workday")


def partial_first_page(sandbox, *, drop_first: bool, stated_total: int) -> dict[str, Any]:
    """The board's real first page (every job on it, or all but the first), stating a
    total the rows do not match, once: the pages after it are the real ones, so the
    listing read is partial."""
    serve(sandbox, None)
    url = f"{sandbox.url}/workday/{TOKEN}/wday/cxs/atlas/Careers/jobs"
    page = httpx.post(url, json={"limit": 20, "offset": 0, "appliedFacets": {}}).json()
    real_total = page["total"]
    assert real_total > len(page["jobPostings"])  # the board has more pages
    if drop_first:
        page["jobPostings"] = page["jobPostings"][1:]
    page["total"] = stated_total
    assert real_total - drop_first != stated_total
    return {
        "status": 200,
        "body": json.dumps(page),
        "content_type": "application/json",
        "times": 1,
        "on": "listing",
    }


def last_scan(app: App) -> dict[str, Any]:
    with app.db.connect() as conn:
        return conn.execute(
            "SELECT probe, pages, complete FROM crawl.scans ORDER BY id DESC LIMIT 1"
        ).fetchone()


def statuses(app: App) -> dict[str, tuple[str, int]]:
    return {k: (v["status"], v["missing_count"]) for k, v in postings(app).items()}


@pytest.mark.parametrize("history", ["a new count", "an absence pending"])
def test_a_posting_shown_only_by_a_partial_listing_of_a_count_probed_board_goes_missing_after_two_complete_listings_without_it(
    app, sandbox, tmp_path, history: str
) -> None:
    """Why the partial listing is read in full rather than probed: its total is not the
    stored count, or an absence is pending (one the partial listing then clears, by
    showing that posting again). Either way the stored count is then the total the
    complete listings after it state, so only the forgotten validators say "read it"."""
    jobs = sandbox.state.board("workday", TOKEN).jobs
    target, other = req_id(jobs[0]), req_id(jobs[1])
    after = {"omit": [jobs[0].job_id, jobs[1].job_id], "on": "listing"}  # complete, total matches
    wd = wd_app(app, sandbox, tmp_path)
    serve(sandbox, {"omit": [jobs[0].job_id], "on": "listing"})
    assert poll(wd)["outcomes"] == {"changed": 1}  # a complete listing without the target
    if history == "an absence pending":
        serve(sandbox, after)
        poll(wd)  # the last complete listing: without the target and `other`
        assert board_row(wd)["pending_absences"] == 1
    assert target not in postings(wd)

    # Every job, the target too, on a listing that states a total it does not hold.
    serve(sandbox, partial_first_page(sandbox, drop_first=False, stated_total=len(jobs) - 2))
    assert poll(wd)["outcomes"] == {"changed": 1}
    assert last_scan(wd) == {"probe": False, "pages": PAGES, "complete": False}
    assert statuses(wd)[target] == statuses(wd)[other] == ("active", 0)
    row = board_row(wd)
    assert (row["item_count"], row["pending_absences"]) == (len(jobs) - 2, 0)
    assert row["body_hash"] is None  # the validators are forgotten

    serve(sandbox, after)  # a complete listing whose first page states the stored count
    first = poll(wd)
    assert last_scan(wd) == {"probe": False, "pages": PAGES, "complete": True}, first  # in full
    assert statuses(wd)[target] == statuses(wd)[other] == ("active", 1)
    row = board_row(wd)
    assert row["pending_absences"] == 2
    assert row["body_hash"] is not None  # a complete listing is stored again

    second = poll(wd)  # well within the day: the second complete listing without them
    assert second["outcomes"] == {"unchanged": 1}, second
    assert second["postings_missing"] == 2
    rest = statuses(wd)
    assert (rest.pop(target), rest.pop(other)) == (("missing", 2), ("missing", 2))
    assert set(rest.values()) == {("active", 0)}
    assert events(wd, target) == [("active", "missing", "absent_from_2_complete_scans")]

    # Nothing left to count: the board goes back to the probe.
    assert board_row(wd)["pending_absences"] == 0
    assert poll(wd)["outcomes"] == {"unchanged": 1}
    assert last_scan(wd) == {"probe": True, "pages": 1, "complete": False}


def test_a_count_probed_board_in_its_steady_state_still_trusts_the_probe(
    app, sandbox, tmp_path
) -> None:
    """A complete pass keeps its body hash, and so do the probes after it: one page a
    poll, no full pass. A partial listing of postings the last complete one held
    forgets nothing either: after the full read its new total asks for, the probe."""
    wd = wd_app(app, sandbox, tmp_path)
    poll(wd)
    stored = board_row(wd)
    assert stored["body_hash"] is not None
    assert stored["last_full_pass_at"] is not None
    count = stored["item_count"]

    def probe_once() -> None:
        serve(sandbox, None)
        sandbox.state.log.clear()
        stats = poll(wd)
        assert stats["outcomes"] == {"unchanged": 1}, stats
        assert listing_requests(sandbox) == 1
        assert last_scan(wd) == {"probe": True, "pages": 1, "complete": False}
        row = board_row(wd)
        assert row["body_hash"] == stored["body_hash"]
        assert row["last_full_pass_at"] == stored["last_full_pass_at"]  # no full pass
        assert row["item_count"] == count

    probe_once()
    probe_once()

    serve(sandbox, partial_first_page(sandbox, drop_first=True, stated_total=count + 1))
    assert poll(wd)["outcomes"] == {"changed": 1}
    assert last_scan(wd) == {"probe": False, "pages": PAGES, "complete": False}
    assert board_row(wd)["body_hash"] == stored["body_hash"]  # nothing forgotten
    serve(sandbox, None)
    poll(wd)  # the total is not the partial listing's: read in full
    assert last_scan(wd) == {"probe": False, "pages": PAGES, "complete": True}
    stored = board_row(wd)
    probe_once()
