"""Time of a re-parse backfill preview over N postings (default 10,000) on this machine.

A throwaway PostgreSQL cluster; N Lever postings stored as listings of 100 jobs each
(descriptions of a realistic length), parsed with lever@1; then a lever@2 is registered
and `plan_reparse` previews all N (lever@1 results are seeded by SQL unless --parse): the read-only selection, the manifest (ids and raw
hashes) and the field-level diff of 20 postings. Prints the figures, the last line as
JSON. `.venv/bin/python bench/backfill_preview.py [--postings N] [--apply]`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.parse import jobs, lever_listing
from parsers.registry import Parser
from parsers.types import ParseOutcome, RawDocument
from pipeline.app import App
from pipeline.backfill.reparse import ReparseSelection, apply_reparse, plan_reparse
from pipeline.crawl.catalog import sync_catalog
from pipeline.db import migrate
from pipeline.db.connect import Database
from pipeline.db.embedded import ensure_cluster, stop_cluster
from pipeline.phases.parse import parse_source
from pipeline.progress import Progress
from pipeline.settings import REPO_ROOT, Settings

PER_LISTING = 100


def _seed(app: App, count: int) -> None:
    with app.db.connect() as conn:
        board = conn.execute(
            "SELECT id FROM crawl.boards WHERE source_id = 'lever' ORDER BY id LIMIT 1"
        ).fetchone()["id"]
    rows = jobs(count)
    with (
        app.archive() as archive,
        app.db.connect() as conn,
        Progress("backfill_preview: postings seeded", count) as progress,
    ):
        for start in range(0, count, PER_LISTING):
            chunk = rows[start : start + PER_LISTING]
            body = lever_listing(chunk)
            ref = archive.save(
                source_id="lever", body=body, url=f"https://api.lever.co/v0/postings/b{start}",
                content_type="application/json", http_status=200,
            )  # fmt: skip
            progress.advance(len(chunk))
            for item in json.loads(body):
                conn.execute(
                    """INSERT INTO core.postings (source_id, external_id, board_id, url,
                           listing_raw_sha256, content_raw_sha256)
                       VALUES ('lever', %s, %s, %s, %s, %s)""",
                    (item["id"], board, item["hostedUrl"], ref.sha256, ref.sha256),
                )
        conn.commit()


def _bump(app: App) -> None:
    current = app.registry.get("lever")

    def shouting(doc: RawDocument) -> ParseOutcome:
        out = current.parse(doc)
        return replace(out, postings=tuple(replace(p, title=p.title.upper()) for p in out.postings))

    registry = app.registry.copy()
    registry.add(Parser("lever", "2", shouting))
    app.registry = registry


def _seed_results(app: App) -> None:
    """lever@1 results written by SQL: parsing 10,000 postings for real takes minutes
    on a shared machine (use --parse for that), and the preview only reads them."""
    with app.db.connect() as conn:
        conn.execute(
            """INSERT INTO core.parse_results (posting_id, raw_sha256, parser_name,
                   parser_version, quality, is_current, title, url)
               SELECT id, content_raw_sha256, 'lever', '1', 'accepted', true,
                      'seeded ' || external_id, url
               FROM core.postings WHERE source_id = 'lever'"""
        )
        conn.commit()


def run(count: int, apply: bool, root: Path, parse: bool = False) -> dict[str, object]:
    cluster = ensure_cluster(root / "pg", databases=(), durable=False, password_auth=False)
    with psycopg.connect(cluster.url("postgres"), autocommit=True) as conn:
        for name in ("bench", "bench_serving"):
            conn.execute(f'CREATE DATABASE "{name}"')
    settings = Settings(
        database_url=cluster.url("bench"), serving_database_url=cluster.url("bench_serving"),
        raw_store_url=(root / "raw").as_uri(), data_dir=root,
        sources_file=REPO_ROOT / "sandbox" / "sources.yaml", allow_private_networks=True,
    )  # type: ignore[arg-type]  # fmt: skip
    migrate.upgrade(Database(settings.database_url.get_secret_value()))
    app = App.create(settings=settings)
    sync_catalog(app)
    _seed(app, count)
    started = time.monotonic()
    if parse:
        assert parse_source(app, "lever").status == "succeeded"
    else:
        _seed_results(app)
    parse_s = time.monotonic() - started
    _bump(app)
    started = time.monotonic()
    manifest, path = plan_reparse(app, ReparseSelection("lever", limit=count), root / "manifests")
    preview_s = time.monotonic() - started
    figures: dict[str, object] = {
        "postings": len(manifest.items),
        "raw_objects": manifest.counts["raw_objects"],
        "raw_bytes": manifest.bytes,
        "manifest_bytes": path.stat().st_size,
        "sample_diffs": len(manifest.sample),
        "parse_s": round(parse_s, 2),
        "preview_s": round(preview_s, 2),
    }
    if apply:
        started = time.monotonic()
        report = apply_reparse(app, path, stream=open("/dev/null", "w"))  # noqa: SIM115
        figures["apply_s"] = round(time.monotonic() - started, 2)
        figures["reparsed"] = report.stats["reparsed"]
    return figures


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--postings", type=int, default=10_000)
    args.add_argument("--apply", action="store_true", help="time the apply as well")
    args.add_argument("--parse", action="store_true", help="parse lever@1 for real (slow)")
    options = args.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="jobharbor-bench-preview-"))
    try:
        figures = run(options.postings, options.apply, root, options.parse)
    finally:
        stop_cluster(root / "pg")
        shutil.rmtree(root, ignore_errors=True)
    for key, value in figures.items():
        print(f"{key:>16}: {value}")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
