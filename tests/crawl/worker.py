"""A discover worker process for tests: `python -m tests.crawl.worker [options]`.

Like `jobharbor discover`, plus the knobs tests need (a short lease). Settings come
from the JOBHARBOR_* environment, as in production."""

from __future__ import annotations

import argparse
import json
import sys

from pipeline.app import App
from pipeline.phases.discover import discover


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source")
    parser.add_argument("--lane")
    parser.add_argument("--lease", type=float, default=600)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    app = App.create()
    report = discover(
        app,
        args.source,
        lane=args.lane,
        lease_s=args.lease,
        limit=args.limit,
        force=args.force,
        shared=True,  # test workers cooperate, like `jobharbor discover --shared`
    )
    print(json.dumps({"status": report.status, "stats": report.stats}, default=str), flush=True)
    return 0 if report.status == "succeeded" else 1


if __name__ == "__main__":
    sys.exit(main())
