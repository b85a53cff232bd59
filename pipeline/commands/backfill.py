"""`jobharbor backfill reparse|check|sync|enrich`: the same plan/apply as the DAGs.

Without `--apply` a backfill is a preview (`--dry-run`, the default): it writes a
manifest and prints where. `--apply MANIFEST` applies exactly that manifest.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from pipeline.backfill.check import CheckSelection, apply_check, plan_check
from pipeline.backfill.enrich import EnrichSelection, apply_enrich, plan_enrich
from pipeline.backfill.manifest import MAX_LIMIT, MAX_REQUESTS, Manifest
from pipeline.backfill.reparse import ReparseSelection, apply_reparse, plan_reparse
from pipeline.backfill.sync import apply_sync, plan_sync


def _limit(value: str) -> int:
    n = int(value)
    if not 1 <= n <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_LIMIT}")
    return n


def _requests(value: str) -> int:
    n = int(value)
    if not 1 <= n <= MAX_REQUESTS:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_REQUESTS}")
    return n


def _ids(values: list[str] | None) -> tuple[int, ...]:
    return tuple(int(v) for value in values or () for v in value.split(",") if v.strip())


def manifest_dir(app: Any, args: argparse.Namespace) -> Path:
    return args.manifest_dir or app.settings.data_dir / "backfills"


def print_manifest(manifest: Manifest, path: Path) -> None:
    print(manifest.summary())
    for note in manifest.notes:
        print(f"  note: {note}")
    for entry in manifest.sample[:5]:
        print("  sample:", json.dumps(entry, ensure_ascii=False, default=str)[:400])
    print(f"manifest: {path}")
    print("apply it with --apply MANIFEST (refused if the selection changes first)")


def cmd_reparse(app: Any, args: argparse.Namespace) -> object:
    if args.apply:
        return apply_reparse(app, args.apply)
    selection = ReparseSelection(
        source=args.source,
        limit=args.limit,
        posting_ids=_ids(args.posting_id),
        fetched_from=args.fetched_from,
        fetched_to=args.fetched_to,
        parser=args.parser,
    )
    return plan_reparse(app, selection, manifest_dir(app, args))


def cmd_check(app: Any, args: argparse.Namespace) -> object:
    if args.apply:
        return apply_check(app, args.apply)
    selection = CheckSelection(
        source=args.source,
        status=args.status,
        limit=args.limit,
        max_requests=args.max_requests,
        active_days=args.active_days,
        posting_ids=_ids(args.posting_id),
    )
    return plan_check(app, selection, manifest_dir(app, args))


def cmd_sync(app: Any, args: argparse.Namespace) -> object:
    if args.apply:
        return apply_sync(app, args.apply, allow_mass_removal=args.allow_mass_removal)
    return plan_sync(app, manifest_dir(app, args), limit=args.limit)


def cmd_enrich(app: Any, args: argparse.Namespace) -> object:
    if args.apply:
        return apply_enrich(app, args.apply)
    selection = EnrichSelection(
        limit=args.limit,
        max_requests=args.max_requests,
        source=args.source,
        day=args.date,
        posting_ids=_ids(args.posting_id),
    )
    return plan_enrich(app, selection, manifest_dir(app, args))


COMMANDS: dict[str, tuple[Callable[[Any, argparse.Namespace], object], str]] = {
    "reparse": (cmd_reparse, "re-parse stored raw objects of a selection (never fetches)"),
    "check": (cmd_check, "directly check a selection of missing or long-active postings"),
    "sync": (cmd_sync, "a full serving reconcile"),
    "enrich": (cmd_enrich, "re-enrich a selection (by date, source, posting ids)"),
}


def add_commands(sub: argparse._SubParsersAction, run: Callable) -> None:
    backfill = sub.add_parser(
        "backfill", help="preview (default) or apply a backfill from its manifest"
    ).add_subparsers(dest="sub", required=True)
    for name, (func, help_text) in COMMANDS.items():
        cmd = backfill.add_parser(name, help=help_text, description=help_text)
        cmd.set_defaults(func=run, backfill=func)
        _common(cmd, limit_required=name != "sync")
        if name in ("reparse", "check", "enrich"):
            cmd.add_argument(
                "--source", help="the source (required for a reparse or check preview)"
            )
            cmd.add_argument("--posting-id", action="append", help="posting ids (repeat or a,b,c)")
    options = backfill.choices
    options["reparse"].add_argument("--fetched-from", type=date.fromisoformat, help="YYYY-MM-DD")
    options["reparse"].add_argument(
        "--fetched-to", type=date.fromisoformat, help="YYYY-MM-DD, inclusive"
    )
    options["reparse"].add_argument(
        "--parser", help="only postings whose current result is NAME@VERSION"
    )
    options["check"].add_argument(
        "--status",
        choices=["missing", "active"],
        help="the postings to check (required for a preview)",
    )
    options["check"].add_argument(
        "--active-days",
        type=int,
        default=90,
        help="status active: first seen more than this many days ago",
    )
    options["check"].add_argument("--max-requests", type=_requests, default=MAX_REQUESTS)
    options["sync"].add_argument("--allow-mass-removal", action="store_true")
    options["enrich"].add_argument("--max-requests", type=_requests, default=1000)
    options["enrich"].add_argument("--date", type=date.fromisoformat, help="first seen on YYYY-MM-DD")  # fmt: skip


def _common(cmd: argparse.ArgumentParser, *, limit_required: bool) -> None:
    mode = cmd.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="preview into a manifest (default)")
    mode.add_argument("--apply", type=Path, metavar="MANIFEST", help="apply this manifest")
    cmd.add_argument(
        "--limit",
        type=_limit,
        required=False,
        default=None if limit_required else MAX_LIMIT,
        help=f"at most this many items (1..{MAX_LIMIT}; required for a preview)",
    )
    cmd.add_argument("--manifest-dir", type=Path, help="default: DATA_DIR/backfills")
