"""The `jobharbor` command (also `python -m pipeline`)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import psycopg

from pipeline.airflow.setup import ensure_pool, pools
from pipeline.app import SERVING_CLUSTER_DIR, App, build_registry, resolve_databases
from pipeline.backfill.cleanup import CleanupReport, plan_cleanup, run_cleanup
from pipeline.commands.backfill import add_commands as add_backfill_commands
from pipeline.commands.backfill import print_manifest
from pipeline.commands.demo import run_demo
from pipeline.commands.enrich import main as enrich_main
from pipeline.commands.freshness import lag_report, render_lags
from pipeline.commands.locate import main as locate_main
from pipeline.commands.parse_file import EXIT_USAGE, run
from pipeline.commands.setup import setup_databases
from pipeline.commands.status import gather_status, render_status
from pipeline.config import load_sources
from pipeline.crawl.boards_import import import_boards
from pipeline.crawl.catalog import sync_catalog
from pipeline.db.connect import Database, sqlalchemy_url
from pipeline.db.embedded import stop_cluster
from pipeline.errors import ConfigError, FatalError, JobharborError
from pipeline.phases.check import check_postings
from pipeline.phases.discover import discover
from pipeline.phases.fetch import fetch_details
from pipeline.phases.parse import parse_source
from pipeline.phases.sync import sync_serving
from pipeline.rawstore.recovery import recover_and_requeue
from pipeline.settings import load_settings
from serving_sync.quality import one_line, read_quality

DESCRIPTION = """\
jobharbor keeps an honest, current copy of job postings: it polls job boards
(ATS APIs and HTML job sites listed in sources.yaml), stores every raw response,
parses them into one posting schema, and publishes open postings to a compact
serving schema for search.

Typical use:
  jobharbor sources check          validate sources.yaml
  jobharbor db up                  start/migrate the databases
  jobharbor run                    discover -> fetch -> parse -> check every source, then sync
  jobharbor status                 what ran, what changed, postings by status
  jobharbor search "data engineer" search what was published
  jobharbor web                    serve the web app on http://127.0.0.1:8000
  jobharbor demo                   the whole path against the offline sandbox

Without JOBHARBOR_DATABASE_URL, a private PostgreSQL runs under .data/.
"""


def _app(args: argparse.Namespace):
    return App.create(sources_file=args.sources)


def _print_report(report: object, as_json: bool = False) -> None:
    if as_json:
        print(json.dumps(getattr(report, "__dict__", report), default=str, indent=2))
    else:
        print(report.summary() if hasattr(report, "summary") else report)


# ---------------------------------------------------------------- commands


def cmd_sources_check(args: argparse.Namespace) -> int:
    path = args.file or args.sources or load_settings().sources_file
    sources = load_sources(path)
    build_registry(sources)
    enabled = sources.enabled()
    print(f"{path}: OK: {len(sources.sources)} sources ({len(enabled)} enabled)")
    for name, source in sources.sources.items():
        boards = len(getattr(source, "boards", ()) or getattr(source, "scopes", ()))
        state = "enabled" if source.enabled else "disabled"
        print(f"  {name:<24} {source.platform:<16} {boards:>4} boards  {state}")
    return 0


def cmd_sources_sync(args: argparse.Namespace) -> int:
    app = _app(args)
    print(sync_catalog(app))
    return 0


def cmd_db_up(args: argparse.Namespace) -> int:
    app = _app(args)
    report = setup_databases(app.db, app.serving_db)
    print(f"authoritative database: {app.db.redacted()} at revision {report.revision}")
    print(
        f"serving database: {app.serving_db.redacted()} (applied DDL versions: {report.serving_applied or 'none new'})"
    )
    return 0


def cmd_db_url(args: argparse.Namespace) -> int:
    urls = resolve_databases(load_settings())
    url = {"airflow": urls.airflow, "serving": urls.serving}.get(args.which, urls.authoritative)
    if url is None:
        raise ConfigError(["the Airflow database URL is only managed for the embedded default"])
    print(sqlalchemy_url(url) if args.sqlalchemy else url)
    return 0


def cmd_db_stop(args: argparse.Namespace) -> int:
    data_dir = load_settings().data_dir
    stopped = stop_cluster(data_dir / "pg")
    print("embedded PostgreSQL stopped" if stopped else "embedded PostgreSQL was not running")
    # The separate serving cluster (`make demo SERVING=separate`), whatever the settings now.
    if stop_cluster(data_dir / SERVING_CLUSTER_DIR):
        print("embedded serving PostgreSQL stopped")
    return 0


def cmd_discover(args: argparse.Namespace) -> int:
    if args.board and not args.source:
        raise FatalError("--board names boards of one source: give --source as well")
    app = _app(args)
    options = {
        "force": args.force,
        "boards": args.board or (),
        "limit": args.limit,
        "max_seconds": args.max_seconds,
        "wait_s": args.wait,
        "shared": args.shared or bool(args.lane),
    }
    if args.lane:
        # A lane is a claim filter across sources: one of possibly many workers for it.
        _print_report(discover(app, args.source, lane=args.lane, **options))
        return 0
    for name in app.source_names(args.source):
        _print_report(discover(app, name, **options))
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    app = _app(args)
    for name in app.source_names(args.source):
        _print_report(fetch_details(app, name, limit=args.limit, wait_s=args.wait))
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    app = _app(args)
    for name in app.source_names(args.source):
        _print_report(
            parse_source(app, name, reparse=args.reparse, limit=args.limit, wait_s=args.wait)
        )
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    app = _app(args)
    for name in app.source_names(args.source):
        _print_report(
            check_postings(
                app, name, limit=args.limit, recheck_after_s=args.recheck_after, wait_s=args.wait
            )
        )
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    urls = resolve_databases(load_settings())
    report = gather_status(Database(urls.authoritative), args.source)
    lags = lag_report(Database(urls.authoritative), Database(urls.serving))
    report["freshness"] = {k: v for k, v in lags.items() if k in report["sources"]}
    print(
        json.dumps(report, indent=2)
        if args.json
        else render_status(report) + "\n" + render_lags(report["freshness"])
    )
    return 0


def cmd_quality(args: argparse.Namespace) -> int:
    urls = resolve_databases(load_settings())
    with Database(urls.serving).connect() as conn:
        report = read_quality(conn)
    print(json.dumps(report, indent=2, default=str) if args.json else one_line(report))
    return 0


def cmd_sync(args: argparse.Namespace) -> int:
    app = _app(args)
    report = sync_serving(
        app,
        dry_run=args.dry_run,
        wait_s=args.wait,
        allow_mass_removal=args.allow_mass_removal,
        full=args.full,
    )
    _print_report(report)
    if args.dry_run:
        _print_plan(report.stats.get("sample") or {})
    return 0 if report.status != "failed" else 1


def _print_plan(sample: dict) -> None:
    """The dry run's sample: a few rows per kind of change, updates with their fields."""
    for kind in ("insert", "update", "remove"):
        for row in sample.get(kind, []):
            changed = f" changed: {', '.join(row['changed'])}" if row.get("changed") else ""
            print(f"  {kind:<6} {row['id']}: {row.get('title')}{changed}")


def cmd_run(args: argparse.Namespace) -> int:
    app = _app(args)
    setup_databases(app.db, app.serving_db)
    sync_catalog(app)
    for name in app.source_names(args.source):
        _print_report(discover(app, name, force=args.force, wait_s=args.wait))
        _print_report(fetch_details(app, name, wait_s=args.wait))
        _print_report(parse_source(app, name, wait_s=args.wait))
        _print_report(check_postings(app, name, wait_s=args.wait))
    _print_report(sync_serving(app, wait_s=args.wait))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from serving_sync.reconcile import search

    serving = Database(resolve_databases(load_settings()).serving)
    rows = list(search(serving, args.query, args.limit))
    if args.json:
        print(json.dumps(rows, default=str, ensure_ascii=False, indent=2))
        return 0
    for row in rows:
        print(
            f"{row['rank']:.3f}  {row['title']} — {row['company'] or '?'} ({row['location_text'] or '?'}) [{row['source']}]"
        )
    if not rows:
        print("no results")
    return 0


def cmd_web(args: argparse.Namespace) -> int:
    from web.server import serve  # lazy: the CLI must not need FastAPI for other commands

    serve(host=args.host, port=args.port)
    return 0


def cmd_raw_recover(args: argparse.Namespace) -> int:
    app = _app(args)
    with app.archive() as archive, app.db.connect() as conn:
        report = recover_and_requeue(archive, conn, older_than_s=args.older_than)
    print(f"pending raw objects resolved: {report.ready} ready, {report.lost} lost (work requeued)")
    return 0


def cmd_raw_cleanup(args: argparse.Namespace) -> int:
    app = _app(args)
    if not args.apply:
        print(plan_cleanup(app, source=args.source).summary())
        print("(dry run: nothing deleted; --apply deletes)")
        return 0
    report = run_cleanup(app, source=args.source)
    if report.status != "succeeded":
        _print_report(report)
        return 1

    stats = report.stats
    print(CleanupReport(False, stats["by_source"], stats["by_reason"], stats["skipped"]).summary())
    return 0


def cmd_airflow_setup(args: argparse.Namespace) -> int:
    cmd_db_up(args)
    ensure_pool()
    print(
        ", ".join(f"airflow pool {name}: {pool['slots']} slots" for name, pool in pools().items())
    )
    return 0


def cmd_sandbox_serve(args: argparse.Namespace) -> int:
    from sandbox.__main__ import main as sandbox_main

    return sandbox_main(
        ["serve", "--host", args.host, "--port", str(args.port), "--seed", str(args.seed)]
    )


def cmd_sandbox_advance(args: argparse.Namespace) -> int:
    import httpx

    from sandbox.daemon import running_url

    settings = load_settings()
    # A sandbox this checkout started, else one the environment names (never the default).
    named = settings.sandbox_url if "sandbox_url" in settings.model_fields_set else None
    url = running_url(settings.data_dir) or named
    if not url:
        raise ConfigError(
            ["no sandbox is running (start one with `make demo` or `jobharbor sandbox serve`)"]
        )
    response = httpx.post(
        f"{url}/_sandbox/advance",
        params={"platform": args.platform, "token": args.token, "steps": args.steps},
    )
    response.raise_for_status()
    print(response.json())
    return 0


def cmd_parse_file(args: argparse.Namespace) -> int:
    from datetime import datetime

    try:
        fetched_at = datetime.fromisoformat(args.fetched_at) if args.fetched_at else None
    except ValueError:
        print(f"error: --fetched-at {args.fetched_at!r} is not an ISO 8601 time", file=sys.stderr)
        return EXIT_USAGE
    return run(
        args.parser,
        args.file,
        url=args.url,
        board=args.board,
        kind=args.kind,
        fetched_at=fetched_at,
        sources_file=args.sources,
        payload=not args.no_payload,
    )


def cmd_boards_import(args: argparse.Namespace) -> int:
    report = import_boards(_app(args), args.file, source=args.source, dry_run=args.dry_run)
    print(report.summary())
    for board in report.accepted:
        print(f"  {board.line()}")
    for url, reason in report.invalid:
        print(f"  invalid: {url}: {reason}")
    return 0


def cmd_locate(args: argparse.Namespace) -> int:
    return locate_main(list(args.strings))


def cmd_backfill(args: argparse.Namespace) -> int:
    if not args.apply and args.limit is None:
        print("error: a preview needs --limit N (at most this many items)", file=sys.stderr)
        return 2
    if not args.apply and args.sub in ("reparse", "check") and not args.source:
        print(f"error: a {args.sub} preview needs --source", file=sys.stderr)
        return 2
    if not args.apply and args.sub == "check" and not args.status:
        # An apply reads its selection from the manifest; only a preview chooses one.
        print("error: a check preview needs --status missing|active", file=sys.stderr)
        return 2
    result = args.backfill(_app(args), args)
    if isinstance(result, tuple):  # a preview: (manifest, path)
        print_manifest(*result)
        return 0
    _print_report(result)
    status = getattr(result, "status", None) or result.get("status")  # type: ignore[union-attr]
    return 0 if status == "succeeded" else 1


def cmd_demo(args: argparse.Namespace) -> int:
    return run_demo(advance=args.advance)


# ---------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jobharbor",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--sources", type=Path, help="sources file (default: $JOBHARBOR_SOURCES or ./sources.yaml)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, func: Callable[[argparse.Namespace], int], help_text: str, parent=sub):
        cmd = parent.add_parser(name, help=help_text, description=help_text)
        cmd.set_defaults(func=func)
        return cmd

    def phase_options(cmd: argparse.ArgumentParser, *, limit: bool = True) -> None:
        cmd.add_argument("--source", help="only this source (default: every enabled source)")
        if limit:
            cmd.add_argument("--limit", type=int, help="at most this many items")
        cmd.add_argument(
            "--wait",
            type=float,
            default=0.0,
            help="seconds to wait if another run of this phase holds the source's lock (default: skip at once)",
        )

    sources = sub.add_parser("sources", help="check or sync sources.yaml").add_subparsers(
        dest="sub", required=True
    )
    check = add(
        "check",
        cmd_sources_check,
        "validate a sources file; every problem is listed with file, line and key",
        sources,
    )
    check.add_argument(
        "file", nargs="?", type=Path, help="the file to check (default: the active sources file)"
    )
    add(
        "sync", cmd_sources_sync, "write sources and boards into the database (idempotent)", sources
    )

    db = sub.add_parser("db", help="databases: start, migrate, locate, stop").add_subparsers(
        dest="sub", required=True
    )
    add("up", cmd_db_up, "start the embedded PostgreSQL if used, then migrate both schemas", db)
    url = add("url", cmd_db_url, "print a database URL (authoritative by default)", db)
    url.add_argument(
        "which", nargs="?", choices=["authoritative", "serving", "airflow"], default="authoritative"
    )
    url.add_argument(
        "--sqlalchemy", action="store_true", help="as a SQLAlchemy URL (postgresql+psycopg://)"
    )
    add("stop", cmd_db_stop, "stop the embedded PostgreSQL", db)

    discover = add(
        "discover",
        cmd_discover,
        "poll due boards: store listings raw, upsert postings, record scans",
    )
    phase_options(discover)
    discover.add_argument(
        "--force",
        action="store_true",
        help="poll every enabled board now, due or not (host budgets, cooldowns and "
        "robots.txt still apply: a board whose host must wait is deferred)",
    )
    discover.add_argument(
        "--board",
        action="append",
        metavar="KEY",
        help="only this board of --source (a board key or id), polled now, due or not; "
        "repeatable. An unknown key fails before anything is polled; a retired or "
        "disabled board is refused",
    )
    discover.add_argument(
        "--lane",
        help="only boards of this lane (e.g. greenhouse, workday:wd5, site:example.com); "
        "workers may share or split lanes",
    )
    discover.add_argument(
        "--shared",
        action="store_true",
        help="cooperate with other workers of the same source (leases keep them apart) "
        "instead of skipping while another run holds the source's lock",
    )
    discover.add_argument(
        "--max-seconds",
        type=float,
        help="stop claiming new boards after this long (boards in flight are finished)",
    )
    phase_options(
        add(
            "fetch",
            cmd_fetch,
            "fetch posting pages the listings do not cover (new or changed rows)",
        )
    )
    parse = add("parse", cmd_parse, "parse stored raw objects with the current parser version")
    phase_options(parse)
    parse.add_argument(
        "--reparse",
        action="store_true",
        help="also re-parse closed postings (after a parser version bump)",
    )
    check = add(
        "check",
        cmd_check,
        "directly check missing postings; close them only on conclusive evidence",
    )
    phase_options(check)
    check.add_argument(
        "--recheck-after",
        type=float,
        default=6 * 3600,
        help="seconds before an ambiguous posting is checked again (default 6h)",
    )
    status = add(
        "status", cmd_status, "boards, postings, recent scans and last successful runs per source"
    )
    status.add_argument("--source", help="only this source")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    quality = add(
        "quality",
        cmd_quality,
        "what visitors find in the published postings: fields known, vocabularies, "
        "duplicated places, checkable evidence, salary anomalies",
    )
    quality.add_argument("--json", action="store_true", help="the whole report as JSON")
    sync = add(
        "sync", cmd_sync, "publish open postings to the serving schema as one transactional diff"
    )
    sync.add_argument(
        "--dry-run", action="store_true", help="compute and report the diff, change nothing"
    )
    sync.add_argument("--wait", type=float, default=0.0, help="seconds to wait for a running sync")
    sync.add_argument(
        "--full",
        action="store_true",
        help="reconcile every published row, not only those changed since the last sync",
    )
    sync.add_argument(
        "--allow-mass-removal",
        action="store_true",
        help="apply a diff that removes most (or all) published rows; refused otherwise",
    )
    run = add("run", cmd_run, "discover, fetch, parse and check each source, then sync")
    phase_options(run, limit=False)
    run.add_argument(
        "--force", action="store_true", help="poll every enabled board now, due or not"
    )

    search = add("search", cmd_search, "full-text search over the serving schema")
    search.add_argument("query", help='web-search syntax: words, "quoted phrase", OR, -exclude')
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--json", action="store_true")

    web = add("web", cmd_web, "serve the web app (search, job pages, stats, JSON API)")
    web.add_argument("--host", default="127.0.0.1")
    web.add_argument("--port", type=int, default=8000)

    raw = sub.add_parser("raw", help="raw object storage").add_subparsers(dest="sub", required=True)
    recover = add(
        "recover",
        cmd_raw_recover,
        "resolve uploads a crash left pending: ready if intact, else lost and its work requeued",
        raw,
    )
    recover.add_argument(
        "--older-than", type=float, default=300, help="only pending for at least this many seconds"
    )
    cleanup = add(
        "cleanup",
        cmd_raw_cleanup,
        "delete raw objects nothing needs any more (dry run unless --apply); "
        "reports objects and bytes freed by source",
        raw,
    )
    cleanup.add_argument("--apply", action="store_true", help="delete (default: only report)")
    cleanup.add_argument("--source", help="only this source")

    airflow = sub.add_parser("airflow", help="Airflow setup").add_subparsers(
        dest="sub", required=True
    )
    add(
        "setup",
        cmd_airflow_setup,
        "migrate both schemas and create the jobharbor pool (idempotent; make up and compose run it)",
        airflow,
    )

    add_backfill_commands(sub, cmd_backfill)

    sandbox = sub.add_parser("sandbox", help="the offline sandbox job web").add_subparsers(
        dest="sub", required=True
    )
    serve = add("serve", cmd_sandbox_serve, "serve the sandbox in the foreground", sandbox)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--seed", type=int, default=7)
    advance = add(
        "advance",
        cmd_sandbox_advance,
        "change a sandbox board: one posting closes, one changes, one opens",
        sandbox,
    )
    advance.add_argument("platform", help="e.g. greenhouse, or site:vieclam")
    advance.add_argument("token", help="board token or site category")
    advance.add_argument("--steps", type=int, default=1)

    parse_file = add(
        "parse-file",
        cmd_parse_file,
        "parse a saved response with one parser: postings as JSON lines on stdout, "
        "quality and issues on stderr (exit 3 when the parser rejects it)",
    )
    parse_file.add_argument("--parser", required=True, help="NAME or NAME@VERSION")
    parse_file.add_argument("file", type=Path, help="the saved response (gzip is fine)")
    parse_file.add_argument("--url", help="the address it was fetched from (default: the file)")
    parse_file.add_argument(
        "--board",
        help="a board token (e.g. acme, tenant.wd5/Site): its listing address stands in for --url",
    )
    parse_file.add_argument(
        "--kind", choices=["auto", "listing", "detail"], default="auto", help="default: auto"
    )
    parse_file.add_argument(
        "--fetched-at", help="ISO time relative dates count from (default: the file's time)"
    )
    parse_file.add_argument(
        "--no-payload", action="store_true", help="leave out each posting's source payload"
    )

    boards = sub.add_parser("boards", help="job boards").add_subparsers(dest="sub", required=True)
    boards_import = add(
        "import",
        cmd_boards_import,
        "find ATS board URLs in a file, check each with one request, register the valid ones",
        boards,
    )
    boards_import.add_argument("file", type=Path, help="URLs, one or more per line")
    boards_import.add_argument("--source", help="register into this source (default: by platform)")
    boards_import.add_argument(
        "--dry-run", action="store_true", help="recognize and validate, register nothing"
    )

    # `locate` has its own argument parser; everything after the word goes to it.
    locate = sub.add_parser(
        "locate",
        help="normalize location strings against GeoNames (see `jobharbor locate --help`)",
        add_help=False,
    )
    locate.add_argument("strings", nargs=argparse.REMAINDER)
    locate.set_defaults(func=cmd_locate)

    # `enrich` has its own argument parser too (`jobharbor enrich --help`).
    enrich = sub.add_parser(
        "enrich",
        help="extract requirements and skills (LLM, every value checked); show, evaluate, preview",
        add_help=False,
    )
    enrich.add_argument("args", nargs=argparse.REMAINDER)

    demo = add(
        "demo",
        cmd_demo,
        "run the whole path on the embedded default against the sandbox and report",
    )
    demo.add_argument(
        "--advance",
        action="store_true",
        help="change one sandbox board first, to watch statuses move",
    )
    return parser


def _enrich(argv: list[str]) -> int:
    logging.basicConfig(level=logging.WARNING)
    try:
        return enrich_main(argv)
    except ConfigError as exc:
        print("configuration error:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["locate"]:
        # Its own parser, options included (`jobharbor locate --help`, `--remote-hint`).
        return cmd_locate(argparse.Namespace(strings=argv[1:]))
    if argv[:1] == ["enrich"]:
        return _enrich(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.func(args))
    except ConfigError as exc:
        print("configuration error:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    except JobharborError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except psycopg.OperationalError as exc:
        # The database is unreachable or went away mid-run (a restart, a crash): one clear line, not a
        # traceback; the run's work is retried by the next run.
        reason = " ".join(str(exc).split())
        print(f"error: database connection failed: {reason}", file=sys.stderr)
        return 1
