"""`posting_of` builds the same frozen Posting the dataclass's own __init__ builds, and
refuses a set of values that does not name every field exactly."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import pytest

from parsers.types import Posting, RawOffice, Salary, posting_of


def _values(**changes: Any) -> dict[str, Any]:
    every = {f.name: f.default for f in dataclasses.fields(Posting)}
    every |= {"external_id": "R1", "url": "https://x.example/1", "title": "Kỹ sư", "payload": {}}
    return every | changes


FULL = _values(
    company="Acme",
    offices=(RawOffice("Hà Nội", country="VN"),),
    posted_at=datetime(2026, 1, 2, tzinfo=UTC),
    posted_precision="day",
    remote="hybrid",
    salary=Salary(raw="1-2", min=1.0, max=2.0),
    more_offices=2,
    payload={"id": "R1"},
)


@pytest.mark.parametrize("values", [_values(), FULL], ids=["defaults", "every field set"])
def test_posting_of_equals_the_dataclass_init_field_for_field(values: dict[str, Any]) -> None:
    built, expected = posting_of(dict(values)), Posting(**values)
    assert built == expected
    assert hash(built) == hash(expected)
    assert dataclasses.asdict(built) == dataclasses.asdict(expected)
    assert type(built) is Posting


def test_a_posting_of_is_frozen_like_any_posting() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        posting_of(_values()).title = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ({k: v for k, v in _values().items() if k != "title"}, "missing ['title']"),
        (_values(titel="typo"), "unknown ['titel']"),
    ],
)
def test_posting_of_refuses_values_that_do_not_name_every_field(
    values: dict[str, Any], named: str
) -> None:
    with pytest.raises(TypeError, match=named.replace("[", r"\[").replace("]", r"\]")):
        posting_of(values)
