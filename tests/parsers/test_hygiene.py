"""The fast storability check (parsers.hygiene.storable) says no exactly where the
path-naming walk (unstorable_field) finds a NUL or a lone surrogate, wherever it hides."""

from __future__ import annotations

import json
from enum import StrEnum
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parsers.hygiene import (
    CheckedPayload,
    json_body_storable,
    posting_storable,
    screen,
    storable,
    storable_text,
    unstorable_field,
)
from parsers.registry import REGISTRY
from parsers.types import (
    DocumentKind,
    ParseOutcome,
    Posting,
    Quality,
    RawDocument,
    RawOffice,
    Salary,
)

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


@pytest.mark.parametrize(
    ("body", "ok"),
    [
        (b'{"a": "plain", "b": [1, 2]}', True),
        ('{"a": "Hà Nội 한국 日本 🙂"}'.encode(), True),  # ED 95 9C (한) is no surrogate
        (b'{"a": "\\u003cp\\u003e caf\\u00e9"}', True),
        (b'{"a": "x\\u0000y"}', False),
        (b'{"a": "\\ud800"}', False),
        (b'{"a": "\\uDFFF"}', False),
        (b'{"a": "\\ud83d\\ude00"}', False),  # a pair: left to the walk, never assumed
        (b'{"a": "\xed\xa0\x80"}', False),  # a surrogate written in UTF-8
        ('{"a": "x"}'.encode("utf-16"), False),  # NUL bytes: not read as UTF-8 here
    ],
)
def test_json_body_storable_refuses_every_way_json_decodes_to_unstorable_text(
    body: bytes, ok: bool
) -> None:
    assert json_body_storable(body) is ok


@given(
    st.recursive(
        st.text(st.characters(exclude_categories=())) | st.none() | st.integers(),
        lambda kids: (
            st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3)
        ),
        max_leaves=8,
    )
)
def test_a_body_the_byte_scan_passes_decodes_to_storable_data_only(data: object) -> None:
    for ensure_ascii in (True, False):
        body = json.dumps(data, ensure_ascii=ensure_ascii).encode("utf-8", "surrogatepass")
        if json_body_storable(body):
            assert storable(json.loads(body)), body


def test_a_checked_payload_is_not_walked_but_an_unchecked_one_is() -> None:
    bad = {"k": "\x00"}
    assert storable(bad) is False
    assert storable(CheckedPayload(bad)) is True  # the check was made on the body


def test_a_row_with_a_nul_only_in_its_payload_is_still_dropped_with_its_issue() -> None:
    """The byte scan sees the escape, so the row's payload is walked and refused."""
    rows = [
        {"id": 1, "title": "Dev", "absolute_url": "https://x.example/1", "extra": "a\u0000b"},
        {"id": 2, "title": "Ops", "absolute_url": "https://x.example/2", "extra": "fine"},
    ]
    body = json.dumps({"jobs": rows}).encode()  # the NUL goes out as a \\u0000 escape
    doc = RawDocument(
        body, "https://boards-api.greenhouse.io/v1/boards/acme/jobs", DocumentKind.LISTING
    )
    outcome = REGISTRY.get("greenhouse").parse(doc)
    assert [p.external_id for p in outcome.postings] == ["2"]
    assert [(i.code, i.path) for i in outcome.issues if i.code == "unstorable_text"] == [
        ("unstorable_text", "payload.extra")
    ]


def test_rows_of_a_clean_json_body_carry_checked_payloads_equal_to_their_rows() -> None:
    rows = [{"id": 7, "title": "Kỹ sư", "absolute_url": "https://x.example/7"}]
    doc = RawDocument(
        json.dumps({"jobs": rows}).encode(),
        "https://boards-api.greenhouse.io/v1/boards/acme/jobs",
        DocumentKind.LISTING,
    )
    (posting,) = REGISTRY.get("greenhouse").parse(doc).postings
    assert type(posting.payload) is CheckedPayload
    assert posting.payload == rows[0]
