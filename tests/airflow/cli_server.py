"""Airflow's own CLI commands, run one after another in one long-lived process.

Each `airflow ...` command in a test used to be a process of its own, and each paid
Airflow's start-up again: its imports, the DAG files' imports, the in-process execution
API of `dags test` (about 8 of the 10-15 s a `dags test` took). This process pays them
once per test. A command runs exactly as `airflow` runs it (the same parser, the same
`args.func`, the same exit codes and output streams); only the process is reused.

Protocol: one JSON request a line on stdin, `{"argv": [...], "stdout": path, "stderr":
path}`; the command's stdout and stderr go to those files; one JSON answer a line,
`{"code": int}`, on the stdout this process started with. The environment (AIRFLOW_HOME,
the metadata database, JOBHARBOR_*) is the process's own, fixed for its life, so
Airflow's global configuration still never reaches the test process.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import traceback
from collections.abc import Iterator

# The answers go to the original stdout; fds 1 and 2 are pointed at each command's files.
ANSWERS = os.fdopen(os.dup(1), "w")


@contextlib.contextmanager
def _streams_to(stdout_path: str, stderr_path: str) -> Iterator[None]:
    saved = os.dup(1), os.dup(2)
    sys.stdout.flush()
    sys.stderr.flush()
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def _exit_code(exit: SystemExit) -> int:
    """What the interpreter would exit with: None is 0, a message is printed and is 1."""
    if exit.code is None:
        return 0
    if isinstance(exit.code, int):
        return exit.code
    print(exit.code, file=sys.stderr)
    return 1


def _run(parser: object, argv: list[str]) -> int:
    from airflow.cli.utils import redirect_stdout_log_handlers_to_stderr

    try:
        args = parser.parse_args(argv)  # type: ignore[attr-defined]
        if hasattr(args, "output"):  # as airflow's main(): logs must not corrupt -o json
            redirect_stdout_log_handlers_to_stderr()
        args.func(args)
    except SystemExit as exit:
        return _exit_code(exit)
    except BaseException:  # the CLI's uncaught error: its traceback, exit 1
        traceback.print_exc()
        return 1
    return 0


def main() -> None:
    from airflow import configuration  # first, as airflow's __main__ imports it
    from airflow.cli import cli_parser

    configuration.write_default_airflow_configuration_if_needed()
    parser = cli_parser.get_parser()
    for line in sys.stdin:
        request = json.loads(line)
        with _streams_to(request["stdout"], request["stderr"]):
            code = _run(parser, request["argv"])
        ANSWERS.write(json.dumps({"code": code}) + "\n")
        ANSWERS.flush()


if __name__ == "__main__":
    main()
