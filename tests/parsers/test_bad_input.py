"""Bad input is a rejection with a reason, never an exception that stops a phase:
empty, truncated, garbled, the wrong JSON shape, HTML where JSON was expected."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsers.html_site import HtmlSiteSpec, build_parser
from parsers.registry import REGISTRY
from parsers.types import DocumentKind, Quality
from tests.parsers.conftest import doc

BUILT_IN = sorted(REGISTRY.names())
SITE = build_parser(
    HtmlSiteSpec(
        name="site",
        item="div.job",
        link="a::attr(href)",
        id_pattern=r"/(\d+)$",
        listing_fields={"title": "a::text"},
        detail_fields={"title": "h1::text"},
    )
)
GOOD_GREENHOUSE = json.dumps(
    {
        "jobs": [
            {
                "id": 1,
                "title": "Engineer",
                "absolute_url": "https://x/jobs/1",
                "content": "&lt;p&gt;Hi&lt;/p&gt;",
            }
        ]
    }
)

BAD_BODIES = {
    "empty": b"",
    "whitespace": b"  \n\t ",
    "truncated_json": GOOD_GREENHOUSE[:40].encode(),
    "garbled_bytes": bytes(range(256)) * 4,
    "not_utf8": '{"jobs": ["caf\u00e9"]}'.encode("latin-1"),
    "json_null": b"null",
    "json_number": b"42",
    "json_string": b'"jobs"',
    "wrong_shape_object": b'{"data": {"items": []}, "status": "ok"}',
    "wrong_shape_items": b'{"jobs": [1, "two", null]}',
    "html_instead_of_json": b"<!DOCTYPE html><html><head><title>Careers</title></head><body><h1>Hello</h1></body></html>",
    "html_error_page": b"<html><body><h1>502 Bad Gateway</h1></body></html>",
    "xml_other_root": b"<?xml version='1.0'?><rss><channel/></rss>",
    "xml_entity_bomb": (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
        b"<workzag-jobs><position><id>1</id><name>&lol2;</name></position></workzag-jobs>"
    ),
    "deeply_nested": b"[" * 5000 + b"]" * 5000,
}


@pytest.mark.parametrize("name", [*BUILT_IN, "site"])
@pytest.mark.parametrize("case", sorted(BAD_BODIES))
@pytest.mark.parametrize("kind", list(DocumentKind))
def test_bad_input_is_a_rejection_with_a_reason(name: str, case: str, kind: DocumentKind) -> None:
    parser = SITE if name == "site" else REGISTRY.get(name)
    outcome = parser.parse(doc(BAD_BODIES[case], "https://example.com/jobs/1", kind))
    if case == "xml_entity_bomb" and name == "personio":
        # Entities are never expanded: the title stays empty, so the one item is rejected.
        assert outcome.quality is Quality.REJECTED
        assert all("lol" not in p.title for p in outcome.postings)
        return
    if (name, case, kind) == ("successfactors", "xml_other_root", DocumentKind.LISTING):
        # An RSS channel is SuccessFactors' career-site feed: without items, an empty board.
        assert outcome.quality is Quality.ACCEPTED
        assert outcome.postings == ()
        return
    assert outcome.quality is Quality.REJECTED, (name, case, outcome)
    assert outcome.issues, (name, case)
    assert all(issue.code and issue.message for issue in outcome.issues)
    assert outcome.postings == ()


@settings(max_examples=150, deadline=None)
@given(body=st.binary(max_size=2048), name=st.sampled_from(BUILT_IN))
def test_arbitrary_bytes_never_raise(body: bytes, name: str) -> None:
    outcome = REGISTRY.get(name).parse(doc(body))
    assert outcome.quality in Quality


@settings(max_examples=150, deadline=None)
@given(
    data=st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=20),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "jobs",
                        "id",
                        "title",
                        "offers",
                        "content",
                        "jobPostings",
                        "result",
                        "items",
                        "location",
                        "x",
                    ]
                ),
                children,
                max_size=5,
            )
        ),
        max_leaves=30,
    ),
    name=st.sampled_from(BUILT_IN),
)
def test_arbitrary_json_never_raises(data: object, name: str) -> None:
    outcome = REGISTRY.get(name).parse(doc(json.dumps(data)))
    if outcome.quality is not Quality.REJECTED:
        assert all(p.external_id and p.title and p.url for p in outcome.postings)


def test_a_listing_whose_items_are_all_unusable_is_rejected() -> None:
    body = json.dumps({"jobs": [{"id": 1}, {"title": "No id"}]})
    outcome = REGISTRY.get("greenhouse").parse(doc(body))
    assert outcome.quality is Quality.REJECTED
    codes = {i.code for i in outcome.issues}
    assert {"missing_title", "missing_external_id"} <= codes


def test_one_bad_item_leaves_the_rest_partial() -> None:
    body = json.dumps({"jobs": [json.loads(GOOD_GREENHOUSE)["jobs"][0], {"id": 2}, "junk"]})
    outcome = REGISTRY.get("greenhouse").parse(doc(body))
    assert outcome.quality is Quality.PARTIAL
    assert [p.external_id for p in outcome.postings] == ["1"]
    assert {"missing_title", "bad_item"} <= {i.code for i in outcome.issues}
