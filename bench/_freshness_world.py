"""The simulated job web for bench/freshness.py: boards, postings and failure noise.

Everything here is the world, not the crawler: which postings exist when, what a
request to a board or a posting's page would answer. It is generated once per run
from a seed and shared by every policy, so policies differ only in when they ask.

Each board's listing changes as a Poisson process with its own rate (changes per
day): new postings, postings closing (each posting lives an exponential lifetime),
and row edits that change the listing without changing its membership. Rates are
heavy-tailed: per platform a share of boards never changes, the rest are
log-normal. The defaults are calibrated on the seed write-up (a crawler that polled
each of its boards about once a day: 802K polls a week over 112K boards): polled
daily, 44% of all polls end "unchanged" (a full read, nothing new, on platforms
without validators) and Lever boards answer 304 on 91% of polls.
`calibration()` recomputes both figures from a mix.

Workday boards are count-probed as discover probes them: pages of 20 rows, one page
when its total is the last full read's, every page otherwise (each page a request).

Noise: 429s with a Retry-After (the whole host cools down), 5xx, empty and partial
listings, board outages (every request fails for hours), and live postings that a
listing hides for a while although their own page stays up (the trap that makes
"absence is not evidence" necessary).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

DAY_S = 86400.0

OPEN, CLOSE, EDIT, HIDE, SHOW = range(5)


@dataclass(frozen=True)
class PlatformMix:
    """One platform's share of the boards and how often its boards change."""

    name: str
    share: float  # of all boards
    etag: bool  # answers 304 to a conditional request (else a quiet read is "unchanged")
    hosts: int  # hosts (pacing keys) its boards are spread over
    never: float  # share of its boards that never change
    median_per_day: float  # log-normal rate of listing changes, the rest of its boards
    sigma: float  # log-normal spread: 2 means the top 1% change ~100x the median
    # Count-probed (Workday): the listing comes in pages of this many rows and a poll
    # may stop after the first page when its total is the last full read's; 0: the
    # platform answers in one response.
    probe_page: int = 0


# Calibrated with calibration(): see the module docstring.
DEFAULT_MIX: tuple[PlatformMix, ...] = (
    PlatformMix("lever", 0.25, True, 1, 0.30, 0.06, 1.5),
    PlatformMix("greenhouse", 0.35, False, 1, 0.10, 0.45, 2.0),
    PlatformMix("workday", 0.15, False, 4, 0.10, 0.45, 2.0, probe_page=20),
    PlatformMix("ashby", 0.10, False, 1, 0.10, 0.45, 2.0),
    PlatformMix("smartrecruiters", 0.10, False, 1, 0.10, 0.45, 2.0),
    PlatformMix("html", 0.05, False, 50, 0.10, 0.45, 2.0),
)


@dataclass(frozen=True)
class Noise:
    """How often requests go wrong, per request unless said otherwise."""

    rate_limited: float = 0.01  # 429 with Retry-After: the host cools down
    retry_after_s: tuple[int, int] = (30, 300)
    server_error: float = 0.015  # 5xx: the board backs off
    empty: float = 0.005  # an empty listing (proves nothing)
    partial: float = 0.02  # a partial listing (can add postings, never retire them)
    partial_rows: float = 0.6  # share of rows a partial listing shows
    outage_boards: float = 0.02  # boards with one outage in the week ...
    outage_hours: tuple[float, float] = (2.0, 24.0)  # ... this long, every request fails
    hidden: float = 0.01  # postings a listing hides for a while, page still live
    hidden_hours: tuple[float, float] = (1.0, 48.0)
    # What a closed posting's own page answers: (kind, weight). Kinds are in
    # CLOSED_KINDS / LIVE_KINDS of the simulation; ambiguous ones are checked again.
    # A closed page's kind is the posting's for good; on top of it any check may hit a
    # passing 503 (`check_unavailable`).
    closed_pages: tuple[tuple[str, float], ...] = (
        ("http_404", 0.75),
        ("redirect_to_board", 0.10),
        ("closed_banner", 0.10),
        ("login_wall", 0.03),
        ("search_page", 0.02),
    )
    check_unavailable: float = 0.05
    live_pages: tuple[tuple[str, float], ...] = (
        ("posting_page", 0.90),
        ("login_wall", 0.05),
        ("search_page", 0.05),
    )


@dataclass(frozen=True)
class WorldConfig:
    boards: int = 1000
    days: float = 7.0
    seed: int = 16
    mix: tuple[PlatformMix, ...] = DEFAULT_MIX
    noise: Noise = field(default_factory=Noise)
    lifetime_days: float = 30.0  # mean life of a posting
    open_share: float = 0.35  # of a board's listing changes, new postings (as many close)
    max_postings: int = 3000  # per board at the start
    min_postings: int = 1  # a board lists at least this many at the start (evergreen roles)


@dataclass
class Board:
    index: int
    platform: str
    host: int
    etag: bool
    rate_per_day: float
    initial: list[int]  # postings open (and listed) at t = 0
    events: list[tuple[float, int, int]]  # (t, kind, posting), sorted by t
    outage: tuple[float, float] | None
    probe_page: int = 0  # PlatformMix.probe_page


@dataclass
class World:
    config: WorldConfig
    boards: list[Board]
    hosts: list[str]  # host index -> name
    opened_at: dict[int, float]  # posting -> when it opened (negative: before t = 0)
    closed_at: dict[int, float]  # posting -> when it closed, for those that did
    page_kind: dict[int, str]  # posting -> what its page answers once closed
    rng_seed: int

    @property
    def duration_s(self) -> float:
        return self.config.days * DAY_S


def _lognormal_rate(rng: random.Random, p: PlatformMix) -> float:
    if rng.random() < p.never:
        return 0.0
    return p.median_per_day * math.exp(rng.gauss(0.0, p.sigma))


def _weighted(rng: random.Random, options: tuple[tuple[str, float], ...]) -> str:
    pick, acc = rng.random() * sum(w for _, w in options), 0.0
    for kind, weight in options:
        acc += weight
        if pick < acc:
            return kind
    return options[-1][0]


def build_world(config: WorldConfig) -> World:
    rng = random.Random(config.seed)
    hosts: list[str] = []
    host_base: dict[str, int] = {}
    for p in config.mix:
        host_base[p.name] = len(hosts)
        hosts += [p.name if p.hosts == 1 else f"{p.name}-{i}" for i in range(p.hosts)]
    world = World(config, [], hosts, {}, {}, {}, config.seed)
    weights = [p.share for p in config.mix]
    for index in range(config.boards):
        platform = rng.choices(config.mix, weights)[0]
        host = host_base[platform.name] + rng.randrange(platform.hosts)
        world.boards.append(_board(world, rng, index, platform, host))
    return world


def _board(world: World, rng: random.Random, index: int, p: PlatformMix, host: int) -> Board:
    cfg, noise = world.config, world.config.noise
    horizon = cfg.days * DAY_S
    rate = _lognormal_rate(rng, p)
    open_rate = rate * cfg.open_share / DAY_S  # per second
    edit_rate = rate * max(0.0, 1.0 - 2 * cfg.open_share) / DAY_S
    life_s = cfg.lifetime_days * DAY_S
    n0 = min(max(_poisson(rng, open_rate * life_s), cfg.min_postings), cfg.max_postings)
    events: list[tuple[float, int, int]] = []
    initial = []
    for _ in range(n0):
        pid = _new_posting(world, rng, -rng.random() * life_s)
        initial.append(pid)
        if rate > 0:  # a board that never changes keeps its evergreen roles
            _life(world, rng, events, pid, 0.0, life_s, horizon)
    t = 0.0
    while open_rate > 0:
        t += rng.expovariate(open_rate)
        if t >= horizon:
            break
        pid = _new_posting(world, rng, t)
        events.append((t, OPEN, pid))
        _life(world, rng, events, pid, t, life_s, horizon)
    t = 0.0
    while edit_rate > 0:
        t += rng.expovariate(edit_rate)
        if t >= horizon:
            break
        events.append((t, EDIT, -1))
    events.sort()
    outage = None
    if rng.random() < noise.outage_boards:
        start = rng.random() * horizon
        outage = (start, start + rng.uniform(*noise.outage_hours) * 3600)
    return Board(index, p.name, host, p.etag, rate, initial, events, outage, p.probe_page)


def _new_posting(world: World, rng: random.Random, opened: float) -> int:
    pid = len(world.opened_at)
    world.opened_at[pid] = opened
    world.page_kind[pid] = _weighted(rng, world.config.noise.closed_pages)
    return pid


def _life(
    world: World,
    rng: random.Random,
    events: list[tuple[float, int, int]],
    pid: int,
    start: float,
    life_s: float,
    horizon: float,
) -> None:
    """The posting's close (if within the horizon) and any hidden spell before it."""
    end = start + rng.expovariate(1.0 / life_s)
    if end < horizon:
        events.append((end, CLOSE, pid))
        world.closed_at[pid] = end
    noise = world.config.noise
    if rng.random() < noise.hidden:
        hide = rng.uniform(start, min(end, horizon))
        show = hide + rng.uniform(*noise.hidden_hours) * 3600
        if show < min(end, horizon):
            events += [(hide, HIDE, pid), (show, SHOW, pid)]


def _poisson(rng: random.Random, mean: float) -> int:
    if mean <= 0:
        return 0
    if mean > 50:
        return max(0, round(rng.gauss(mean, math.sqrt(mean))))
    limit, k, prod = math.exp(-mean), 0, rng.random()
    while prod > limit:
        k += 1
        prod *= rng.random()
    return k


def calibration(mix: tuple[PlatformMix, ...] = DEFAULT_MIX, samples: int = 200_000) -> dict:
    """Polled once a day: the share of all polls ending 'unchanged' (full read on a
    platform without validators), and the share of Lever polls answered 304."""
    rng = random.Random(0)
    weights = [p.share for p in mix]
    unchanged = lever = lever_quiet = 0.0
    for _ in range(samples):
        p = rng.choices(mix, weights)[0]
        quiet = math.exp(-_lognormal_rate(rng, p))  # P(no change in a day)
        if not p.etag:
            unchanged += quiet
        if p.name == "lever":
            lever += 1
            lever_quiet += quiet
    return {
        "unchanged_share_daily": round(unchanged / samples, 3),
        "lever_304_share_daily": round(lever_quiet / max(lever, 1), 3),
    }
