"""Property: over random sequences of scan outcomes (complete, partial, empty,
failed, blocked) with random membership, and direct checks with random answers,
no posting is ever closed without a direct check that returned conclusive
evidence, a posting seen in a scan is never left closed or missing, and a posting
is missing only after two consecutive complete scans without it.

Runs the real discover and check phases against the sandbox and Postgres."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.app import App
from pipeline.crawl.catalog import sync_catalog
from pipeline.phases.check import check_postings
from pipeline.phases.discover import discover
from sandbox.formats.greenhouse import job_object
from sandbox.world import build_board

TOKEN = "propboard"
CLOUDFLARE = (
    "<html><head><title>Just a moment...</title></head><body>cf-browser-verification</body></html>"
)

scan = st.one_of(
    st.tuples(st.just("complete"), st.frozensets(st.integers(0, 5), min_size=1)),
    st.tuples(st.just("partial"), st.frozensets(st.integers(0, 5), min_size=1)),
    st.tuples(st.just("empty"), st.just(frozenset())),
    st.tuples(st.just("failed"), st.just(frozenset())),
    st.tuples(st.just("blocked"), st.just(frozenset())),
)
check = st.tuples(
    st.just("check"),
    st.sampled_from(["gone", "forbidden", "soft-404", "closed-en", "server-error"]),
)
steps = st.lists(st.one_of(scan, scan, check), min_size=1, max_size=10)
CONCLUSIVE = {"gone", "closed-en"}


def _body(sandbox, members: frozenset[int], reported_total: int) -> str:
    board = build_board(sandbox.state.seed, "greenhouse", TOKEN, 0)
    jobs = [
        job_object(board, board.jobs[i], f"{sandbox.url}/greenhouse/boards", content=True)
        for i in sorted(members)
    ]
    return json.dumps({"jobs": jobs, "meta": {"total": reported_total}})


def _serve(sandbox, kind: str, members: frozenset[int]) -> None:
    spec = {
        "complete": {"status": 200, "body": _body(sandbox, members, len(members))},
        "partial": {"status": 200, "body": _body(sandbox, members, len(members) + 3)},
        "empty": {"status": 200, "body": _body(sandbox, frozenset(), 0)},
        # 500, not 503: a 503 cools the whole host down, and the next polls would be
        # deferred by our own limiter (no scan at all) rather than failed.
        "failed": {"status": 500, "body": "down"},
        "blocked": {"status": 200, "body": CLOUDFLARE, "content_type": "text/html"},
    }[kind]
    httpx.post(
        f"{sandbox.url}/_sandbox/fault",
        params={"platform": "greenhouse", "token": TOKEN},
        content=json.dumps(spec),
    ).raise_for_status()


def _reset(app: App) -> None:
    with app.db.connect() as conn:
        conn.execute(
            "TRUNCATE core.posting_events, core.parse_results, core.postings, crawl.scans, "
            "crawl.fetch_attempts, crawl.runs CASCADE"
        )
        conn.execute(
            "UPDATE crawl.boards SET etag = NULL, last_modified = NULL, body_hash = NULL, scope_hash = NULL, "
            "listing_hash = NULL, empty_streak = 0, suspect_since = NULL, consecutive_failures = 0, "
            "pending_absences = 0, state = 'active'"
        )
        conn.execute("DELETE FROM crawl.hosts")


def _statuses(app: App, ids: dict[str, int]) -> dict[int, str]:
    with app.db.connect() as conn:
        rows = conn.execute("SELECT external_id, status FROM core.postings").fetchall()
    return {ids[r["external_id"]]: r["status"] for r in rows}


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sequence=steps)
def test_no_posting_closes_without_conclusive_evidence(
    app, sandbox, tmp_path: Path, sequence
) -> None:
    sources = tmp_path / "prop.yaml"
    sources.write_text(
        f"sources:\n  greenhouse:\n    platform: greenhouse\n    api_base: {sandbox.url}/greenhouse\n"
        f"    boards: [{TOKEN}]\n    pacing: {{rate_per_s: 500, burst: 500}}\n"
    )
    gh = App.create(settings=app.settings.model_copy(update={"sources_file": sources}))
    sync_catalog(gh)
    _reset(gh)
    board = build_board(sandbox.state.seed, "greenhouse", TOKEN, 0)
    ids = {str(job.job_id): i for i, job in enumerate(board.jobs[:6])}

    absences: dict[int, int] = {}  # the model: consecutive complete scans without the posting
    seen: set[int] = set()
    closed_by_check: set[int] = set()
    for kind, arg in sequence:
        if kind == "check":
            with gh.db.connect() as conn:
                conn.execute(
                    "UPDATE core.postings SET url = %s || '/scenarios/' || %s || '/' || external_id "
                    "WHERE status = 'missing'",
                    (sandbox.url, arg),
                )
                missing = {
                    ids[r["external_id"]]
                    for r in conn.execute(
                        "SELECT external_id FROM core.postings WHERE status = 'missing'"
                    )
                }
            check_postings(gh, "greenhouse", recheck_after_s=0)
            if arg in CONCLUSIVE:
                closed_by_check |= missing
        else:
            _serve(sandbox, kind, arg)
            outcomes = discover(gh, "greenhouse", force=True).stats["outcomes"]
            # The model follows what the scan really was (our own limiter may defer a poll).
            assert set(outcomes) <= {
                "changed",
                "unchanged",
                "empty",
                "failed",
                "blocked",
                "rejected",
            }, outcomes
            if kind in ("complete", "partial"):
                seen |= arg
                for member in arg:
                    absences[member] = 0
                    closed_by_check.discard(member)  # seen again: reopened
            if kind == "complete":
                for member in seen - arg:
                    absences[member] = absences.get(member, 0) + 1

        statuses = _statuses(gh, ids)
        for member, status in statuses.items():
            if status in ("expired", "not_found"):
                assert member in closed_by_check, (sequence, member, status)
            if status == "missing":
                assert absences.get(member, 0) >= 2, (sequence, member)
            if kind in ("complete", "partial") and member in arg:
                assert status == "active", (sequence, member, status)
            if status == "active" and absences.get(member, 0) >= 2:
                raise AssertionError(
                    f"posting {member} absent from 2 complete scans but active: {sequence}"
                )
