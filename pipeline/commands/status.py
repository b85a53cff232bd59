"""`jobharbor status`: what an operator needs to see per source, in one screen.

Boards by state (and suspect ones), postings by status, scans by outcome in the
last 24 hours, when each phase last succeeded, each board's schedule (its
estimated change rate, from the evidence stored on the board, and current
interval), and for count-probed boards (Workday) how old their last full pass
is: between full passes a swap that keeps the count (one posting removed,
another added) is not seen.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from pipeline.crawl.platforms import PLATFORMS
from pipeline.crawl.schedule import change_rate_per_day
from pipeline.db.connect import Database, DictConnection
from serving_sync.freshness import PHASES, read_last_success

BOARDS_SHOWN = 20  # per source in the text view, busiest first (--json has every board)


def _grouped(conn: DictConnection, sql: str, source: str | None) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for row in conn.execute(sql, {"source": source}):
        out.setdefault(row["source_id"], {})[row["key"]] = row["n"]
    return out


_BOARDS = """SELECT source_id, state AS key, count(*) AS n FROM crawl.boards
             WHERE enabled AND (%(source)s::text IS NULL OR source_id = %(source)s) GROUP BY 1, 2"""
_SUSPECT = """SELECT source_id, 'suspect' AS key, count(*) AS n FROM crawl.boards
              WHERE enabled AND suspect_since IS NOT NULL AND (%(source)s::text IS NULL OR source_id = %(source)s)
              GROUP BY 1"""
_POSTINGS = """SELECT source_id, status AS key, count(*) AS n FROM core.postings
               WHERE %(source)s::text IS NULL OR source_id = %(source)s GROUP BY 1, 2"""
_SCANS = """SELECT b.source_id, s.outcome AS key, count(*) AS n
            FROM crawl.scans s JOIN crawl.boards b ON b.id = s.board_id
            WHERE s.started_at > now() - interval '24 hours'
              AND (%(source)s::text IS NULL OR b.source_id = %(source)s)
            GROUP BY 1, 2"""
_SCHEDULE = """SELECT source_id, board_key, state, interval_s, due_at, rate_polls, rate_changes,
                     rate_seen_s
              FROM crawl.boards
              WHERE enabled AND (%(source)s::text IS NULL OR source_id = %(source)s)
              ORDER BY source_id, board_key"""


_FULL_PASS = """SELECT b.source_id, b.board_key, b.last_full_pass_at,
                      extract(epoch FROM now() - b.last_full_pass_at)::bigint AS age_s
               FROM crawl.boards b JOIN ref.sources s ON s.id = b.source_id
               WHERE b.enabled AND s.platform = ANY(%(platforms)s)
                 AND (%(source)s::text IS NULL OR b.source_id = %(source)s)
               ORDER BY b.source_id, b.board_key"""


def _full_passes(conn: DictConnection, source: str | None) -> dict[str, dict[str, Any]]:
    """Per count-probed board: when it was last read in full, and how long ago."""
    probed = sorted(name for name, platform in PLATFORMS.items() if platform.count_probe)
    out: dict[str, dict[str, Any]] = {}
    for row in conn.execute(_FULL_PASS, {"platforms": probed, "source": source}):
        out.setdefault(row["source_id"], {})[row["board_key"]] = {
            "last_full_pass_at": _iso(row["last_full_pass_at"]),
            "age_s": row["age_s"],
        }
    return out


def gather_status(db: Database, source: str | None = None) -> dict[str, Any]:
    with db.connect() as conn:
        sources = [
            r["id"]
            for r in conn.execute(
                "SELECT id FROM ref.sources WHERE enabled AND (%(source)s::text IS NULL OR id = %(source)s) ORDER BY id",
                {"source": source},
            )
        ]
        boards = _grouped(conn, _BOARDS, source)
        suspect = _grouped(conn, _SUSPECT, source)
        postings = _grouped(conn, _POSTINGS, source)
        scans = _grouped(conn, _SCANS, source)
        full_passes = _full_passes(conn, source)
        schedules = _schedules(conn, source)
        last = read_last_success(conn, source)  # the same read the sync publishes
    report: dict[str, Any] = {
        "sources": {},
        "sync": {"last_success": _iso(last.get(None, {}).get("sync"))},
    }
    for name in sources:
        report["sources"][name] = {
            "boards": boards.get(name, {}),
            "suspect_boards": suspect.get(name, {}).get("suspect", 0),
            "postings": postings.get(name, {}),
            "scans_24h": scans.get(name, {}),
            "last_success": {phase: _iso(last.get(name, {}).get(phase)) for phase in PHASES},
            "schedule": schedules.get(name, []),
        }
        if name in full_passes:
            report["sources"][name]["full_pass"] = full_passes[name]
    return report


def _schedules(conn: DictConnection, source: str | None) -> dict[str, list[dict[str, Any]]]:
    """Per source, each board's estimated change rate and current interval."""
    out: dict[str, list[dict[str, Any]]] = {}
    for row in conn.execute(_SCHEDULE, {"source": source}):
        rate = change_rate_per_day(row["rate_polls"], row["rate_changes"], row["rate_seen_s"])
        out.setdefault(row["source_id"], []).append(
            {
                "board": row["board_key"],
                "state": row["state"],
                "interval_s": row["interval_s"],
                "changes_per_day": round(rate, 3),
                "evidence_polls": round(row["rate_polls"], 1),
                "due_at": _iso(row["due_at"]),
            }
        )
    return out


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat(timespec="seconds") if value else None


def _counts(values: Mapping[str, int]) -> str:
    return ", ".join(f"{key} {n}" for key, n in sorted(values.items())) or "none"


def _ago(iso: str | None, now: datetime) -> str:
    if iso is None:
        return "never"
    seconds = int((now - datetime.fromisoformat(iso)).total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{iso} ({seconds // size}{unit} ago)"
    return f"{iso} ({seconds}s ago)"


def _interval(seconds: int) -> str:
    return f"{seconds / 3600:.1f}h" if seconds >= 3600 else f"{seconds // 60}m"


def _schedule_lines(boards: list[Mapping[str, Any]]) -> list[str]:
    if not boards:
        return []
    busiest = sorted(boards, key=lambda b: (-b["changes_per_day"], b["board"]))
    lines = ["  schedule     board: changes/day (estimated), interval"]
    lines += [
        f"    {b['board']:<28} {b['changes_per_day']:>8.2f}/day  every {_interval(b['interval_s'])}"
        + ("" if b["state"] == "active" else f"  ({b['state']})")
        for b in busiest[:BOARDS_SHOWN]
    ]
    if len(busiest) > BOARDS_SHOWN:
        lines.append(f"    ... {len(busiest) - BOARDS_SHOWN} more boards (--json lists every one)")
    return lines


def render_status(report: Mapping[str, Any], now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    lines = []
    for name, info in report["sources"].items():
        suspect = (
            f" ({info['suspect_boards']} suspect: repeated empty listings)"
            if info["suspect_boards"]
            else ""
        )
        lines += [
            f"{name}",
            f"  boards       {_counts(info['boards'])}{suspect}",
            f"  postings     {_counts(info['postings'])}",
            f"  scans (24h)  {_counts(info['scans_24h'])}",
        ]
        lines += [f"  last {phase:<8} {_ago(info['last_success'][phase], now)}" for phase in PHASES]
        lines += [
            f"  full pass    {board} {_ago(full['last_full_pass_at'], now)}"
            for board, full in info.get("full_pass", {}).items()
        ]
        lines += _schedule_lines(info.get("schedule", []))
    lines.append(f"serving sync   last success {_ago(report['sync']['last_success'], now)}")
    return "\n".join(lines)
