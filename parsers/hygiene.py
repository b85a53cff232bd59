"""Text the database cannot store: screened out of every parse outcome, with an issue.

PostgreSQL refuses NUL (U+0000) in text and JSONB, and a lone surrogate
(U+D800..U+DFFF, which JSON's \\uXXXX escapes can produce) cannot be encoded to
UTF-8 at all. One such posting would fail the whole transaction and lose its batch;
so a posting carrying either anywhere (its fields, its offices, its salary, its
payload) is dropped from the outcome with an issue naming it and the field, and
counts as a dropped row (a listing that dropped a row cannot prove an absence).
Other control characters are stored as given: they are valid text.

Applied to every registered parser by the registry (parsers.registry.add).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from operator import attrgetter
from typing import Any

from parsers.types import Issue, ParseOutcome, Posting, Quality, RawOffice, Salary

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_field(value: Any, path: str = "") -> str | None:
    """The path of the first text inside `value` the database cannot store, or None."""
    if isinstance(value, str):
        return path or "value" if _UNSTORABLE.search(value) else None
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = unstorable_field(str(key), f"{path}.{key}") or unstorable_field(
                item, f"{path}.{key}"
            )
            if found:
                return found
        return None
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = unstorable_field(item, f"{path}[{i}]")
            if found:
                return found
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            found = unstorable_field(getattr(value, f.name), f"{path}.{f.name}".lstrip("."))
            if found:
                return found
    return None


def storable_text(value: str) -> bool:
    """No NUL and no lone surrogate, without a regular expression: `in` and
    `isascii` run at memory speed, and only a non-ASCII string is encoded (UTF-8
    refuses exactly the surrogates). The character class costs about 7 ns a
    character, the whole parse of a long description several times over."""
    if "\x00" in value:
        return False
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# What json.loads can turn into text PostgreSQL refuses: a \u0000 escape, an escaped
# surrogate (a pair too: telling pairs from lone ones is the slow check's job), a
# surrogate written in UTF-8 (ED A0..BF; json decodes bytes with "surrogatepass"), a
# NUL byte (UTF-16 and UTF-32 bodies hold them; a NUL in a string is refused anyway).
# Each pattern starts with a literal, which the regular expression engine skips to:
# one alternation of all three tested every byte, costing twice json.loads itself.
_UNSTORABLE_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")
_UTF8_SURROGATE = re.compile(rb"\xed[\xa0-\xbf]")


def json_body_storable(body: bytes) -> bool:
    """True when no string json.loads decodes from `body` can hold a NUL or a lone
    surrogate: scans of the bytes at C speed instead of a walk of every row."""
    if b"\x00" in body:
        return False
    if b"\xed" in body and _UTF8_SURROGATE.search(body):
        return False
    return b"\\u" not in body or _UNSTORABLE_ESCAPE.search(body) is None


# Where a reader that turns its format into rows of text (an HTML search page) says
# that every text of its rows is storable, for them to go out as CheckedPayload.
ROWS_CHECKED = "$rows_checked"


class CheckedPayload(dict[str, Any]):
    """A posting's payload whose every text is known storable: a row of a JSON body
    `json_body_storable` passed. `storable` takes it as checked instead of walking it
    (for short listing rows the walk cost as much as building the posting). A value,
    like the posting that carries it: never changed after the check."""


# Strings at least this long are checked once per posting even when several fields
# hold the same object (a description kept both as a field and in the payload).
_SEEN_LENGTH = 256
_FIELDS: dict[type, tuple[str, ...]] = {}
_ATOMS = (type(None), int, float, bool)


def storable(value: Any) -> bool:
    """True when every text inside `value` (the same walk as `unstorable_field`:
    strings, mapping keys and values, list and tuple items, dataclass fields) can be
    stored; `unstorable_field` names the place when it is not.

    One loop over an explicit stack, the common kinds tested by exact type and ASCII
    text checked inline: it runs for every posting of every parse, and a recursive
    walk costs more in calls than the checks themselves."""
    pending: list[Any] = [value]
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is str:
            if "\x00" in item:
                return False
            if item.isascii():
                continue
            if len(item) >= _SEEN_LENGTH:
                if id(item) in seen:
                    continue
                seen.add(id(item))
            if not storable_text(item):
                return False
        elif kind in _ATOMS or kind is CheckedPayload:
            continue
        elif kind is dict:
            for key in item:
                plain = type(key) is str and "\x00" not in key and key.isascii()
                if not plain and not storable_text(str(key)):
                    return False
            pending.extend(item.values())
        elif kind is list or kind is tuple:
            pending.extend(item)
        elif (names := _FIELDS.get(kind)) is not None:
            pending.extend(getattr(item, name) for name in names)
        elif isinstance(item, str):  # a str subclass (an enum's value)
            if not storable_text(item):
                return False
        elif isinstance(item, Mapping):
            if not all(storable_text(str(key)) for key in item):
                return False
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
        else:
            pending.extend(getattr(item, name) for name in _field_names(kind, item))
    return True


def _field_names(kind: type, value: Any) -> tuple[str, ...]:
    """A dataclass instance's field names (cached by class); none for anything else."""
    names = _FIELDS.get(kind)
    if names is None:
        is_record = dataclasses.is_dataclass(value) and not isinstance(value, type)
        names = tuple(f.name for f in dataclasses.fields(value)) if is_record else ()
        _FIELDS[kind] = names
    return names


# A posting's fields typed `str | None` and its offices' (all of theirs): each read by
# one C call, their texts joined by C calls (`filter(None, ...)` drops the None). A
# salary's holds numbers, sorted out by `_gather`.
_TEXT_VALUES = attrgetter(
    *(
        f.name
        for f in dataclasses.fields(Posting)
        if f.name not in ("payload", "offices", "salary", "posted_at", "more_offices")
    )
)
_OFFICE_VALUES = attrgetter(*(f.name for f in dataclasses.fields(RawOffice)))
_SALARY_VALUES = attrgetter(*(f.name for f in dataclasses.fields(Salary)))
_NOT_TEXT = (type(None), int, float, bool, datetime)
_DATE_KINDS = (type(None), datetime)


def posting_storable(posting: Posting) -> bool:
    """`storable(posting)`; see `postings_storable`."""
    return postings_storable((posting,))


def postings_storable(postings: Sequence[Posting]) -> bool:
    """`all(storable(p) for p in postings)`, their texts checked as one joined string:
    a NUL shows by one memchr, a lone surrogate by one failed encode (joining pairs no
    surrogates). The walk pushed and popped each of two dozen values of every posting
    in Python, more than the rest of a short listing row's checks together. A value
    of another kind where the schema has text (a list, a number) fails the join and
    sends the postings to the walk; so does a date, a count, an office or a salary of
    another kind, and a payload not checked already (parsers.hygiene.CheckedPayload)."""
    texts: list[str] = []
    for posting in postings:
        plain = (
            type(posting.posted_at) in _DATE_KINDS
            and type(posting.more_offices) is int
            and (
                (posting.offices == () and posting.salary is None)  # a listing row's, often
                or _office_texts(posting, texts)
            )
        )
        if not plain:
            if not storable(posting):
                return False
            continue
        texts.extend(filter(None, _TEXT_VALUES(posting)))
        payload = posting.payload
        if type(payload) is not CheckedPayload and not storable(payload):
            return False
        # A description is most of a page's text: a posting with one has its texts
        # checked at once, while they are in the cache (one join of a page of
        # descriptions cost more than the checks it saved).
        if posting.description_html or posting.description_text:
            if not _joined_storable(texts, postings):
                return False
            texts.clear()
    return _joined_storable(texts, postings)


def _joined_storable(texts: list[str], postings: Sequence[Posting]) -> bool:
    try:
        joined = "\x01".join(texts)
    except TypeError:  # not all texts: the walk tells
        return all(storable(posting) for posting in postings)
    return "\x00" not in joined and (joined.isascii() or storable_text(joined))


def _office_texts(posting: Posting, texts: list[str]) -> bool:
    """Add the texts of the posting's offices and salary to `texts`; False when one is
    not a RawOffice or a Salary of texts and numbers (the walk then decides)."""
    offices, salary = posting.offices, posting.salary
    if type(offices) is not tuple:
        return False
    for office in offices:
        if type(office) is not RawOffice:
            return False
        texts.extend(filter(None, _OFFICE_VALUES(office)))
    return salary is None or (type(salary) is Salary and _gather(_SALARY_VALUES(salary), texts))


def _gather(values: tuple[Any, ...], texts: list[str]) -> bool:
    """Add the texts among `values` to `texts`; False for a value of another kind."""
    for value in values:
        if type(value) is str:
            texts.append(value)
        elif type(value) not in _NOT_TEXT:
            return False
    return True


def screen(outcome: ParseOutcome) -> ParseOutcome:
    """The outcome without postings the database cannot store (each one an issue)."""
    if postings_storable(outcome.postings):  # nearly always: one check for the page
        return outcome
    kept: list[Posting] = []
    issues: list[Issue] = []
    for posting in outcome.postings:
        where = None if posting_storable(posting) else unstorable_field(posting)
        if where is None:
            kept.append(posting)
            continue
        shown = _UNSTORABLE.sub("?", posting.external_id)[:80]
        issues.append(
            Issue(
                "unstorable_text",
                f"posting {shown!r} dropped: NUL or a lone surrogate in {where}",
                path=where,
            )
        )
    if not issues:
        return outcome
    quality = Quality.REJECTED if not kept else outcome.quality
    return dataclasses.replace(
        outcome,
        quality=quality,
        postings=tuple(kept),
        issues=(*outcome.issues, *issues),
        dropped=outcome.dropped + len(issues),
    )
