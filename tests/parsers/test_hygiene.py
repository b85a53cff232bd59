"""The fast storability check (parsers.hygiene.storable) says no exactly where the
path-naming walk (unstorable_field) finds a NUL or a lone surrogate, wherever it hides."""

from __future__ import annotations

from enum import StrEnum
from types import MappingProxyType
from typing import Any

import pytest

from parsers.hygiene import posting_storable, screen, storable, storable_text, unstorable_field
from parsers.types import ParseOutcome, Posting, Quality, RawOffice, Salary

LONG = "Beschreibung — " * 40  # over the length checked once per object


class Kind(StrEnum):
    BAD = "x\x00y"


def _posting(**changes: Any) -> Posting:
    base: dict[str, Any] = {"external_id": "1", "url": "https://x.example/1", "title": "Dev"}
    return Posting(**(base | changes))


BAD_PLACES = {
    "title": _posting(title="Eng\x00ineer"),
    "a surrogate in a non-ASCII description": _posting(description_html=LONG + "\udc80"),
    "a NUL in a long non-ASCII text": _posting(description_text=LONG + "\x00"),
    "an office": _posting(offices=(RawOffice("Berlin"), RawOffice("Pa\ud800ris"))),
    "a salary": _posting(salary=Salary(raw="€\x00")),
    "a payload key": _posting(payload={"ok": 1, "k\x00": 2}),
    "a payload key that is not text": _posting(payload={Kind.BAD: 1}),
    "a list in the payload": _posting(payload={"k": [1, 2.5, None, ["\ud800"]]}),
    "a tuple in the payload": _posting(payload={"k": ("a", "\x00")}),
    "a read-only mapping": _posting(payload=MappingProxyType({"k": {"j": "\udfff"}})),
    "a str subclass": _posting(payload={"k": Kind.BAD}),
    "a str subclass as a field": _posting(title=Kind.BAD),
    "an ASCII field beside non-ASCII ones": _posting(title="Kỹ sư", company="Acme\x00"),
    "a surrogate among many fields": _posting(title="Hà Nội", legal_entity="x\udbff"),
    "halves of one pair in two fields": _posting(title="\ud83d", company="\ude00"),
    "a salary's currency": _posting(salary=Salary(raw="10", min=1.0, currency="\udc00")),
}

GOOD = [
    _posting(),
    _posting(description_html=LONG, description_text=LONG, payload={"d": LONG, "e": LONG}),
    _posting(payload={"n": 1, "f": 1.5, "b": True, "none": None, "l": [{"x": "Hà Nội"}]}),
    _posting(payload={1: "non-text key", "tab\tand\nnewline": "\x01 other controls are text"}),
    # Two halves of one emoji in two fields are two lone surrogates: refused above;
    # the emoji whole in each, and every kind of value, are stored.
    _posting(
        title="🙂 Kỹ sư",
        company="🙂",
        offices=(RawOffice("Hà Nội", region="HN", country="VN"),),
        salary=Salary(raw="1–2 triệu", min=1e6, max=2e6, currency="VND", period="month"),
        more_offices=2,
    ),
]


@pytest.mark.parametrize("posting", BAD_PLACES.values(), ids=list(BAD_PLACES))
def test_the_fast_check_refuses_every_place_the_walk_names(posting: Posting) -> None:
    assert unstorable_field(posting) is not None
    assert storable(posting) is False
    assert posting_storable(posting) is False


@pytest.mark.parametrize("posting", GOOD)
def test_the_fast_check_passes_what_the_walk_passes(posting: Posting) -> None:
    assert unstorable_field(posting) is None
    assert storable(posting) is True
    assert posting_storable(posting) is True


def test_a_long_text_shared_by_two_fields_is_still_checked() -> None:
    bad = LONG + "\x00"
    posting = _posting(description_html=bad, payload={"content": bad})
    assert storable(posting) is False
    assert unstorable_field(posting) == "description_html"


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("", True),
        ("plain ascii", True),
        ("Hà Nội — 日本 🙂", True),
        ("\x00", False),
        ("ascii\x00", False),
        ("Hà\x00", False),
        ("\ud800", False),
        ("Hà Nội \udfff", False),
        ("\ufffe\uffff\x1f", True),  # stored as given: valid text
    ],
)
def test_storable_text_refuses_only_nul_and_lone_surrogates(text: str, ok: bool) -> None:
    assert storable_text(text) is ok


def test_screen_names_the_field_after_the_fast_check_refuses() -> None:
    bad = _posting(external_id="2", payload={"a": {"b": ["x", "\x00"]}})
    outcome = screen(ParseOutcome(quality=Quality.ACCEPTED, postings=(_posting(), bad)))
    assert [p.external_id for p in outcome.postings] == ["1"]
    assert [i.path for i in outcome.issues] == ["payload.a.b[1]"]
    assert outcome.dropped == 1
