"""Rows read from the store are reached by attribute, and loose mappings in signatures
are few; each count fails when a file breaks the rule on purpose."""

from __future__ import annotations

from pathlib import Path

from tests.architecture import typed_rows

REPO = Path(__file__).resolve().parents[2]

# Ceilings, not targets: the counts where the move to typed rows stands today. Each may
# only go down; lower it with the change that removes the last use it allowed.
ROW_SUBSCRIPTS_CEILING = 0
LOOSE_SIGNATURES_CEILING = 2


def test_string_keyed_row_subscripts_do_not_grow() -> None:
    found = typed_rows.row_subscripts(REPO)
    assert len(found) <= ROW_SUBSCRIPTS_CEILING, "\n".join(found)


def test_loose_mapping_signatures_do_not_grow() -> None:
    found = typed_rows.loose_signatures(REPO)
    assert len(found) <= LOOSE_SIGNATURES_CEILING, "\n".join(found)


def _tree_with(tmp_path: Path, package: str, source: str) -> Path:
    target = tmp_path / package / "broken.py"
    target.parent.mkdir(parents=True)
    target.write_text(source, encoding="utf-8")
    return tmp_path


def test_a_string_keyed_row_subscript_is_caught(tmp_path: Path) -> None:
    root = _tree_with(
        tmp_path,
        "pipeline/phases",
        "def f(board, row, other):\n"
        "    return board['id'], row['status'], other['id'], board[0], board.id\n",
    )
    assert typed_rows.row_subscripts(root) == [
        "pipeline/phases/broken.py:2 board['id']",
        "pipeline/phases/broken.py:2 row['status']",
    ]


def test_a_loose_mapping_in_a_signature_is_caught(tmp_path: Path) -> None:
    root = _tree_with(
        tmp_path,
        "pipeline/lifecycle",
        "from typing import Any\n"
        "from collections.abc import Mapping\n"
        "def takes(a: dict[str, Any]) -> None: ...\n"
        "def gives() -> Mapping[str, object]: ...\n"
        "def bare(a: dict) -> int: ...\n"
        "async def waits(*, a: Mapping[str, Any] | None = None) -> None: ...\n"
        "def typed(a: dict[str, int], b: Mapping[str, list[int]]) -> None: ...\n",
    )
    assert typed_rows.loose_signatures(root) == [
        "pipeline/lifecycle/broken.py:3 takes",
        "pipeline/lifecycle/broken.py:4 gives",
        "pipeline/lifecycle/broken.py:5 bare",
        "pipeline/lifecycle/broken.py:6 waits",
    ]
