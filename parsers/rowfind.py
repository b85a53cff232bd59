"""Finding a listing's rows by their own markers, wherever they sit.

Boards answer in more than one public shape: the documented envelope, a bare array
(an older API version, a body without its envelope), or the usual envelope inside
another wrapper. A row is recognised by what it carries (the platform's id and
title keys), not by the one path the documentation names, so a changed envelope
costs an issue (`listing_shape`, the outcome is `partial`), never the rows.

The search runs only when the documented path does not hold a list, so reading the
usual shape costs nothing more.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from parsers.types import Issue

SHAPE_ISSUE = "listing_shape"
# Where a reader that first turns its format into data (an XML feed, an HTML search
# page) leaves the shape issues it found, for the outcome to carry.
SHAPE_ISSUES = "$issues"
# Deeper than any envelope seen on a job board; bounds the search on hostile input.
_MAX_DEPTH = 6

Step = str | int


@dataclass(frozen=True)
class RowMarkers:
    """Keys that make an object a platform's row: one of `ids` (when any are named)
    and one of `titles`."""

    ids: tuple[str, ...]
    titles: tuple[str, ...]

    def matches(self, item: Any) -> bool:
        if type(item) is not dict:
            return False
        if not any(key in item for key in self.titles):
            return False
        return not self.ids or any(key in item for key in self.ids)

    def describe(self) -> str:
        ids = "/".join(self.ids)
        titles = "/".join(self.titles)
        return f"{ids} and {titles}" if ids else titles


@dataclass(frozen=True)
class FoundRows:
    rows: list[Any]
    envelope: Any  # what the usual root-relative paths (totals, `$.name`) are read from
    issue: Issue


def path_text(steps: Sequence[Step]) -> str:
    return "$" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps)


def find_rows(data: Any, markers: RowMarkers, usual: tuple[Step, ...]) -> FoundRows | None:
    """Every list of marker-carrying objects in the document (grouped listings, such
    as jobs per department, hold several), or None when nothing looks like the
    platform's rows.

    A list counts when at least half its elements are rows, so a stray object with
    an id and a title inside some other list does not make a listing. Lists inside
    rows are never searched (offices, departments)."""
    found: list[tuple[tuple[Step, ...], list[Any]]] = []
    queue: deque[tuple[Any, tuple[Step, ...]]] = deque([(data, ())])
    while queue:
        value, steps = queue.popleft()
        if isinstance(value, list):
            matched = sum(1 for element in value if markers.matches(element))
            if matched and matched * 2 >= len(value):
                found.append((steps, value))
                continue  # the inside of rows is not another listing
            children: list[tuple[Step, Any]] = list(enumerate(value))
        elif isinstance(value, dict):
            children = list(value.items())
        else:
            continue
        if len(steps) < _MAX_DEPTH:
            queue.extend((child, (*steps, key)) for key, child in children)
    if not found:
        return None
    if len(found) == 1:
        steps, rows = found[0]
        envelope, shape = _envelope(data, steps, usual)
        where = path_text(steps)
    else:
        rows = [row for _, group in found for row in group]
        envelope, where = data, _pattern([steps for steps, _ in found])
        shape = f"in {len(found)} lists (a grouped listing)"
    message = (
        f"{len(rows)} rows (objects with {markers.describe()}) found at {where}, "
        f"{shape}; the documented listing is at {path_text(usual)}"
    )
    return FoundRows(rows, envelope, Issue(SHAPE_ISSUE, message, where))


def _pattern(places: list[tuple[Step, ...]]) -> str:
    """`$.departments[*].jobs` for lists that differ only by index, else the first
    place and how many others."""
    first = places[0]
    if all(len(p) == len(first) for p in places):
        columns = list(zip(*places, strict=True))
        if all(isinstance(c[0], int) or len(set(c)) == 1 for c in columns):
            return "$" + "".join(
                (f"[{c[0]}]" if len(set(c)) == 1 else "[*]")
                if isinstance(c[0], int)
                else f".{c[0]}"
                for c in columns
            )
    return f"{path_text(first)} (and {len(places) - 1} more)"


def _envelope(data: Any, steps: tuple[Step, ...], usual: tuple[Step, ...]) -> tuple[Any, str]:
    """The object the documented root-relative paths apply to, and the shape found."""
    if usual and steps[len(steps) - len(usual) :] == usual and len(steps) > len(usual):
        prefix = steps[: len(steps) - len(usual)]
        return _at(
            data, prefix
        ), f"the usual envelope inside an extra wrapper ({path_text(prefix)})"
    if not usual and steps:
        return _at(data, steps), f"a bare array inside a wrapper ({path_text(steps[:-1])})"
    if not steps:
        return data, "a bare array without the usual envelope"
    parent = _at(data, steps[:-1])
    return (parent if isinstance(parent, dict) else data), "under another envelope"


def _at(data: Any, steps: Sequence[Step]) -> Any:
    for step in steps:
        data = data[step]
    return data
