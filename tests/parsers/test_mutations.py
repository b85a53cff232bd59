"""Every platform's golden listing cases under mechanical mutations of their shape.

A listing reader finds rows by their own markers, so an envelope removed or added,
keys reordered, unknown keys, other whitespace or other (equivalent) entities must
give the same postings (ids, titles, URLs, locations). Shape changes the reader
cannot take for the documented shape make the outcome `partial` with a
`listing_shape` issue; the others leave the outcome as it was. Each mutation is
checked to change the input, so no case passes by parsing the original again.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import lxml.etree
import lxml.html
import pytest

from parsers.types import ParseOutcome, Quality
from tests.parsers.golden import SITE_PARSER, Case, cases

SHAPE = "listing_shape"

# Where each platform's documented listing keeps its rows (JSON), written here on
# purpose rather than read from parsers/mappings.py: the test states the formats.
JSON_ROWS: dict[str, tuple[tuple[str | int, ...], ...]] = {
    "greenhouse": (("jobs",),),
    "lever": ((),),
    "ashby": (("jobs",),),
    "smartrecruiters": (("content",),),
    "workable": (("jobs",), ("results",)),
    "workday": (("jobPostings",),),
    "recruitee": (("offers",),),
    "bamboohr": (("result",),),
    "teamtailor": (("items",),),
    "pinpoint": (("data",),),
    "breezy": ((),),
    "rippling": (("items",),),
    "oracle": (("items", 0, "requisitionList"),),
}
# The element around an HTML listing's rows.
HTML_CONTAINER = {"icims": ".iCIMS_JobsTable", "jobvite": ".jv-job-list"}


# ---------------------------------------------------------------- JSON mutations


def _rows_at(case: Case, data: Any) -> tuple[str | int, ...]:
    assert case.parser in JSON_ROWS, f"{case.parser}: add where its listing keeps rows to JSON_ROWS"
    for steps in JSON_ROWS[case.parser]:
        value = data
        for step in steps:
            value = value[step] if isinstance(value, (dict, list)) and _has(value, step) else None
        if isinstance(value, list):
            return steps
    raise AssertionError(f"{case.id}: no rows at the documented path")


def _has(value: Any, step: str | int) -> bool:
    return step in value if isinstance(value, dict) else isinstance(step, int) and step < len(value)


def _compact(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def json_remove_envelope(case: Case, body: bytes) -> bytes:
    data = json.loads(body)
    rows = data
    for step in _rows_at(case, data):
        rows = rows[step]
    return _compact(rows)


def json_wrap_envelope(case: Case, body: bytes) -> bytes:
    return _compact({"data": json.loads(body)})


def _reordered(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _reordered(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(v) for v in value]
    return value


def json_reorder_keys(case: Case, body: bytes) -> bytes:
    data = json.loads(body)
    assert _compact(_reordered(data)) != _compact(data), "reordering changed nothing"
    return _compact(_reordered(data))


def _with_unknown(value: Any) -> Any:
    if isinstance(value, dict):
        out = {k: _with_unknown(v) for k, v in value.items()}
        out["x_mutation_unknown"] = {"added": True, "n": 7}
        return out
    if isinstance(value, list):
        return [_with_unknown(v) for v in value]
    return value


def json_unknown_keys(case: Case, body: bytes) -> bytes:
    return _compact(_with_unknown(json.loads(body)))


def json_whitespace(case: Case, body: bytes) -> bytes:
    return json.dumps(json.loads(body), ensure_ascii=False, indent=3).encode()


def json_escapes(case: Case, body: bytes) -> bytes:
    """Every non-ASCII character and the first letter of every string as `\\uXXXX`,
    every `/` as `\\/`: the same strings, written differently."""
    text = json.dumps(json.loads(body), ensure_ascii=True).replace("/", "\\/")
    return re.sub(r'"([A-Za-z])', lambda m: f'"\\u{ord(m.group(1)):04x}', text).encode()


# ---------------------------------------------------------------- XML mutations

_CDATA = re.compile(r"(<!\[CDATA\[.*?\]\]>)", re.S)
_NUMERIC = {
    "&amp;": "&#38;",
    "&lt;": "&#60;",
    "&gt;": "&#62;",
    "&quot;": "&#34;",
    "&apos;": "&#39;",
}


def _root_tag(body: bytes) -> str:
    return str(lxml.etree.fromstring(body).tag)


def xml_remove_root(case: Case, body: bytes) -> bytes:
    """The root element's tags removed, its children kept side by side."""
    tag = re.escape(_root_tag(body))
    text = body.decode()
    text = re.sub(rf"<{tag}(?:\s[^>]*)?>", "", text, count=1)
    cut = text.rindex(f"</{_root_tag(body)}>")
    return (text[:cut] + text[cut:].split(">", 1)[1]).encode()


def xml_wrap_root(case: Case, body: bytes) -> bytes:
    text = body.decode()
    declaration = re.match(r"\s*<\?xml[^>]*\?>", text)
    head = declaration.group(0) if declaration else ""
    return f"{head}<export><feed-envelope>{text[len(head) :]}</feed-envelope></export>".encode()


def _outside_cdata(text: str, change: Callable[[str], str]) -> str:
    return "".join(p if p.startswith("<![CDATA[") else change(p) for p in _CDATA.split(text))


def xml_whitespace(case: Case, body: bytes) -> bytes:
    return _outside_cdata(body.decode(), lambda p: re.sub(r">\s*<", ">\n\t  <", p)).encode()


def xml_entities(case: Case, body: bytes) -> bytes:
    """Named entities as numeric references, and CDATA sections as escaped text."""

    def numeric(part: str) -> str:
        return re.sub(r"&(?:amp|lt|gt|quot|apos);", lambda m: _NUMERIC[m.group(0)], part)

    parts = []
    for part in _CDATA.split(body.decode()):
        if part.startswith("<![CDATA["):
            inner = part[len("<![CDATA[") : -len("]]>")]
            parts.append(numeric(html.escape(inner, quote=False)))
        else:
            parts.append(numeric(part))
    return "".join(parts).encode()


# ---------------------------------------------------------------- HTML mutations

_RAW = re.compile(r"(<script\b.*?</script>|<style\b.*?</style>|<!--.*?-->)", re.S | re.I)


def _outside_raw(text: str, change: Callable[[str], str]) -> str:
    return "".join(p if _RAW.fullmatch(p) else change(p) for p in _RAW.split(text))


def _container(case: Case, tree: Any) -> Any:
    if case.parser == SITE_PARSER:
        item = case.meta["site"]["listing"]["item"]
        return tree.cssselect(item)[0].getparent()
    return tree.cssselect(HTML_CONTAINER[case.parser])[0]


def html_remove_container(case: Case, body: bytes) -> bytes:
    tree = lxml.html.fromstring(body)
    _container(case, tree).drop_tag()
    return lxml.html.tostring(tree, encoding="unicode").encode()


def html_wrap_container(case: Case, body: bytes) -> bytes:
    tree = lxml.html.fromstring(body)
    container = _container(case, tree)
    wrapper = lxml.html.Element("section", {"class": "mutation-wrapper"})
    container.addprevious(wrapper)
    wrapper.append(container)  # moves it (with its tail) inside the wrapper
    return lxml.html.tostring(tree, encoding="unicode").encode()


def html_whitespace(case: Case, body: bytes) -> bytes:
    return _outside_raw(body.decode(), lambda p: re.sub(r">\s*<", ">\n    <", p)).encode()


def html_entities(case: Case, body: bytes) -> bytes:
    """Named entities as numeric ones, non-ASCII characters as references, and the
    first letter of each text node as a reference: the same text once decoded."""

    def change(part: str) -> str:
        part = re.sub(r"&(?:amp|lt|gt|quot);|&#39;", _html_numeric, part)
        part = re.sub(r"[^\x00-\x7f]", lambda m: f"&#{ord(m.group(0))};", part)
        return re.sub(r">(\s*)([A-Za-z0-9])", lambda m: f">{m.group(1)}&#{ord(m.group(2))};", part)

    return _outside_raw(body.decode(), change).encode()


def _html_numeric(match: re.Match[str]) -> str:
    return "&#x27;" if match.group(0) == "&#39;" else _NUMERIC[match.group(0)]


# ---------------------------------------------------------------- the cases


@dataclass(frozen=True)
class Mutation:
    name: str
    apply: Callable[[Case, bytes], bytes]
    # The reader cannot take the result for its documented shape: the outcome must
    # be partial with a listing_shape issue. Otherwise it must be as it was.
    flags_shape: bool = False


JSON_MUTATIONS = (
    Mutation("envelope-removed", json_remove_envelope, flags_shape=True),
    Mutation("envelope-wrapped", json_wrap_envelope, flags_shape=True),
    Mutation("keys-reordered", json_reorder_keys),
    Mutation("unknown-keys", json_unknown_keys),
    Mutation("whitespace", json_whitespace),
    Mutation("escapes", json_escapes),
)
XML_MUTATIONS = (
    Mutation("root-removed", xml_remove_root, flags_shape=True),
    Mutation("root-wrapped", xml_wrap_root, flags_shape=True),
    Mutation("whitespace", xml_whitespace),
    Mutation("entities", xml_entities),
)
HTML_TEXT_MUTATIONS = (Mutation("whitespace", html_whitespace), Mutation("entities", html_entities))


def mutations_for(case: Case) -> tuple[Mutation, ...]:
    suffix = case.input.suffix
    if suffix == ".json":
        bare = JSON_ROWS.get(case.parser) == ((),)  # already a bare array: nothing to remove
        return tuple(m for m in JSON_MUTATIONS if not (bare and m.name == "envelope-removed"))
    if suffix == ".xml":
        return XML_MUTATIONS
    if case.parser == "icims":
        return (
            Mutation("container-removed", html_remove_container, flags_shape=True),
            Mutation("container-wrapped", html_wrap_container),
            *HTML_TEXT_MUTATIONS,
        )
    if case.parser == "jobvite":  # career-site rows are found by their job links anywhere
        return (
            Mutation("container-removed", html_remove_container),
            Mutation("container-wrapped", html_wrap_container),
            *HTML_TEXT_MUTATIONS,
        )
    if case.parser == SITE_PARSER:  # the configured item selector finds cards anywhere
        return (
            Mutation("container-removed", html_remove_container),
            Mutation("container-wrapped", html_wrap_container),
            *HTML_TEXT_MUTATIONS,
        )
    # JSON-LD listings: the rows are script elements with no text around them.
    return (Mutation("whitespace", html_whitespace),)


def listing_cases() -> list[Case]:
    """Golden listings that hold postings (an empty board has no rows to find)."""
    out = []
    for case in cases():
        expected = case.expected() or {}
        if case.meta.get("kind", "listing") == "listing" and expected.get("postings"):
            out.append(case)
    return out


PARAMS = [
    pytest.param(case, mutation, id=f"{case.parser}-{case.path.name}-{mutation.name}")
    for case in listing_cases()
    for mutation in mutations_for(case)
]


def _identity(outcome: ParseOutcome) -> list[dict[str, Any]]:
    keys = ("external_id", "title", "url", "apply_url", "detail_url", "location_text", "offices")
    return [{k: p.to_dict(payload=False)[k] for k in keys} for p in outcome.postings]


def _codes(outcome: ParseOutcome) -> list[str]:
    return sorted(issue.code for issue in outcome.issues)


def test_every_platform_with_golden_listings_gets_a_shape_mutation() -> None:
    """Every listing reader but JSON-LD's (rows are script elements, found anywhere)
    meets a removed or added envelope, root or container."""
    shaped = {
        case.parser
        for case, mutation in (p.values for p in PARAMS)
        if mutation.name
        in (
            "envelope-removed",
            "envelope-wrapped",
            "root-removed",
            "root-wrapped",
            "container-removed",
            "container-wrapped",
        )
    }
    listed = {case.parser for case in listing_cases()}
    assert listed - shaped == {"jsonld"}
    assert set(JSON_ROWS) | {"icims", "personio", "successfactors", "jazzhr", "jobvite"} <= shaped


@pytest.mark.parametrize(("case", "mutation"), PARAMS)
def test_a_mutated_listing_gives_the_same_postings(case: Case, mutation: Mutation) -> None:
    parser = case.resolve_parser()
    original_doc = case.document()
    original = parser.parse(original_doc)
    body = mutation.apply(case, original_doc.body)
    assert body != original_doc.body, f"{mutation.name} did not change the input"

    mutated = parser.parse(replace(original_doc, body=body))

    assert _identity(mutated) == _identity(original)
    if mutation.flags_shape:
        assert mutated.quality is Quality.PARTIAL
        assert _codes(mutated) == sorted([*_codes(original), SHAPE]), mutated.issues
        shape = next(i for i in mutated.issues if i.code == SHAPE)
        assert "found" in shape.message or "without" in shape.message
    else:
        assert mutated.quality is original.quality
        assert _codes(mutated) == _codes(original), mutated.issues
