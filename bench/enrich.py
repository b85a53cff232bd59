"""Enrichment: requests and tokens per posting for group sizes 1, 2 and 3 against the
sandbox's Gemini endpoint (real SDK, real PostgreSQL queue and budgets), the
checker's throughput on one core (parse the answer + pydantic + every evidence
check), and the rules baseline's skills precision / F1 on the labelled set.

Target: the checker >= 500 postings/s. The last line is one JSON object with the
figures. Run with `make bench` or `.venv/bin/python bench/enrich.py [--postings N]`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.commands.enrich_evaluate import answers_rules, evaluate, load_cases
from pipeline.db import migrate
from pipeline.db.connect import Database
from pipeline.db.embedded import ensure_cluster, stop_cluster
from pipeline.enrich.catalog import load_catalog
from pipeline.enrich.evidence import Checker
from pipeline.enrich.gemini import GeminiProvider
from pipeline.enrich.runner import Runner
from pipeline.enrich.schema import parse_answer
from pipeline.enrich.settings import load_enrich_settings
from pipeline.enrich.store import Selection
from pipeline.enrich.text import flat
from sandbox.server import start_sandbox

CHECK_TARGET_PER_S = 500.0


def seed(db: Database, source: str, texts: list[str]) -> None:
    """Active postings with a current accepted parse, one per text (minimal rows)."""
    with db.connect() as conn:
        conn.execute(
            "INSERT INTO ref.sources (id, platform, display_name, parser, config, config_hash) "
            "VALUES (%s, 'greenhouse', %s, 'greenhouse', '{}', 'h')",
            (source, source),
        )
        board = conn.execute(
            "INSERT INTO crawl.boards (source_id, board_key, url, lane, host) "
            "VALUES (%s, 'b', 'http://x', 'greenhouse', 'x') RETURNING id",
            (source,),
        ).fetchone()["id"]
        for n, text in enumerate(texts):
            sha = hashlib.sha256(f"{source}-{n}".encode()).hexdigest()
            conn.execute(
                "INSERT INTO crawl.raw_objects (sha256, object_key, byte_length, source_id, url, state) "
                "VALUES (%s, %s, 1, %s, 'http://x', 'ready')",
                (sha, sha, source),
            )
            posting = conn.execute(
                "INSERT INTO core.postings (source_id, external_id, board_id, url) "
                "VALUES (%s, %s, %s, 'http://x') RETURNING id",
                (source, str(n), board),
            ).fetchone()["id"]
            title, _, description = text.partition("\n")
            conn.execute(
                "INSERT INTO core.parse_results (posting_id, raw_sha256, parser_name, parser_version, "
                "quality, is_current, title, description_text) "
                "VALUES (%s, %s, 'greenhouse', '1', 'accepted', true, %s, %s)",
                (posting, sha, title, description),
            )
        conn.commit()


def per_group(db: Database, sandbox_url: str, texts: list[str]) -> dict[str, dict[str, float]]:
    os.environ.setdefault("GEMINI_API_KEY", "bench-key")
    out: dict[str, dict[str, float]] = {}
    for group in (1, 2, 3):
        source = f"bench-g{group}"
        seed(db, source, texts)
        settings = load_enrich_settings(
            base_url=sandbox_url, group_size=group, rpm=100_000, tpm=10**9, rpd=10**7
        )
        started = time.perf_counter()
        stats = Runner(db, GeminiProvider(settings), settings).run(Selection(source=source))
        elapsed = time.perf_counter() - started
        out[f"g{group}"] = {
            "postings": stats.valid,
            "requests_per_posting": round(stats.sent / max(1, stats.valid), 3),
            "tokens_per_posting": round(stats.tokens / max(1, stats.valid), 1),
            "seconds": round(elapsed, 2),
        }
        print(
            f"group size {group}: {stats.valid} postings, {stats.sent} requests "
            f"({out[f'g{group}']['requests_per_posting']}/posting), "
            f"{out[f'g{group}']['tokens_per_posting']} tokens/posting, {elapsed:.2f}s"
        )
    return out


def checker_throughput(seconds: float) -> float:
    cases, _ = load_cases()
    raw = answers_rules(cases)
    checker = Checker(load_catalog())
    work = [(case.id, flat(case.text), raw[case.id]) for case in cases]
    done, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        for pid, text, answer in work:
            members, _, _ = parse_answer(answer, [pid])
            checker.check(text, members[pid])
        done += len(work)
    rate = done / (time.perf_counter() - started)
    print(f"checker: {rate:,.0f} postings/s on one core (target >= {CHECK_TARGET_PER_S:.0f})")
    return rate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postings", type=int, default=60, help="postings per group size")
    parser.add_argument("--seconds", type=float, default=3.0, help="checker timing")
    args = parser.parse_args(argv)
    cases, _ = load_cases()
    texts = [cases[n % len(cases)].text for n in range(args.postings)]
    work = Path(tempfile.mkdtemp(prefix="jobharbor-bench-enrich-"))
    sandbox = None
    try:
        cluster = ensure_cluster(work / "pg", databases=("bench",), durable=False)
        db = Database(cluster.url("bench"))
        migrate.upgrade(db)
        sandbox = start_sandbox()
        groups = per_group(db, sandbox.url, texts)
    finally:
        if sandbox is not None:
            sandbox.stop()
        stop_cluster(work / "pg")
        shutil.rmtree(work, ignore_errors=True)
    rate = checker_throughput(args.seconds)
    report = evaluate("rules")
    skills = report["skills"]["skills"]["micro"]
    print(
        f"rules baseline on {report['postings']} labelled postings: skills P {skills['precision']} F1 {skills['f1']}"
    )
    figures = {
        "enrich_check_per_s": round(rate, 1),
        "enrich_requests_per_posting_g1": groups["g1"]["requests_per_posting"],
        "enrich_requests_per_posting_g2": groups["g2"]["requests_per_posting"],
        "enrich_requests_per_posting_g3": groups["g3"]["requests_per_posting"],
        "enrich_tokens_per_posting_g1": groups["g1"]["tokens_per_posting"],
        "enrich_tokens_per_posting_g2": groups["g2"]["tokens_per_posting"],
        "enrich_tokens_per_posting_g3": groups["g3"]["tokens_per_posting"],
        "skills_precision_rules": skills["precision"],
        "skills_f1_rules": skills["f1"],
    }
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
