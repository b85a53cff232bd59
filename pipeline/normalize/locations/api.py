"""`locate`: raw location text in, offices and countries out."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from pipeline.settings import load_settings

from . import gazetteer
from .cohere import cohere
from .model import LocationResult, Office
from .places import dedupe_offices
from .remote import check_hint, remote_status
from .resolve import Choice, read_segment
from .split import split_text
from .vocab import Noise


def locate(text: str | Sequence[str] | None, *, remote_hint: str | None = None) -> LocationResult:
    """Normalize the location text of one posting.

    `text` is one raw string, or several office strings of one posting (Lever's
    allLocations, Ashby's secondary locations); evidence never crosses from one
    string to another. `remote_hint` is the platform's own flag, already mapped
    to "yes" / "hybrid" / "unknown". Pure: no I/O once the index is loaded.
    """
    hint = check_hint(remote_hint) if remote_hint is not None else None
    if type(text) is str:  # the common case, without the general checks
        pieces: tuple[str, ...] = (text,) if text and not text.isspace() else ()
        shown = text
    else:
        pieces = tuple(_pieces(text))
        shown = text if isinstance(text, str) else " | ".join(pieces)
    if _cached is _UNSET:  # the first call sizes the memo from the settings
        set_result_cache(load_settings().locate_cache)
    if _cached is not None:
        return _cached(shown, pieces, hint)  # type: ignore[operator]
    return _locate(shown, pieces, hint)


def _locate(shown: str, pieces: tuple[str, ...], hint: str | None) -> LocationResult:
    index = gazetteer.INDEX or gazetteer.get_index()
    offices: list[Office] = []
    countries: set[str] = set()
    unresolved: list[str] = []
    modes: set[Noise] = set()
    more = 0
    for piece in pieces:
        split = split_text(piece)
        more += split.more_offices
        unresolved.extend(split.counted)
        choices: list[Choice] = []
        groups: set[str] = set()
        found: set[str] = set()
        for tokens in split.segments:
            reading = read_segment(tokens, index)
            offices.extend(reading.offices)
            found |= reading.countries
            unresolved.extend(reading.unresolved)
            modes |= reading.modes
            choices.extend(reading.choices)
            groups |= reading.groups
        if len(choices) > 1 and any(c.office.ambiguous for c in choices):
            narrowed = cohere(choices, index)
            if narrowed is not None:  # the string read as a whole (cohere.py)
                del offices[len(offices) - len(choices) :]
                offices.extend(c.office for c in narrowed)
                found = groups.union(*(c.countries for c in narrowed))
        countries |= found
        if split.cut:
            unresolved.append(_shorten(split.cut))
    return LocationResult(
        input=shown,
        offices=dedupe_offices(offices) if len(offices) > 1 else tuple(offices),
        countries=tuple(sorted(countries)),
        remote=remote_status(modes, hint),
        unresolved=tuple(dict.fromkeys(unresolved)) if unresolved else (),
        more_offices=more,
    )


# Postings repeat the same few thousand strings, so results are memoized
# (results are immutable). JOBHARBOR_LOCATE_CACHE sets the size; 0 turns it off. Read
# at the first call, not at import: importing reads no setting.
_UNSET: object = object()
_cached: object = _UNSET


def set_result_cache(size: int) -> None:
    """Memoize up to `size` results (0: no memo; the benchmark measures without it)."""
    global _cached
    _cached = lru_cache(maxsize=size)(_locate) if size > 0 else None


def _pieces(text: str | Sequence[str] | None) -> list[str]:
    if text is None:
        return []
    if isinstance(text, str):
        return [text] if text.strip() else []
    if isinstance(text, bytes | bytearray):
        decoded = bytes(text).decode("utf-8", errors="replace")
        return [decoded] if decoded.strip() else []
    if isinstance(text, Sequence):
        out = []
        for item in text:
            if item is None:
                continue
            if not isinstance(item, str):
                raise TypeError(f"location strings must be str, not {type(item).__name__}")
            if item.strip():
                out.append(item)
        return out
    raise TypeError(f"locate() takes a str or a sequence of str, not {type(text).__name__}")


def _shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
