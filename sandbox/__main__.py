"""`python -m sandbox serve`: the offline job web for the demo, tests and benchmarks."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from pathlib import Path

from sandbox.server import DEFAULT_SEED, SandboxServer, SandboxState


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the sandbox job web until stopped")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: loopback only)"
    )
    serve.add_argument(
        "--port", type=int, default=8765, help="port (0 = any free port; default 8765)"
    )
    serve.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help="data seed (same seed, same data)"
    )
    serve.add_argument("--ready-file", type=Path, help="write the URL here once listening")
    args = parser.parse_args(argv)

    try:
        server = SandboxServer((args.host, args.port), SandboxState(seed=args.seed))
    except OSError:
        if args.port == 0:
            raise
        server = SandboxServer(
            (args.host, 0), SandboxState(seed=args.seed)
        )  # port taken: any free one
    host, port = server.server_address[:2]
    url = f"http://{host}:{port}"
    print(f"sandbox job web on {url}", flush=True)
    if args.ready_file:
        args.ready_file.write_text(url)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with contextlib.suppress(KeyboardInterrupt, SystemExit):
        server.serve_forever()
    server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
