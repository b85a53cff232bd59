"""`jobharbor locate`: normalize location strings from the command line."""

from __future__ import annotations

import argparse
import json
import sys

from pipeline.normalize.locations.api import locate

DESCRIPTION = """\
Turn raw job-location strings into offices (city, region, country) resolved
against GeoNames, and print one JSON object per input line:

  {"input": ..., "offices": [{"city", "region", "country", "geonameid", "ambiguous"}],
   "countries": [...], "remote": "yes|hybrid|unknown", "unresolved": [...],
   "more_offices": N}

"countries" lists every country the posting could be in. A posting could be
in country X when X is in "countries", or "unresolved" is not empty, or
"countries" is empty: an incomplete location never hides a job.
"""

EPILOG = """\
examples:
  jobharbor locate "Toronto, CA" "US-CA-San Francisco"
  jobharbor locate --remote-hint yes "Remote - Canada"
  printf 'Paris\\nHà Nội & 2 nơi khác\\n' | jobharbor locate

The first run builds a place-name index from the installed GeoNames packages
(about 15 seconds, once) and caches it under $JOBHARBOR_CACHE_DIR (default .data/cache).
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jobharbor locate",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "strings",
        nargs="*",
        metavar="STRING",
        help="location strings; with none, one string per line is read from standard input",
    )
    parser.add_argument(
        "--remote-hint",
        choices=("yes", "hybrid", "unknown"),
        default=None,
        help="the platform's own remote flag, applied to every string",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    lines = args.strings if args.strings else (line.rstrip("\r\n") for line in sys.stdin)
    out = sys.stdout
    for line in lines:
        result = locate(line, remote_hint=args.remote_hint)
        out.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
