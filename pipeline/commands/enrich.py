"""`jobharbor enrich`: one pass, `show`, `evaluate` and a backfill `preview`."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from datetime import datetime

from pipeline.app import App
from pipeline.commands import enrich_evaluate
from pipeline.enrich.backfill import preview
from pipeline.enrich.providers import PROVIDERS, make_provider
from pipeline.enrich.settings import load_enrich_settings
from pipeline.enrich.show import load, render
from pipeline.enrich.store import Selection
from pipeline.phases.enrich import enrich

USAGE = """\
jobharbor enrich [--source S] [--limit N] [--max-requests N] [--provider P]
jobharbor enrich show POSTING_ID
jobharbor enrich evaluate [--provider rules|gemini] [--json]
jobharbor enrich preview [--source S] [--since DATE] [--until DATE] [--ids 1,2,3]"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jobharbor enrich",
        usage=USAGE,
        description="Extract requirements and skills with an LLM (every value checked against "
        "the posting's own words). Runs one pass over eligible new or changed content.",
    )
    parser.add_argument("--source", help="only this source")
    parser.add_argument("--limit", type=int, help="at most this many postings")
    parser.add_argument("--max-requests", type=int, help="at most this many API requests")
    parser.add_argument(
        "--provider", choices=PROVIDERS, help="default: $JOBHARBOR_LLM_PROVIDER or gemini"
    )
    return parser


def main(argv: Sequence[str]) -> int:
    argv = list(argv)
    commands = {"show": cmd_show, "evaluate": cmd_evaluate, "preview": cmd_preview}
    if argv[:1] and argv[0] in commands:
        return commands[argv[0]](argv[1:])
    return cmd_run(_parser().parse_args(argv))


def _app() -> App:
    return App.create()


def cmd_run(args: argparse.Namespace) -> int:
    report = enrich(
        _app(),
        args.source,
        limit=args.limit,
        max_requests=args.max_requests,
        provider=args.provider,
    )
    print(describe(report.stats, report.status, report.elapsed_s))
    return 0 if report.status != "failed" else 1


def describe(stats: dict, status: str = "succeeded", elapsed_s: float = 0.0) -> str:
    rejected = stats.get("rejected") or {}
    refused = ", ".join(f"{k} {v}" for k, v in rejected.items()) or "none"
    lines = [
        f"enrich: {status} in {elapsed_s:.2f}s",
        f"  eligible: {stats.get('eligible', 0)}; queued: {stats.get('enqueued', 0)} new or changed, "
        f"{stats.get('already_done', 0)} back to an extracted version (free)",
        f"  sent: {stats.get('sent', 0)} requests for {stats.get('postings_sent', 0)} postings, {stats.get('tokens', 0)} tokens",
        f"  valid: {stats.get('valid', 0)} postings stored ({stats.get('with_rejections', 0)} with refused values)",
        f"  rejected values by reason: {refused}",
        f"  unmapped skill labels kept: {stats.get('unmapped', 0)}",
        f"  re-queued: {stats.get('requeued', 0)}; failed for good: {stats.get('failed', 0)}; wrong ids in answers: {stats.get('wrong_id', 0)}",
        f"  short rate limits waited out: {stats.get('rate_limit_waits', 0)} ({stats.get('rate_limit_wait_s', 0.0):.0f}s)",
        f"  cooled down: {stats.get('cooled_down') or 'no'}",
    ]
    return "\n".join(lines)


def cmd_show(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="jobharbor enrich show", description="the stored result of one posting"
    )
    parser.add_argument("posting_id", type=int)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    found = load(_app().db, args.posting_id)
    if found is None:
        print(f"posting {args.posting_id}: not extracted (no result and not queued)")
        return 1
    print(
        json.dumps(found, default=str, ensure_ascii=False, indent=2) if args.json else render(found)
    )
    return 0


def cmd_evaluate(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="jobharbor enrich evaluate", description="accuracy on the project's labelled set"
    )
    parser.add_argument("--provider", choices=PROVIDERS, default="rules")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = enrich_evaluate.evaluate(args.provider)
    print(
        json.dumps(report, indent=2, ensure_ascii=False)
        if args.json
        else enrich_evaluate.render(report)
    )
    return 0


def cmd_preview(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="jobharbor enrich preview", description="what a backfill would send (read-only)"
    )
    parser.add_argument("--source")
    parser.add_argument("--since", type=datetime.fromisoformat)
    parser.add_argument("--until", type=datetime.fromisoformat)
    parser.add_argument("--ids", help="posting ids, comma-separated")
    parser.add_argument("--provider", choices=PROVIDERS)
    args = parser.parse_args(argv)

    ids = tuple(int(i) for i in args.ids.split(",")) if args.ids else None
    settings = load_enrich_settings()
    selection = Selection(args.source, ids, args.since, args.until)
    print(
        json.dumps(
            vars(preview(_app().db, selection, make_provider(settings, args.provider), settings)),
            indent=2,
        )
    )
    return 0
