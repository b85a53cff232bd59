"""A board that left sources.yaml and came back unchanged answers
304 (or an unchanged body); that repeat of its last complete listing reopens the
postings it holds, and a `live` direct check never leaves a posting worse off.
Driven through the real discover and check over the sandbox."""

from __future__ import annotations

from typing import Any

from pipeline.app import App
from pipeline.phases.check import check_postings
from tests.lifecycle.test_scenarios import BOARD, events, fault, gh_app, poll, postings

OTHER = "acme-robotics"


def _of_board(app: App, board_key: str) -> dict[str, dict[str, Any]]:
    with app.db.connect() as conn:
        rows = conn.execute(
            """SELECT p.* FROM core.postings p JOIN crawl.boards b ON b.id = p.board_id
               WHERE b.board_key = %s ORDER BY p.id""",
            (board_key,),
        ).fetchall()
    return {r["external_id"]: r for r in rows}


def _event_rows(app: App, external_id: str) -> list[dict[str, Any]]:
    with app.db.connect() as conn:
        return conn.execute(
            """SELECT e.* FROM core.posting_events e JOIN core.postings p ON p.id = e.posting_id
               WHERE p.external_id = %s ORDER BY e.id""",
            (external_id,),
        ).fetchall()


def _strand_for_two_cycles(app: App, sandbox, tmp_path) -> App:
    """Both boards polled, then NORTHWIND out of sources.yaml for two cycles."""
    poll(gh_app(app, sandbox, tmp_path, boards=f"{BOARD}, {OTHER}"))
    without = gh_app(app, sandbox, tmp_path, boards=OTHER)
    for _ in range(2):
        poll(without)
        check = check_postings(without, "greenhouse", recheck_after_s=0).stats
        assert "closed" not in check["outcomes"], check
    stranded = _of_board(without, BOARD)
    assert {r["status"] for r in stranded.values()} == {"missing"}
    assert all(events(without, ext)[-1][2] == "board_disabled" for ext in stranded)
    return gh_app(app, sandbox, tmp_path, boards=f"{BOARD}, {OTHER}")


def test_a_board_back_in_sources_answering_304_reopens_its_missing_postings(
    app, sandbox, tmp_path
) -> None:
    back = _strand_for_two_cycles(app, sandbox, tmp_path)
    for cycle in range(3):
        stats = poll(back)
        assert stats["outcomes"] == {"not_modified": 2}, stats
        assert (
            "closed" not in check_postings(back, "greenhouse", recheck_after_s=0).stats["outcomes"]
        )
        rows = _of_board(back, BOARD)
        assert {(r["status"], r["missing_count"]) for r in rows.values()} == {("active", 0)}
        if cycle == 0:
            assert stats["postings_missing"] == 0
    scan_ids = []
    for external_id in rows:
        assert [e[2] for e in events(back, external_id)] == ["board_disabled", "seen_again"]
        reopened = _event_rows(back, external_id)[-1]
        assert reopened["evidence"]["via"] == "not_modified"
        assert reopened["scan_id"] == reopened["evidence"]["scan_id"]
        scan_ids.append(reopened["scan_id"])
    with back.db.connect() as conn:
        scans = conn.execute(
            "SELECT DISTINCT outcome, complete FROM crawl.scans WHERE id = ANY(%s)", (scan_ids,)
        ).fetchall()
    assert [(s["outcome"], s["complete"]) for s in scans] == [("not_modified", True)]
    assert all(
        r["last_seen_scan_id"] in scan_ids or r["last_seen_scan_id"] > max(scan_ids)
        for r in _of_board(back, BOARD).values()
    )


def test_a_board_back_in_sources_with_an_unchanged_body_reopens_its_missing_postings(
    app, sandbox, tmp_path
) -> None:
    """No validators, so no 304: the same listing read again (outcome unchanged)."""
    fault(sandbox, {"validators": "none"})
    back = _strand_for_two_cycles(app, sandbox, tmp_path)
    stats = poll(back)
    assert stats["outcomes"].get("unchanged") == 1, stats
    rows = _of_board(back, BOARD)
    assert {(r["status"], r["missing_count"]) for r in rows.values()} == {("active", 0)}
    assert all(events(back, ext)[-1][2] == "seen_again" for ext in rows)


def test_a_304_does_not_reopen_a_missing_posting_absent_from_the_listing(
    app, sandbox, tmp_path
) -> None:
    """Only postings the repeated listing holds come back: one absent from it (two
    complete scans, then stranded) stays missing through the board's return."""
    from tests.lifecycle.test_scenarios import advance, removed_by_next_step

    both = gh_app(app, sandbox, tmp_path, boards=f"{BOARD}, {OTHER}")
    poll(both)
    gone = removed_by_next_step(sandbox)
    advance(sandbox)
    poll(both)
    poll(both)  # 304: the second complete scan without it
    assert postings(both)[gone]["status"] == "missing"
    poll(gh_app(app, sandbox, tmp_path, boards=OTHER))
    back = gh_app(app, sandbox, tmp_path, boards=f"{BOARD}, {OTHER}")
    stats = poll(back)
    assert stats["outcomes"] == {"not_modified": 2}
    rows = _of_board(back, BOARD)
    assert rows[gone]["status"] == "missing"
    assert {r["status"] for ext, r in rows.items() if ext != gone} == {"active"}


def test_a_live_check_leaves_a_missing_posting_exactly_as_it_was_but_for_the_check(
    app, sandbox, tmp_path
) -> None:
    gh = gh_app(app, sandbox, tmp_path)
    poll(gh)
    with gh.db.connect() as conn:
        external_id = conn.execute(
            "UPDATE core.postings SET status = 'missing', missing_count = 0 "
            "WHERE id = (SELECT min(id) FROM core.postings) RETURNING external_id"
        ).fetchone()["external_id"]
    before = postings(gh)[external_id]
    stats = check_postings(gh, "greenhouse").stats
    assert stats["outcomes"] == {"live": 1}, stats
    after = postings(gh)[external_id]
    kept = ("status", "missing_count", "closed_at", "close_reason", "close_evidence", "board_id")
    assert {k: after[k] for k in kept} == {k: before[k] for k in kept}
    assert after["check_outcome"] == "live"
    assert events(gh, external_id) == []
