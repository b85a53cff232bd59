"""The config-driven JSON mapping: paths, shapes, repeats, and the registry rules."""

from __future__ import annotations

import json

import pytest

from parsers import mappings
from parsers.jsonmap import JsonMapping, JsonParser, OfficeMap, RemoteRule, compile_path
from parsers.registry import REGISTRY, DuplicateParserError, ParserRegistry, UnknownParserError
from parsers.types import PageSignal, Quality
from pipeline.platform_names import ATS_PLATFORMS
from tests.parsers.conftest import doc

ITEM = {"id": 7, "a": {"b": [{"c": "x"}, {"c": "y"}, {"d": 1}]}, "list": ["p", "q"]}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("id", 7),
        ("a.b[0].c", "x"),
        ("a.b[*].c", ["x", "y"]),
        ("a.b[-1].d", 1),
        ("a.b[9].c", None),
        ("list[*]", ["p", "q"]),
        ("missing.deeper", None),
        ("id.not_a_dict", None),
        ("$.root_key", "root"),
        ("", ITEM),
    ],
)
def test_paths(path: str, expected: object) -> None:
    assert compile_path(path)(ITEM, {"root_key": "root"}) == expected


@pytest.mark.parametrize(
    "item",
    [
        {"offices": [{"n": 1}, None, ["a", None, "b"], "c", [], {}]},
        {"offices": []},
        {"offices": None},
        {"offices": {"not": "a list"}},
        {"offices": "text"},
        {},
        ["offices"],
        None,
    ],
)
def test_the_fast_paths_read_what_the_general_walk_reads(item: object) -> None:
    """`name`, `name.sub`, `name[*]` and `` have getters of their own; a path from the
    root (`$.`) is always read by the general walk, so the two must agree."""
    for path in ("offices", "offices.not", "offices[*]"):
        assert compile_path(path)(item, None) == compile_path(f"$.{path}")(None, item), path
    assert compile_path("")(item, None) is item


TOY = JsonMapping(
    platform="toy",
    listing="rows",
    single="row",
    single_keys=("key", "name"),
    total="count",
    fields={
        "external_id": "key",
        "title": "name",
        "url": ("link", "fallback_link"),
        "company": "$.org",
    },
    offices=(OfficeMap("places[*]", text="label", country="cc"),),
    remote=(RemoteRule("mode", {"wfh": "yes", "mixed": "hybrid"}),),
)
PARSE = JsonParser(TOY)


def _row(key: str, **extra: object) -> dict[str, object]:
    return {"key": key, "name": f"Job {key}", "link": f"https://x/{key}", **extra}


def test_listing_single_and_error_shapes() -> None:
    listing = PARSE(
        doc(json.dumps({"rows": [_row("1"), _row("2", mode="WFH")], "count": 2, "org": "Acme"}))
    )
    assert [p.external_id for p in listing.postings] == ["1", "2"]
    assert listing.total == 2
    assert [p.company for p in listing.postings] == ["Acme", "Acme"]
    assert [p.remote for p in listing.postings] == ["unknown", "yes"]
    single = PARSE(doc(json.dumps({"row": _row("3", link=None, fallback_link="https://x/alt")})))
    assert single.total is None
    assert single.postings[0].url == "https://x/alt"
    error = PARSE(doc(json.dumps({"error": "Board not found"})))
    assert (error.quality, error.signal) == (Quality.REJECTED, PageSignal.NOT_FOUND)
    other = PARSE(doc(json.dumps({"rows": "nope"})))
    assert other.issues[0].code == "unexpected_shape"
    assert "'rows'" in other.issues[0].message


def test_repeated_items_are_one_posting_with_every_office() -> None:
    rows = [
        _row("1", places=[{"label": "Madrid", "cc": "ES"}]),
        _row("1", places=[{"label": "Lisbon", "cc": "PT"}]),
        _row("2"),
    ]
    outcome = PARSE(doc(json.dumps({"rows": rows})))
    first = outcome.posting("1")
    assert [(o.text, o.country) for o in first.offices] == [("Madrid", "ES"), ("Lisbon", "PT")]
    assert len(first.payload["_repeats"]) == 1
    assert len(outcome.postings) == 2


def test_a_field_echoing_another_is_one_office() -> None:
    rows = [_row("1", places=[{"label": "Austin, United States"}, {"label": "United States"}])]
    (posting,) = PARSE(doc(json.dumps({"rows": rows}))).postings
    assert [o.text for o in posting.offices] == ["Austin, United States"]


def test_every_platform_has_one_mapping() -> None:
    platforms = set(ATS_PLATFORMS)
    assert set(mappings.MAPPINGS) == platforms
    assert platforms <= set(REGISTRY.names())


def test_a_duplicate_registration_fails_loudly() -> None:
    registry = ParserRegistry()
    registry.register("toy", "1")(PARSE)
    with pytest.raises(DuplicateParserError, match="toy@1"):
        registry.register("toy", "1")(PARSE)
    registry.register("toy", "10")(PARSE)
    registry.register("toy", "2")(PARSE)
    assert registry.get("toy").version == "10"  # versions compare as numbers
    with pytest.raises(UnknownParserError, match="versions of 'toy': 1, 2, 10"):
        registry.get("toy@3")
