"""Every file, module, make target and `jobharbor` command that docs/architecture.md
and the README name in backticks exists: in the tree, in the Makefile, in the CLI's
argparse tree. A name that only looks like one of these (a table `crawl.boards`, a URL
path `/healthz`, a runtime path `.data/pg`) is not checked."""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path

import pytest

from pipeline.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
DOCS = ("README.md", "docs/architecture.md")
# Top-level packages: a dotted name starting with one of these is a module path.
PACKAGES = ("pipeline", "parsers", "serving_sync", "web", "sandbox", "chaos", "bench", "tests")
# Folders a relative path may be written from (architecture.md lists pipeline/'s parts
# by their own names, `crawl/`, `db/`, `crawl/scan_store`).
PATH_BASES = ("", "pipeline", "pipeline/crawl")
_PATH = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_.-]+)*/?$")
_FILE_SUFFIXES = (".py", ".md", ".yml", ".yaml", ".sql", ".sh", ".toml", ".json", ".mako")


def backticked(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", text)


def commands_in_code_blocks(text: str) -> list[str]:
    """`jobharbor ...` and `make ...` lines of fenced blocks (a prompt, `.venv/bin/` and a
    trailing comment left out); output lines (`jobharbor demo: ...`) are not commands."""
    found = []
    for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL):
        for line in block.splitlines():
            line = line.strip().removeprefix("$ ").removeprefix(".venv/bin/")
            line = line.split(" #")[0].strip()
            words = line.split()
            command = len(words) >= 2 and words[0] in ("jobharbor", "make")
            if command and re.fullmatch(r"[a-z][a-z-]*", words[1]):
                found.append(line)
    return found


def path_problem(name: str, repo: Path) -> str | None:
    word = name.split()[0]
    if word.startswith("pipeline.") or not _PATH.match(word):
        return None
    if "/" not in word and not word.endswith(_FILE_SUFFIXES):
        return None  # a bare word (`discover`, `catalog`), not a path
    if "/" in word and "." in word.split("/")[0]:
        return None  # a host or board token (`tenant.wdN/Site`): no folder has a dot
    stem = word.rstrip("/")
    for base in PATH_BASES:
        where = repo / base / stem
        if where.exists() or where.with_name(where.name + ".py").exists():
            return None
    return f"path {word!r} does not exist"


def module_problem(name: str, repo: Path) -> str | None:
    if not re.fullmatch(r"[A-Za-z_][\w]*(\.[A-Za-z_]\w*)+", name):
        return None
    parts = name.split(".")
    if parts[0] not in PACKAGES:
        return None
    # The longest prefix that is a module file or package, then attributes after it.
    for cut in range(len(parts), 0, -1):
        base = repo.joinpath(*parts[:cut])
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            module, attrs = ".".join(parts[:cut]), parts[cut:]
            break
    else:
        return f"module {name!r} does not exist"
    if module.endswith("__main__"):
        return None  # importing it would run the program; its file exists
    target: object = importlib.import_module(module)
    for attr in attrs:
        if not hasattr(target, attr):
            return f"{name!r}: {module} has no {'.'.join(attrs)}"
        target = getattr(target, attr)
    return None


def make_targets(makefile: Path) -> set[str]:
    text = makefile.read_text(encoding="utf-8")
    return set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", text, flags=re.MULTILINE))


def make_problem(name: str, targets: set[str]) -> str | None:
    words = name.split()
    if len(words) < 2 or words[0] != "make":
        return None
    missing = [w for w in words[1:] if not w.startswith("-") and "=" not in w and w not in targets]
    return f"make target(s) {missing} of {name!r} not in the Makefile" if missing else None


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def command_problem(name: str, parser: argparse.ArgumentParser) -> str | None:
    words = name.split()
    if len(words) < 2 or words[0] != "jobharbor":
        return None
    for word in words[1:]:
        choices = _subcommands(parser)
        if not choices or word.startswith(("-", "<", "[")) or word.isupper():
            return None  # options and arguments from here on
        unknown = [alt for alt in word.split("|") if alt not in choices]  # `check|sync`
        if unknown:
            return f"command {name!r}: no subcommand {unknown[0]!r} (known: {', '.join(choices)})"
        if "|" in word:
            return None  # alternatives: their own arguments differ
        parser = choices[word]
    return None


def problems_of(
    text: str, repo: Path, targets: set[str], parser: argparse.ArgumentParser
) -> list[str]:
    found = []
    for name in [*backticked(text), *commands_in_code_blocks(text)]:
        name = name.strip()
        problem = (
            make_problem(name, targets)
            or command_problem(name, parser)
            or module_problem(name, repo)
            or path_problem(name, repo)
        )
        if problem:
            found.append(problem)
    return found


@pytest.mark.parametrize("doc", DOCS)
def test_every_name_in_the_docs_exists(doc: str) -> None:
    text = (REPO / doc).read_text(encoding="utf-8")
    assert problems_of(text, REPO, make_targets(REPO / "Makefile"), build_parser()) == []


def test_a_doc_naming_what_does_not_exist_is_told_each_name() -> None:
    text = (
        "```\n$ .venv/bin/jobharbor sources check   # fine\njobharbor nonesuch run\n"
        "jobharbor demo: output, not a command\n```\n"
        "Run `make demo` and `make nonesuch`; `jobharbor db up` and `jobharbor db explode`.\n"
        "Code in `pipeline/app.py`, `pipeline/nowhere.py`, `crawl/queue.py`, `crawl/lost/`;\n"
        "`pipeline.config.load_sources`, `pipeline.config.no_such_thing`,\n"
        "`pipeline.nowhere.thing`; not names: `crawl.boards`, `/healthz`, `.data/pg`."
    )
    problems = problems_of(text, REPO, make_targets(REPO / "Makefile"), build_parser())
    assert problems == [
        "make target(s) ['nonesuch'] of 'make nonesuch' not in the Makefile",
        "command 'jobharbor db explode': no subcommand 'explode' (known: "
        + ", ".join(_subcommands(_subcommands(build_parser())["db"]))
        + ")",
        "path 'pipeline/nowhere.py' does not exist",
        "path 'crawl/lost/' does not exist",
        "'pipeline.config.no_such_thing': pipeline.config has no no_such_thing",
        "'pipeline.nowhere.thing': pipeline has no nowhere.thing",
        "command 'jobharbor nonesuch run': no subcommand 'nonesuch' (known: "
        + ", ".join(_subcommands(build_parser()))
        + ")",
    ]
