"""The boards an operator names for a forced discover: keys or ids of one source.

Every name is checked before anything is polled, so a typo fails the run with the
names it did not know instead of polling the rest and hiding the mistake.

A name that is a retired or disabled board is refused rather than polled. A retired
board answered 404 again and again, and one good answer would make it active again as
a side effect of a manual poll; a disabled board is no longer in sources.yaml. Either
way the board stays out of the claim query, which keeps forcing on the one claim path
every run takes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.db.connect import DictConnection
from pipeline.db.rows import FromRow, fetch_all
from pipeline.errors import FatalError

_OF_SOURCE = """
SELECT id, board_key, enabled, state, state_reason
FROM crawl.boards WHERE source_id = %(source)s
"""


class UnknownBoards(FatalError):
    """A named board is not a board of the source: nothing was polled."""


class BoardsRefused(FatalError):
    """A named board is retired or disabled: nothing was polled."""


@dataclass(frozen=True, slots=True)
class KnownBoard(FromRow):
    id: int
    board_key: str
    enabled: bool
    state: str
    state_reason: str | None


def named_board_ids(conn: DictConnection, source: str, names: Sequence[str]) -> tuple[int, ...]:
    """The ids of the boards `names` names in `source` (see `pick_named`)."""
    with conn.transaction():
        known = fetch_all(conn, KnownBoard, _OF_SOURCE, {"source": source})
    return pick_named(source, known, names)


def pick_named(source: str, known: Iterable[KnownBoard], names: Sequence[str]) -> tuple[int, ...]:
    """Each name as a board key of the source, else as a board id (a key wins: a
    numeric key is still its own board). Unknown names fail first, then boards that
    may not be polled; either way nothing has been polled."""
    boards = list(known)
    matched = {name: _board_named(name, boards) for name in dict.fromkeys(names)}
    unknown = [name for name, board in matched.items() if board is None]
    if unknown:
        raise UnknownBoards(
            f"nothing polled: {source} has no board {', '.join(map(repr, unknown))}"
            " (give board keys or ids of this source)"
        )
    chosen = [board for board in matched.values() if board is not None]
    refusals = [
        f"{source}/{board.board_key} {why}" for board in chosen if (why := _why_refused(board))
    ]
    if refusals:
        raise BoardsRefused("refused, nothing polled: " + "; ".join(refusals))
    return tuple(sorted({board.id for board in chosen}))


def _board_named(name: str, boards: Sequence[KnownBoard]) -> KnownBoard | None:
    by_key = next((b for b in boards if b.board_key == name), None)
    if by_key is not None or not name.strip().isdigit():
        return by_key
    return next((b for b in boards if b.id == int(name)), None)


def _why_refused(board: KnownBoard) -> str | None:
    if board.state == "retired":
        why = f" ({board.state_reason})" if board.state_reason else ""
        return f"is retired{why}; a manual poll does not bring a retired board back"
    if not board.enabled:
        return "is disabled (no longer in sources.yaml)"
    return None
