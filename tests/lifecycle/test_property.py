"""Property: over random sequences of scan outcomes (complete, partial, empty,
failed, blocked) with random membership, and direct checks with random answers,
no posting is ever closed without a direct check that returned conclusive
evidence, a posting seen in a scan is never left closed or missing, and a posting
is missing only after two consecutive complete scans without it.

Runs the real discover and check phases against the sandbox and Postgres."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
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
            "pending_absences = 0, state = 'active', last_full_pass_at = NULL, item_count = NULL"
        )
        conn.execute("DELETE FROM crawl.hosts")


def _statuses(app: App, ids: dict[str, int]) -> dict[int, str]:
    with app.db.connect() as conn:
        rows = conn.execute("SELECT external_id, status FROM core.postings").fetchall()
    return {ids[r["external_id"]]: r["status"] for r in rows}


# Derandomized: the same 30 sequences every run. A random draw found the hole kept
# below as a regression (mended: lifecycle.rules.outside_last_complete), and a suite must not
# pass or fail by chance.
@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(sequence=steps)
def test_no_posting_closes_without_conclusive_evidence(
    app, sandbox, tmp_path: Path, sequence
) -> None:
    _drive(app, sandbox, tmp_path, sequence)


def test_a_repeat_of_a_complete_listing_after_a_partial_one_is_a_second_absence(
    app, sandbox, tmp_path: Path
) -> None:
    statuses = _drive(
        app,
        sandbox,
        tmp_path,
        [
            ("complete", frozenset({0})),
            ("partial", frozenset({1})),
            ("complete", frozenset({0})),
            ("complete", frozenset({0})),
        ],
    )
    assert statuses == {0: "active", 1: "missing"}


@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(sequence=st.lists(st.one_of(scan, check), max_size=6))
def test_a_board_whose_postings_all_close_ends_with_every_one_closed_on_evidence(
    app, sandbox, tmp_path: Path, sequence
) -> None:
    """Whatever came before, once the company takes every job down for real (the
    listing empty, each page a 404) the next two discover-and-check cycles close every
    posting, each on its own page's evidence: an empty listing proves nothing by itself,
    but it asks each posting directly."""
    sandbox.state.reset()  # examples share the fixture: bring the last one's jobs back
    _drive(app, sandbox, tmp_path, [*sequence, ("complete", frozenset(range(6)))])
    gh = _scoped_app(app, sandbox, tmp_path)
    sandbox.state.set_fault("greenhouse", TOKEN, None)
    sandbox.state.remove("greenhouse", TOKEN, None)
    for _ in range(2):
        assert discover(gh, "greenhouse", force=True).stats["outcomes"] == {"empty": 1}
        check_postings(gh, "greenhouse", recheck_after_s=0)
    with gh.db.connect() as conn:
        rows = conn.execute(
            """SELECT p.external_id, p.status,
                      (SELECT e.reason FROM core.posting_events e WHERE e.posting_id = p.id
                       ORDER BY e.id DESC LIMIT 1) AS reason
               FROM core.postings p"""
        ).fetchall()
    assert len(rows) == 6
    assert {r["status"] for r in rows} == {"not_found"}, (sequence, rows)
    assert all(r["reason"] == "direct_check:http_404" for r in rows), (sequence, rows)


def _scoped_app(app, sandbox, tmp_path: Path) -> App:
    sources = tmp_path / "prop.yaml"
    sources.write_text(
        f"sources:\n  greenhouse:\n    platform: greenhouse\n    api_base: {sandbox.url}/greenhouse\n"
        f"    boards: [{TOKEN}]\n    pacing: {{rate_per_s: 500, burst: 500}}\n"
    )
    gh = App.create(settings=app.settings.model_copy(update={"sources_file": sources}))
    sync_catalog(gh)
    return gh


def _drive(app, sandbox, tmp_path: Path, sequence) -> dict[int, str]:
    """Run the sequence, checking the invariants after each step; the last statuses."""
    gh = _scoped_app(app, sandbox, tmp_path)
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
    return _statuses(gh, ids)


# ------------------------------------------------------------------ every platform
#
# One board of each sandbox source, driven through the real discover and check. The
# sandbox world never really removes a posting here, so every posting is live all
# along: any close is a wrongful close. Random steps:
#   listing  the board lists every posting but `omit`; the listing's total matches what
#            it lists (a partial listing that looks complete; omitting all = empty)
#   fault    the listing answers 500 or a block page
#   remove / readd  the board leaves sources.yaml, comes back unchanged (so it may answer 304)
#   check    the direct check, with the posting pages answering live or with a fault
# Invariants: no posting ever closes (the platform still lists it); after a complete,
# non-probe scan of the board, every posting that listing held is `active`.
#
# Runtime: one source per platform (11) x (2 explicit + PLATFORM_EXAMPLES) examples x up to
# 6 steps, each
# a real discover or check (0.1-1 s: timeouts wait 0.5 s, a 429 cools the host 1 s). No
# shrinking (a failure prints its unshrunk sequence): shrinking these would take minutes.

PLATFORM_EXAMPLES = 2
LISTING_FAULTS = {
    "failed": {"status": 500, "body": "down", "on": "listing"},
    "blocked": {"status": 200, "body": CLOUDFLARE, "content_type": "text/html", "on": "listing"},
}
POSTING_FAULTS = {
    "live": None,
    "401": {"status": 401, "body": "<h1>Please sign in</h1>", "content_type": "text/html"},
    "403": {"status": 403, "body": "<h1>Access denied</h1>", "content_type": "text/html"},
    "429": {"status": 429, "body": "slow down", "retry_after": "1"},
    "500": {"status": 500, "body": "oops"},
    "login-wall": {"redirect": "/scenarios-login"},
    "soft-404": {
        "status": 200,
        "content_type": "text/html",
        "body": "<html><head><title>Search jobs</title></head><body><h1>Search jobs</h1>"
        "<ul><li><a href='/jobs/1'>Other job</a></li></ul></body></html>",
    },
    "timeout": {"delay_s": 1.2},  # the test app's HTTP timeout is 0.5 s
}
platform_steps = st.lists(
    st.one_of(
        st.tuples(st.just("listing"), st.frozensets(st.integers(0, 5), max_size=3)),
        st.tuples(st.just("listing"), st.just(frozenset())),
        st.tuples(st.just("fault"), st.sampled_from(sorted(LISTING_FAULTS))),
        st.tuples(st.just("remove"), st.none()),
        st.tuples(st.just("readd"), st.none()),
        st.tuples(st.just("check"), st.sampled_from(sorted(POSTING_FAULTS))),
    ),
    min_size=1,
    max_size=6,
)


def _sandbox_sources() -> dict:
    import yaml

    from tests.conftest import SANDBOX_SOURCES

    return yaml.safe_load(SANDBOX_SOURCES.read_text())["sources"]


def _one_source_per_platform() -> list[str]:
    first: dict[str, str] = {}
    for name, config in _sandbox_sources().items():
        first.setdefault(config["platform"], name)
    return sorted(first.values())


SOURCE_NAMES = _one_source_per_platform()


def _write_one_board(path: Path, name: str, *, present: bool) -> None:
    """sources.yaml with `name` alone, holding its first board (or none: removed)."""
    import yaml

    config = dict(_sandbox_sources()[name])
    key = "scopes" if "scopes" in config else "boards"
    config[key] = config[key][:1] if present else []
    config["pacing"] = {"rate_per_s": 500, "burst": 500}
    path.write_text(yaml.safe_dump({"version": 1, "sources": {name: config}}))


@dataclass(frozen=True)
class _Board:
    """The test board: its sandbox key, and which sandbox job each posting is."""

    platform: str
    token: str
    external_ids: tuple[str, ...]  # by the job's position on the sandbox board
    job_ids: tuple[int, ...]


_LEARNED: dict[str, _Board] = {}


def _learn_board(app: App, sandbox, name: str) -> _Board:
    """Which external id is which sandbox job: one listing per bit of the position,
    each omitting the jobs whose position has that bit set (the world is fixed)."""
    if name in _LEARNED:
        return _LEARNED[name]
    _reset(app)
    since = sandbox.state.requests()[-1].at if sandbox.state.requests() else 0.0
    discover(app, name, force=True)
    keys = {(e.platform, e.token) for e in sandbox.state.requests(since=since) if e.platform}
    assert len(keys) == 1, keys
    ((platform, token),) = keys
    jobs = sandbox.state.board(platform, token).jobs
    everything = _listed(app)
    assert len(everything) == len(jobs), (name, len(everything), len(jobs))
    bits: dict[str, int] = dict.fromkeys(everything, 0)
    for bit in range(max(1, (len(jobs) - 1).bit_length())):
        omit = [j.job_id for i, j in enumerate(jobs) if i >> bit & 1]
        _set_fault(sandbox, platform, token, {"omit": omit, "on": "listing"})
        listed = _listed_after_one_round(app, name, expected=len(jobs) - len(omit))
        for external_id in everything - listed:
            bits[external_id] |= 1 << bit
    _set_fault(sandbox, platform, token, None)
    by_position = {position: ext for ext, position in bits.items()}
    assert len(by_position) == len(jobs), (name, bits)
    learned = _Board(
        platform,
        token,
        tuple(by_position[i] for i in range(len(jobs))),
        tuple(j.job_id for j in jobs),
    )
    _LEARNED[name] = learned
    return learned


def _listed_after_one_round(app: App, name: str, *, expected: int) -> set[str]:
    """The postings one forced discover lists from a clean start. A round whose scan
    did not complete (a fetch that timed out or waited past its budget on a loaded
    machine) says nothing about which job is which, so it is run again, at most
    three times, and the last scan is named if none completes."""
    scans = []
    for _ in range(3):
        _reset(app)
        report = discover(app, name, force=True)
        scan = _last_scan(app, report.run_id)
        listed = _listed(app)
        if scan is not None and scan["complete"] and len(listed) == expected:
            return listed
        scans.append((dict(scan) if scan else None, len(listed)))
    raise AssertionError(f"{name}: no complete listing of {expected} postings in 3 rounds: {scans}")


def _listed(app: App) -> set[str]:
    with app.db.connect() as conn:
        return {r["external_id"] for r in conn.execute("SELECT external_id FROM core.postings")}


def _set_fault(sandbox, platform: str, token: str, spec: dict | None) -> None:
    httpx.post(
        f"{sandbox.url}/_sandbox/fault",
        params={"platform": platform, "token": token},
        content=json.dumps(spec) if spec else b"",
    ).raise_for_status()


def _last_scan(app: App, run_id: int) -> dict | None:
    with app.db.connect() as conn:
        return conn.execute(
            "SELECT outcome, complete, truncated, probe FROM crawl.scans WHERE run_id = %s "
            "ORDER BY id DESC LIMIT 1",
            (run_id,),
        ).fetchone()


def _status_rows(app: App) -> dict[str, dict]:
    with app.db.connect() as conn:
        rows = conn.execute("SELECT external_id, status, close_reason FROM core.postings")
        return {r["external_id"]: r for r in rows}


def _platform_case(name: str):
    return pytest.param(name, id=name)


@pytest.mark.parametrize("name", [_platform_case(n) for n in SOURCE_NAMES])
@settings(
    max_examples=PLATFORM_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(sequence=platform_steps)
# Always, on every platform: live postings omitted twice (missing), checked live, listed
# again; and a board removed (its postings stranded and checked) then re-added unchanged.
@example(
    sequence=[
        ("listing", frozenset({0, 1})),
        ("listing", frozenset({0, 1})),
        ("check", "live"),
        ("check", "timeout"),
        ("listing", frozenset()),
    ]
)
@example(
    sequence=[
        ("remove", None),
        ("listing", frozenset()),
        ("check", "live"),
        ("readd", None),
        ("listing", frozenset()),
        ("listing", frozenset()),
    ]
)
def test_no_listed_posting_closes_or_stays_missing_on_any_platform(
    app, sandbox, tmp_path: Path, name: str, sequence
) -> None:
    sources = tmp_path / f"{name}.yaml"
    _write_one_board(sources, name, present=True)
    test_app = App.create(
        settings=app.settings.model_copy(update={"sources_file": sources, "http_timeout_s": 0.5})
    )
    sync_catalog(test_app)
    board = _learn_board(test_app, sandbox, name)
    _reset(test_app)
    discover(test_app, name, force=True)  # the baseline: everything listed, all active
    present = True
    for kind, arg in sequence:
        if kind in ("remove", "readd"):
            present = kind == "readd"
            _write_one_board(sources, name, present=present)
            test_app = App.create(settings=test_app.settings)
            sync_catalog(test_app)
            continue
        if kind == "check":
            _check_step(test_app, sandbox, board, name, arg)
        else:
            stuck = _listing_step(test_app, sandbox, board, name, kind, arg, present=present)
            assert not stuck, (name, sequence, kind, arg, stuck)
        closed = {
            ext: (r["status"], r["close_reason"])
            for ext, r in _status_rows(test_app).items()
            if r["status"] not in ("active", "missing")
        }
        assert not closed, (name, sequence, kind, arg, closed)


def _check_step(test_app: App, sandbox, board: _Board, name: str, fault: str) -> None:
    spec = POSTING_FAULTS[fault]
    _set_fault(sandbox, board.platform, board.token, {**spec, "on": "postings"} if spec else None)
    check_postings(test_app, name, recheck_after_s=0)
    _set_fault(sandbox, board.platform, board.token, None)


def _listing_step(
    test_app: App, sandbox, board: _Board, name: str, kind: str, arg, *, present: bool
) -> dict[str, str]:
    """One discover with the listing as the step says; after a complete, non-probe scan
    of the board, the postings it listed that are not `active` (must be none)."""
    omit = {board.job_ids[i] for i in arg if i < len(board.job_ids)} if kind == "listing" else set()
    spec = {"omit": sorted(omit), "on": "listing"} if omit else LISTING_FAULTS.get(arg)
    _set_fault(sandbox, board.platform, board.token, spec if kind == "fault" or omit else None)
    report = discover(test_app, name, force=True)
    _set_fault(sandbox, board.platform, board.token, None)
    scan = _last_scan(test_app, report.run_id) if present else None
    complete = (
        scan is not None
        and scan["outcome"] in ("changed", "unchanged", "not_modified")
        and scan["complete"]
        and not scan["truncated"]
        and not scan["probe"]
    )
    if not complete:
        return {}
    rows = _status_rows(test_app)
    listed = {board.external_ids[i] for i, job in enumerate(board.job_ids) if job not in omit}
    return {ext: rows[ext]["status"] for ext in listed if rows[ext]["status"] != "active"}
