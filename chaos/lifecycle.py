"""A chaos run of the lifecycle: sandbox boards of every platform, random faults for
M cycles, then K calm cycles, through the real discover, fetch, parse and check.

What it measures (docs/reliability.md §2; the fault suite of `make chaos` grows it):

- `wrongful_closes`: postings closed by a direct check while the sandbox world still
  had them (judged in the cycle of the close, before the world moves on);
- `stuck_missing`: postings `missing` at the end although the board lists them (the
  calm cycles gave every board complete listings);
- `cooldown_violations`: requests the sandbox received to a host inside a cooldown it
  had asked for (a 429/503 with Retry-After), from the sandbox's own request log;
- `event_postings_open`: after the second cycle's events (a board emptied for real
  through the sandbox's removal, a count-probed board's swap that keeps its count),
  postings those events removed that are still open at the end. Event boards get no
  faults, so each must close on evidence within the run.

The world is the sandbox's: boards change between cycles (`advance`: one posting
closes, one changes, one opens), so real closes happen too and are counted apart.
Use `run_chaos(app, InProcess(sandbox) or OverHttp(url), ChaosConfig(...))`;
`bench/chaos_lifecycle.py` is the command-line wrapper (its own PostgreSQL, and the
sandbox in its own process so request arrival times are not skewed by our GIL).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx

from pipeline.app import App
from pipeline.phases.check import check_postings
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.progress import Progress
from sandbox.faults import Fault
from sandbox.server import ROUTES, RunningSandbox
from sandbox.world import Job, build_board, job_uuid

CLOSED = ("not_found", "expired")
CLOUDFLARE = (
    "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>"
    "<div id='cf-browser-verification'>Checking your browser</div>" + "x" * 200 + "</body></html>"
)
LOGIN = "/scenarios-login"


@dataclass(frozen=True)
class ChaosConfig:
    cycles: int = 10  # with faults
    calm_cycles: int = 3  # without
    fault_rate: float = 0.5  # share of boards given a fault in a chaos cycle
    # A partial listing (live postings omitted, the total matching) stays on its board
    # this many cycles: long enough for them to go `missing` and meet the direct check.
    sticky_cycles: int = 3
    change_rate: float = 0.2  # share of boards the employer changes per cycle
    retry_after_s: int = 1  # Retry-After on 429 / 503 (a 503 without one cools 30 s)
    timeout_s: float = 0.5  # the app's HTTP timeout; "timeout" faults answer later
    in_flight_grace_s: float = 0.25  # requests already sent when a 429 was answered
    seed: int = 9
    # Fault kinds ("listing:reset", "postings:429-date", ...) given to the first boards
    # in the first cycle, one each, before the random ones: a short run has each once.
    first_faults: tuple[str, ...] = ()
    # Events at the start of the second cycle, on the first board of each source named:
    # every posting removed for real (`POST /_sandbox/remove`: the listing is empty and
    # each page answers its platform's closed signal), and one step of the world on a
    # count-probed board (one posting closes, one opens: the count stays).
    emptied_sources: tuple[str, ...] = ("greenhouse",)
    swapped_sources: tuple[str, ...] = ("workday",)


# Faults on the listing (`on: listing`) and on the postings' own pages (`on: postings`).
def _listing_fault(kind: str, config: ChaosConfig, jobs: tuple[Job, ...], rng: random.Random):
    ra = str(config.retry_after_s)
    specs: dict[str, dict[str, Any]] = {
        "429": {"status": 429, "body": "slow down", "retry_after": ra},
        # An HTTP date one second further (dates have whole seconds: a 1 to 2 s wait).
        "429-date": {"status": 429, "body": "slow down", "retry_after_date_s": int(ra) + 1},
        "503": {"status": 503, "body": "maintenance", "retry_after": ra},
        # The real listing's head and half its body, then a TCP reset / a plain close.
        "reset": {"wire": "reset"},
        "truncated": {"wire": "truncate"},
        "empty": {"omit": [j.job_id for j in jobs]},
        "partial": {"omit": [j.job_id for j in rng.sample(jobs, max(1, len(jobs) // 3))]},
        "block": {"status": 200, "body": CLOUDFLARE, "content_type": "text/html"},
        "timeout": {"delay_s": config.timeout_s * 2},
        "login": {"redirect": LOGIN},
        # The same jobs in a new order, with new nonces, clocks and relative dates.
        "shuffled": {"shuffle": True, "restamp": True},
        "malformed-json": {
            "status": 200,
            "body": '{"jobs": [{"id": 1, "title": ',
            "content_type": "application/json",
        },
        "wrong-type": {
            "status": 200,
            "body": "<html><body>jobs</body></html>",
            "content_type": "application/json",
        },
        # Another host (nothing listens there) and a private address (the tests let the
        # crawler reach private networks: it must still not take the answer as ours).
        "redirect-foreign": {"redirect": "http://127.0.0.3:9/jobs"},
        "redirect-private": {"redirect": "http://10.255.255.1/jobs"},
    }
    return {**specs[kind], "on": "listing"}


def _posting_fault(kind: str, config: ChaosConfig) -> dict[str, Any]:
    ra = str(config.retry_after_s)
    specs: dict[str, dict[str, Any]] = {
        "401": {"status": 401, "body": "<h1>Please sign in</h1>", "content_type": "text/html"},
        "403": {"status": 403, "body": "<h1>Access denied</h1>", "content_type": "text/html"},
        "429": {"status": 429, "body": "slow down", "retry_after": ra},
        "429-date": {"status": 429, "body": "slow down", "retry_after_date_s": int(ra) + 1},
        "500": {"status": 500, "body": "oops"},
        "reset": {"wire": "reset"},
        "truncated": {"wire": "truncate"},
        "soft-404": {
            "status": 200,
            "content_type": "text/html",
            "body": "<html><head><title>Search jobs</title></head><body><h1>Search jobs</h1>"
            "<ul><li><a href='/jobs/1'>Other job</a></li></ul></body></html>",
        },
        "timeout": {"delay_s": config.timeout_s * 2},
        "login": {"redirect": LOGIN},
    }
    return {**specs[kind], "on": "postings"}


LISTING_FAULTS = (
    "429",
    "429-date",
    "503",
    "reset",
    "truncated",
    "empty",
    "partial",
    "block",
    "timeout",
    "login",
    "shuffled",
    "malformed-json",
    "wrong-type",
    "redirect-foreign",
    "redirect-private",
)
POSTING_FAULTS = (
    "401",
    "403",
    "429",
    "429-date",
    "500",
    "soft-404",
    "timeout",
    "login",
    "reset",
    "truncated",
)
# Wire and date faults of the fault suite (the short form in `make test` forces each once).
WIRE_AND_DATE_FAULTS = tuple(
    f"{scope}:{kind}"
    for scope in ("listing", "postings")
    for kind in ("429-date", "reset", "truncated")
)


@dataclass(frozen=True)
class LoggedRequest:
    at: float  # the sandbox's monotonic clock at arrival
    path: str
    status: int | None
    cooldown_until: float | None = None  # the end of the wait its Retry-After asked for


class SandboxControl(Protocol):
    """What the run needs from the sandbox: change the world, set faults, read the
    world and the request log."""

    def advance(self, platform: str, token: str) -> None: ...
    def remove(self, platform: str, token: str) -> None: ...
    def set_fault(self, platform: str, token: str, spec: dict[str, Any] | None) -> None: ...
    def jobs(self, platform: str, token: str) -> tuple[Job, ...]: ...
    def requests(self, since: float = 0.0) -> list[LoggedRequest]: ...


@dataclass(frozen=True)
class InProcess:
    """A sandbox started in this process (the tests' fixture)."""

    sandbox: RunningSandbox

    def advance(self, platform: str, token: str) -> None:
        self.sandbox.state.advance(platform, token)

    def remove(self, platform: str, token: str) -> None:
        self.sandbox.state.remove(platform, token, None)

    def set_fault(self, platform: str, token: str, spec: dict[str, Any] | None) -> None:
        fault = Fault.from_dict(spec) if spec else None
        self.sandbox.state.set_fault(platform, token, fault)

    def jobs(self, platform: str, token: str) -> tuple[Job, ...]:
        return self.sandbox.state.board(platform, token).jobs

    def requests(self, since: float = 0.0) -> list[LoggedRequest]:
        return [
            LoggedRequest(e.at, e.path, e.status, e.cooldown_until)
            for e in self.sandbox.state.requests(since=since)
        ]


class OverHttp:
    """A sandbox in another process, through its admin API (`/_sandbox/...`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx.Client(base_url=url, timeout=60)
        self.seed = int(self.client.get("/_sandbox/state").json()["seed"])
        self.revisions: dict[tuple[str, str], int] = {}
        self.emptied: set[tuple[str, str]] = set()

    def advance(self, platform: str, token: str) -> None:
        answer = self.client.post(
            "/_sandbox/advance", params={"platform": platform, "token": token}
        )
        self.revisions[(platform, token)] = int(answer.raise_for_status().json()["revision"])

    def remove(self, platform: str, token: str) -> None:
        self.client.post(
            "/_sandbox/remove", params={"platform": platform, "token": token}
        ).raise_for_status()
        self.emptied.add((platform, token))

    def set_fault(self, platform: str, token: str, spec: dict[str, Any] | None) -> None:
        body = json.dumps(spec) if spec else b""
        self.client.post(
            "/_sandbox/fault", params={"platform": platform, "token": token}, content=body
        ).raise_for_status()

    def jobs(self, platform: str, token: str) -> tuple[Job, ...]:
        if (platform, token) in self.emptied:
            return ()
        revision = self.revisions.get((platform, token), 0)
        return build_board(self.seed, platform, token, revision).jobs

    def requests(self, since: float = 0.0) -> list[LoggedRequest]:
        answer = self.client.get("/_sandbox/log", params={"since": since}).raise_for_status()
        return [
            LoggedRequest(e["at"], e["path"], e["status"], e.get("cooldown_until"))
            for e in answer.json()["requests"]
        ]


@dataclass(frozen=True)
class SandboxBoard:
    """A crawl.boards row and the sandbox board (platform key, token) it reads."""

    board_id: int
    source_id: str
    board_key: str
    platform: str
    token: str


def sandbox_key(url: str) -> tuple[str, str]:
    """The sandbox (platform, token) a listing URL reaches, from the sandbox's routes."""
    path = urlsplit(url).path
    for route in ROUTES:
        match = route.pattern.fullmatch(path)
        if match and route.platform and match.groupdict().get("token"):
            return route.platform, match["token"]
    raise ValueError(f"no sandbox board answers {url}")


def job_keys(job: Job) -> set[str]:
    """Every id a platform's listing can give this sandbox job (its external id is one)."""
    from sandbox.formats.breezy import friendly_id, position_id
    from sandbox.formats.icims import job_id as icims_id
    from sandbox.formats.jazzhr import board_code as jazz_id
    from sandbox.formats.jobvite import job_code
    from sandbox.formats.recruitee import offer_slug
    from sandbox.formats.successfactors import req_id as sf_req_id
    from sandbox.formats.workable import shortcode
    from sandbox.formats.workday import req_id

    # Several formats shorten the id to its last digits (teamtailor 10**7, personio and
    # the job sites 10**6 ...): every such suffix names the same job within its board.
    suffixes = {str(job.job_id % 10**k) for k in range(5, 12)}
    named = {job_uuid(job), req_id(job), shortcode(job), offer_slug(job), icims_id(job)}
    named |= {position_id(job), friendly_id(job), job_code(job), sf_req_id(job)}
    # JazzHR's feed id carries the posting time and the board code.
    jazz = {jazz_id(job), f"job_{job.posted_at:%Y%m%d%H%M%S}_{jazz_id(job).upper()}"}
    return {str(job.job_id), *named, *jazz, *suffixes}


@dataclass
class ChaosReport:
    cycles: int = 0
    boards: int = 0
    platforms: tuple[str, ...] = ()
    faults: Counter[str] = field(default_factory=Counter)
    changes: int = 0
    closes: int = 0
    rightful_closes: int = 0
    wrongful: list[dict[str, Any]] = field(default_factory=list)
    reopened: int = 0
    stuck: list[dict[str, Any]] = field(default_factory=list)
    requests: int = 0
    cooldowns: int = 0
    violations: list[dict[str, Any]] = field(default_factory=list)
    resume_after_cooldown_ms: list[float] = field(default_factory=list)
    lost: list[dict[str, Any]] = field(default_factory=list)
    missed: list[dict[str, Any]] = field(default_factory=list)
    events: Counter[str] = field(default_factory=Counter)
    event_removed: int = 0  # postings the events took off their boards
    event_open: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        resume = sorted(self.resume_after_cooldown_ms)
        return {
            "boards": self.boards,
            "platforms": len(self.platforms),
            "cycles": self.cycles,
            "faults": sum(self.faults.values()),
            "closes": self.closes,
            "rightful_closes": self.rightful_closes,
            "reopened": self.reopened,
            "requests": self.requests,
            "cooldowns": self.cooldowns,
            "first_request_after_cooldown_ms": [round(resume[0], 1), round(resume[-1], 1)]
            if resume
            else None,
            "wrongful_closes": len(self.wrongful),
            "wrongful_by_source": dict(Counter(w["source"] for w in self.wrongful)),
            "stuck_missing": len(self.stuck),
            "stuck_by_source": dict(Counter(s["source"] for s in self.stuck)),
            "cooldown_violations": len(self.violations),
            "postings_lost": len(self.lost),
            "missed_closes": len(self.missed),
            "events": dict(sorted(self.events.items())),
            "event_postings_removed": self.event_removed,
            "event_postings_open": len(self.event_open),
        }


# ---------------------------------------------------------------- the run


Plan = dict[SandboxBoard, list[tuple[str, dict[str, Any]]]]


def run_chaos(app: App, sandbox: SandboxControl, config: ChaosConfig) -> ChaosReport:
    """M chaos cycles then K calm ones over every enabled board; see the module doc."""
    rng = random.Random(config.seed)
    boards = enabled_boards(app)
    report = ChaosReport(boards=len(boards))
    report.platforms = tuple(sorted({b.platform for b in boards}))
    log_start = _log_end(sandbox)
    sticky: dict[SandboxBoard, tuple[dict[str, Any], int]] = {}
    world = WorldLog()
    events = _event_boards(boards, config)
    removed: dict[SandboxBoard, list[Job]] = {}
    progress = Progress("chaos cycles", config.cycles + config.calm_cycles)
    for cycle in range(config.cycles + config.calm_cycles):
        if cycle:
            report.changes += _change_world(sandbox, boards, rng, config.change_rate)
        if cycle == 1:
            removed = _events(sandbox, events, report)
        # The event boards are the control: no fault ever touches them.
        faulty = [b for b in boards if b not in events]
        forced = _forced(faulty, config) if cycle == 0 else {}
        plan = _plan(faulty, sandbox, rng, config, sticky, forced) if cycle < config.cycles else {}
        report.faults.update(kind for faults in plan.values() for kind, _ in faults)
        world.observe(sandbox, boards, plan)
        last_scan = _last_scan_id(app)
        check_runs = _cycle(app, sandbox, boards, plan)
        world.served_by(_complete_scans(app, last_scan))
        _judge_closes(app, sandbox, boards, check_runs, report)
        report.cycles += 1
        progress.advance()
    report.reopened = _count_reopened(app)
    report.stuck = stuck_missing(app, sandbox, boards)
    report.lost, report.missed = world.judge(app, boards)
    report.event_open = _still_open(app, removed)
    _judge_cooldowns(sandbox.requests(since=log_start), config, report)
    return report


def _event_boards(boards: list[SandboxBoard], config: ChaosConfig) -> dict[SandboxBoard, str]:
    """The first board of each source named for an event, and its event."""
    chosen: dict[SandboxBoard, str] = {}
    for event, sources in (("emptied", config.emptied_sources), ("swap", config.swapped_sources)):
        for source in sources:
            board = next((b for b in boards if b.source_id == source and b not in chosen), None)
            if board is not None:
                chosen[board] = event
    return chosen


def _events(
    sandbox: SandboxControl, events: dict[SandboxBoard, str], report: ChaosReport
) -> dict[SandboxBoard, list[Job]]:
    """Apply the events; the jobs each took off its board."""
    removed: dict[SandboxBoard, list[Job]] = {}
    for board, event in events.items():
        before = {j.job_id: j for j in sandbox.jobs(board.platform, board.token)}
        if event == "emptied":
            sandbox.remove(board.platform, board.token)
            report.events["board emptied for real"] += 1
        else:
            sandbox.advance(board.platform, board.token)
            report.events["count-probe swap"] += 1
        after = {j.job_id for j in sandbox.jobs(board.platform, board.token)}
        removed[board] = [job for job_id, job in before.items() if job_id not in after]
        report.event_removed += len(removed[board])
    return removed


def _still_open(app: App, removed: dict[SandboxBoard, list[Job]]) -> list[dict[str, Any]]:
    """Postings an event removed that are still active or missing at the end."""
    with app.db.connect() as conn:
        rows = conn.execute(
            "SELECT board_id, external_id, status, check_outcome FROM core.postings"
            " WHERE status = ANY(%s)",
            (list(OPEN),),
        ).fetchall()
    open_keys = {(r["board_id"], r["external_id"]): r for r in rows}
    found = []
    for board, jobs in removed.items():
        for job in jobs:
            keys = [(board.board_id, k) for k in job_keys(job)]
            for row in (open_keys[k] for k in keys if k in open_keys):
                found.append(
                    {
                        "source": board.source_id,
                        "board": board.board_key,
                        "external_id": row["external_id"],
                        "status": row["status"],
                        "check_outcome": row["check_outcome"],
                    }
                )
    return found


def enabled_boards(app: App) -> list[SandboxBoard]:
    with app.db.connect() as conn:
        rows = conn.execute(
            "SELECT id, source_id, board_key, url FROM crawl.boards WHERE enabled ORDER BY id"
        ).fetchall()
    return [
        SandboxBoard(r["id"], r["source_id"], r["board_key"], *sandbox_key(r["url"])) for r in rows
    ]


def _log_end(sandbox: SandboxControl) -> float:
    entries = sandbox.requests()
    return entries[-1].at if entries else 0.0


def _change_world(
    sandbox: SandboxControl, boards: list[SandboxBoard], rng: random.Random, rate: float
) -> int:
    changed = [b for b in boards if rng.random() < rate]
    for board in changed:  # one posting closes, one changes, one opens
        sandbox.advance(board.platform, board.token)
    return len(changed)


def _forced(boards: list[SandboxBoard], config: ChaosConfig) -> dict[SandboxBoard, str]:
    """`first_faults`, one per board, in board order (a listing and a posting fault may
    share a board: they are separate kinds of requests)."""
    forced: dict[SandboxBoard, str] = {}
    for n, kind in enumerate(config.first_faults):
        forced[boards[n % len(boards)]] = kind
    return forced


def _plan(
    boards: list[SandboxBoard],
    sandbox: SandboxControl,
    rng: random.Random,
    config: ChaosConfig,
    sticky: dict[SandboxBoard, tuple[dict[str, Any], int]],
    forced: dict[SandboxBoard, str],
) -> Plan:
    """Faults per board for one cycle: at most one on its listing (a partial listing
    sticks for `sticky_cycles`), at most one on its postings' pages; a forced kind
    takes its scope's place."""
    plan: Plan = {}
    for board in boards:
        faults = []
        scope, _, must = forced.get(board, "").partition(":")
        if board in sticky:
            spec, left = sticky.pop(board)
            faults.append(("listing:partial", spec))
            if left > 1:
                sticky[board] = (spec, left - 1)
        elif scope == "listing" or rng.random() < config.fault_rate / 2:
            kind = must if scope == "listing" else rng.choice(LISTING_FAULTS)
            spec = _listing_fault(kind, config, sandbox.jobs(board.platform, board.token), rng)
            faults.append((f"listing:{kind}", spec))
            if kind == "partial" and config.sticky_cycles > 1:
                sticky[board] = (spec, config.sticky_cycles - 1)
        if scope == "postings" or rng.random() < config.fault_rate / 2:
            kind = must if scope == "postings" else rng.choice(POSTING_FAULTS)
            faults.append((f"postings:{kind}", _posting_fault(kind, config)))
        if faults:
            plan[board] = faults
    return plan


def _cycle(
    app: App,
    sandbox: SandboxControl,
    boards: list[SandboxBoard],
    plan: Plan,
) -> list[int]:
    """discover (listing faults on), then fetch, parse and check (posting faults on).
    Returns the check runs' ids."""
    _set_faults(sandbox, plan, "listing")
    discover(app, None, force=True)
    _set_faults(sandbox, {}, "listing", boards)
    _set_faults(sandbox, plan, "postings")
    runs = []
    for name in app.source_names():
        fetch_details(app, name)
        parse_source(app, name)
        run_id = check_postings(app, name, recheck_after_s=0).run_id
        if run_id is not None:
            runs.append(run_id)
    _set_faults(sandbox, {}, "postings", boards)
    return runs


def _set_faults(
    sandbox: SandboxControl, plan: Plan, scope: str, clear: Iterable[SandboxBoard] = ()
) -> None:
    for board in clear:
        sandbox.set_fault(board.platform, board.token, None)
    for board, faults in plan.items():
        for _, spec in faults:
            if spec["on"] == scope:
                sandbox.set_fault(board.platform, board.token, spec)


def listed_keys(sandbox: SandboxControl, board: SandboxBoard) -> set[str]:
    """Every id the sandbox world's board lists now, as any platform would name it."""
    jobs = sandbox.jobs(board.platform, board.token)
    return set().union(*(job_keys(job) for job in jobs)) if jobs else set()


_CLOSES = """
SELECT e.posting_id, e.to_status, e.reason, p.external_id, p.board_id, p.source_id
FROM core.posting_events AS e JOIN core.postings AS p ON p.id = e.posting_id
WHERE e.run_id = ANY(%s) AND e.to_status = ANY(%s)
"""


def _judge_closes(
    app: App,
    sandbox: SandboxControl,
    boards: list[SandboxBoard],
    check_runs: list[int],
    report: ChaosReport,
) -> None:
    """Closes of this cycle against the world of this cycle (before it moves on)."""
    by_id = {b.board_id: b for b in boards}
    with app.db.connect() as conn:
        rows = conn.execute(_CLOSES, (check_runs, list(CLOSED))).fetchall()
    for row in rows:
        report.closes += 1
        board = by_id.get(row["board_id"])
        if board is not None and row["external_id"] in listed_keys(sandbox, board):
            report.wrongful.append(
                {
                    "source": row["source_id"],
                    "external_id": row["external_id"],
                    "reason": row["reason"],
                    "cycle": report.cycles,
                }
            )
        else:
            report.rightful_closes += 1


def stuck_missing(
    app: App, sandbox: SandboxControl, boards: list[SandboxBoard]
) -> list[dict[str, Any]]:
    """Postings `missing` although their (enabled) board lists them."""
    with app.db.connect() as conn:
        rows = conn.execute(
            "SELECT external_id, board_id, source_id FROM core.postings WHERE status = 'missing'"
        ).fetchall()
    by_id = {b.board_id: b for b in boards}
    return [
        {"source": r["source_id"], "external_id": r["external_id"]}
        for r in rows
        if r["board_id"] in by_id and r["external_id"] in listed_keys(sandbox, by_id[r["board_id"]])
    ]


def _count_reopened(app: App) -> int:
    with app.db.connect() as conn:
        row = conn.execute(
            "SELECT count(*) AS n FROM core.posting_events WHERE reason = 'seen_again'"
        ).fetchone()
    return int(row["n"])


def _judge_cooldowns(entries: list[Any], config: ChaosConfig, report: ChaosReport) -> None:
    """Every 429/503 we answered asked for a wait (the sandbox logs its end, from
    Retry-After as seconds or as an HTTP date; else `retry_after_s`): the sandbox (one
    host) must receive nothing in [answer + in-flight grace, the end of that wait)."""
    entries = sorted(
        (e for e in entries if not e.path.startswith("/_sandbox/")), key=lambda e: e.at
    )
    report.requests = len(entries)
    asked = [e for e in entries if e.status in (429, 503)]
    report.cooldowns = len(asked)
    until = {id(c): c.cooldown_until or c.at + config.retry_after_s for c in asked}
    for entry in entries:
        cause = next(
            (c for c in asked if c.at + config.in_flight_grace_s <= entry.at < until[id(c)]),
            None,
        )
        if cause is not None:
            report.violations.append(
                {
                    "path": entry.path,
                    "after_ms": round((entry.at - cause.at) * 1000, 1),
                    "cooldown_from": cause.path,
                    "status": cause.status,
                }
            )
    ends = [until[id(c)] for c in asked]
    for end in ends:
        if any(c.at <= end < e for c, e in zip(asked, ends, strict=True) if e != end):
            continue  # inside a later cooldown: not its end
        after = next((e.at for e in entries if e.at >= end), None)
        if after is not None:
            report.resume_after_cooldown_ms.append((after - end) * 1000)


# ---------------------------------------------------------------- lost postings, missed closes

MISSED_AFTER_CLEAN_CYCLES = 3
OPEN = ("active", "missing")


@dataclass
class WorldLog:
    """What the sandbox world listed, cycle by cycle, for the end-of-run judgments:

    - `postings_lost`: a job listed by a board in a cycle whose listing had no fault
      and was read completely (a complete scan in crawl.scans: not deferred by a
      cooldown, no page missing), with no posting stored for it;
    - `missed_closes`: a job gone from its board for at least 3 cycles in which the
      board had no fault at all, whose posting is still open (active or missing).
    """

    served: dict[SandboxBoard, dict[int, Job]] = field(default_factory=dict)
    current: dict[tuple[str, str], tuple[SandboxBoard, dict[int, Job]]] = field(
        default_factory=dict
    )
    previous: dict[SandboxBoard, dict[int, Job]] = field(default_factory=dict)
    removed: dict[tuple[SandboxBoard, int], tuple[Job, int]] = field(default_factory=dict)
    clean: dict[SandboxBoard, list[int]] = field(default_factory=dict)
    cycle: int = 0

    def observe(self, sandbox: SandboxControl, boards: list[SandboxBoard], plan: Plan) -> None:
        for board in boards:
            jobs = {job.job_id: job for job in sandbox.jobs(board.platform, board.token)}
            faults = [kind for kind, _ in plan.get(board, [])]
            if not any(kind.startswith("listing:") for kind in faults):
                self.current[(board.platform, board.token)] = (board, jobs)
            if not faults:
                self.clean.setdefault(board, []).append(self.cycle)
            for job_id, job in self.previous.get(board, {}).items():
                if job_id not in jobs:
                    self.removed.setdefault((board, job_id), (job, self.cycle))
            for job_id in jobs:  # reopened: no longer a removal to judge
                self.removed.pop((board, job_id), None)
            self.previous[board] = jobs
        self.cycle += 1

    def served_by(self, complete_board_ids: set[int]) -> None:
        """Boards whose listing was read completely this cycle (a complete scan, with no
        listing fault) served the crawler every job they listed."""
        for board, jobs in self.current.values():
            if board.board_id in complete_board_ids:
                self.served.setdefault(board, {}).update(jobs)
        self.current.clear()

    def judge(
        self, app: App, boards: list[SandboxBoard]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        with app.db.connect() as conn:
            rows = conn.execute(
                "SELECT board_id, external_id, status, check_outcome, check_count, missing_count"
                " FROM core.postings"
            ).fetchall()
        stored = {(r["board_id"], r["external_id"]): r["status"] for r in rows}
        why = {(r["board_id"], r["external_id"]): r for r in rows}
        lost = [
            {"source": b.source_id, "board": b.board_key, "job_id": job_id}
            for b, jobs in self.served.items()
            for job_id, job in jobs.items()
            if not any((b.board_id, key) in stored for key in job_keys(job))
        ]
        missed = []
        for (board, job_id), (job, removed_at) in self.removed.items():
            clean_after = [c for c in self.clean.get(board, []) if c >= removed_at]
            statuses = [
                stored[(board.board_id, k)] for k in job_keys(job) if (board.board_id, k) in stored
            ]
            if len(clean_after) >= MISSED_AFTER_CLEAN_CYCLES and any(s in OPEN for s in statuses):
                missed.append(
                    {
                        "source": board.source_id,
                        "board": board.board_key,
                        "job_id": job_id,
                        "status": statuses,
                        "removed_in_cycle": removed_at,
                        "clean_cycles_since": len(clean_after),
                        # Why it is still open: what the direct check last said, how often.
                        "checks": [
                            {
                                k: why[(board.board_id, key)][k]
                                for k in ("check_outcome", "check_count", "missing_count")
                            }
                            for key in job_keys(job)
                            if (board.board_id, key) in why
                        ],
                    }
                )
        return lost, missed


def _last_scan_id(app: App) -> int:
    with app.db.connect() as conn:
        row = conn.execute("SELECT coalesce(max(id), 0) AS n FROM crawl.scans").fetchone()
    return int(row["n"])


def _complete_scans(app: App, after_id: int) -> set[int]:
    with app.db.connect() as conn:
        rows = conn.execute(
            "SELECT board_id FROM crawl.scans WHERE id > %s AND complete", (after_id,)
        ).fetchall()
    return {int(r["board_id"]) for r in rows}
