"""The config-driven JSON mapping every ATS API parser shares.

A platform is described by a `JsonMapping` (see parsers/mappings.py): where the
items are in a listing response, where the one item is in a single-posting
response, and a path per schema field. Small adapter functions handle what
paths cannot say (composed descriptions, salary objects, URLs built from ids).

Paths: `a.b` walks objects, `a[0]` indexes, `a[*].b` maps over a list, and a
leading `$.` starts from the document root instead of the item (Workable's
company name lives beside the jobs, not in them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from operator import attrgetter
from typing import Any

from parsers.common import dedupe_postings, job_type_for, outcome_from_postings
from parsers.entities import has_entity_code
from parsers.hygiene import ROWS_CHECKED, CheckedPayload, json_body_storable
from parsers.jsonutil import load_json
from parsers.rowfind import SHAPE_ISSUES, FoundRows, RowMarkers, Step, find_rows
from parsers.signals import json_error_signal
from parsers.text import (
    clean_place,
    clean_space,
    html_to_text,
    parse_posted,
    remote_from_text,
)
from parsers.types import (
    DocumentKind,
    Issue,
    PageSignal,
    ParseOutcome,
    Posting,
    RawDocument,
    RawOffice,
    Salary,
    posting_of,
)

# ---------------------------------------------------------------- paths

_TOKEN = re.compile(r"([^.\[\]]+)|\[(-?\d+|\*)\]")
Getter = Callable[[Any, Any], Any]


def compile_path(spec: str) -> Getter:
    """`spec` -> getter(item, root) returning the value, a list for `[*]`, or None."""
    from_root = spec.startswith("$")
    body = spec[1:].lstrip(".") if from_root else spec
    steps: list[str | int | None] = []
    for match in _TOKEN.finditer(body):
        name, index = match.groups()
        if name is not None:
            steps.append(name)
        else:
            steps.append(None if index == "*" else int(index))

    def walk(value: Any, at: int) -> Any:
        for pos in range(at, len(steps)):
            if value is None:
                return None
            step = steps[pos]
            if step is None:  # [*]: the rest of the path over every element
                if not isinstance(value, list):
                    return None
                out = []
                for element in value:
                    got = walk(element, pos + 1)
                    if isinstance(got, list):
                        out.extend(got)
                    elif got is not None:
                        out.append(got)
                return out
            if isinstance(step, int):
                value = (
                    value[step]
                    if isinstance(value, list) and -len(value) <= step < len(value)
                    else None
                )
            else:
                value = value.get(step) if isinstance(value, dict) else None
        return value

    if not from_root and all(isinstance(step, str) for step in steps) and len(steps) <= 2:
        return _key_getter(*steps)  # type: ignore[arg-type]
    if not from_root and len(steps) == 2 and isinstance(steps[0], str) and steps[1] is None:
        return _each_getter(steps[0])

    def get(item: Any, root: Any) -> Any:
        return walk(root if from_root else item, 0)

    return get


def path_steps(spec: str) -> tuple[Step, ...]:
    """`items[0].requisitionList` -> ("items", 0, "requisitionList"); `[*]` is not a step."""
    return tuple(
        name if name is not None else int(index)
        for name, index in _TOKEN.findall(spec)
        if name or index != "*"
    )


def _key_getter(first: str | None = None, second: str | None = None) -> Getter:
    """``, `name` and `name.sub`, most paths of every mapping, without the general walk
    (it runs for every field of every item)."""
    if first is None:

        def itself(item: Any, root: Any) -> Any:
            return item

        return itself
    if second is None:

        def one(item: Any, root: Any) -> Any:
            return item.get(first) if type(item) is dict else None

        return one

    def two(item: Any, root: Any) -> Any:
        value = item.get(first) if type(item) is dict else None
        return value.get(second) if type(value) is dict else None

    return two


def _each_getter(name: str) -> Getter:
    """`name[*]` (a row's list of offices), as the general walk reads it: the list's
    items but None, an item that is itself a list flattened into them."""

    def each(item: Any, root: Any) -> Any:
        value = item.get(name) if type(item) is dict else None
        if not isinstance(value, list):
            return None
        out: list[Any] = []
        for element in value:
            if isinstance(element, list):
                out.extend(element)
            elif element is not None:
                out.append(element)
        return out

    return each


# ---------------------------------------------------------------- the mapping


@dataclass(frozen=True)
class OfficeMap:
    """Offices at `items` (a list, or one object); each office's text and parts."""

    items: str
    text: str | tuple[str, ...] = ""  # "" = the office value itself is its text
    city: str | None = None
    region: str | None = None
    country: str | None = None


@dataclass(frozen=True)
class RemoteRule:
    """The first rule whose path holds one of `values` decides remote (yes / hybrid)."""

    path: str
    values: Mapping[Any, str]


@dataclass(frozen=True)
class JsonMapping:
    platform: str
    listing: str  # path of the item list in a listing response ("" = the body is the list)
    single: str | None = None  # path of the one item in a single-posting response
    single_keys: tuple[str, ...] = ("id",)  # keys that identify a single-posting item
    total: str | None = None  # the listing's own count of items
    fields: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)
    offices: tuple[OfficeMap, ...] = ()
    remote: tuple[RemoteRule, ...] = ()
    listing_has_description: bool = True  # False: rows need their detail for a description
    # What makes an object one of this platform's rows when the listing is not at
    # `listing` (a bare array, another wrapper): (id keys, title keys). Empty: the
    # first keys of the `external_id` and `title` paths.
    row_markers: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())

    def describe(self) -> str:
        shapes = [f"a listing with items at {self.listing or 'the top level'!r}"]
        if self.single is not None:
            shapes.append(f"one posting at {self.single or 'the top level'!r}")
        return " or ".join(shapes)


@dataclass(frozen=True)
class _Compiled:
    mapping: JsonMapping
    fields: dict[str, tuple[Getter, ...]]
    # The fields split by how a row reads them (see draft_item): one key of the row
    # itself, or the first of several, read inline; paths that all start at the
    # document root, read once a page; any other paths, walked for each row.
    key_fields: tuple[tuple[str, str], ...]
    key_choices: tuple[tuple[str, tuple[str, ...]], ...]
    page_fields: tuple[tuple[str, tuple[Getter, ...]], ...]
    walked_fields: tuple[tuple[str, tuple[Getter, ...]], ...]
    offices: tuple[
        tuple[Getter, tuple[Getter, ...], Getter | None, Getter | None, Getter | None], ...
    ]
    remote: tuple[tuple[Getter, Mapping[Any, str]], ...]
    listing: Getter
    single: Getter | None
    total: Getter | None
    # A company read from the document root names the board's owner, not one item.
    board_company: tuple[Getter, ...]
    markers: RowMarkers
    listing_steps: tuple[Step, ...]


def _compile(mapping: JsonMapping) -> _Compiled:
    def paths(spec: str | tuple[str, ...]) -> tuple[Getter, ...]:
        return tuple(compile_path(p) for p in ((spec,) if isinstance(spec, str) else spec))

    def opt(spec: str | None) -> Getter | None:
        return compile_path(spec) if spec else None

    fields = {name: paths(spec) for name, spec in mapping.fields.items()}
    keys = {name: spec for name, spec in mapping.fields.items() if _is_one_key(spec)}
    choices = {
        name: spec
        for name, spec in mapping.fields.items()
        if isinstance(spec, tuple) and spec and all(_is_one_key(key) for key in spec)
    }
    from_root = {
        name
        for name, spec in mapping.fields.items()
        if all(p.startswith("$") for p in _specs(spec))
    }
    return _Compiled(
        mapping=mapping,
        fields=fields,
        key_fields=tuple((name, str(key)) for name, key in keys.items()),
        key_choices=tuple((name, tuple(spec)) for name, spec in choices.items()),
        page_fields=tuple((name, fields[name]) for name in fields if name in from_root),
        walked_fields=tuple(
            (name, getters)
            for name, getters in fields.items()
            if name not in keys and name not in choices and name not in from_root
        ),
        offices=tuple(
            (
                compile_path(o.items),
                paths(o.text) if o.text else (),
                opt(o.city),
                opt(o.region),
                opt(o.country),
            )
            for o in mapping.offices
        ),
        remote=tuple((compile_path(r.path), r.values) for r in mapping.remote),
        listing=compile_path(mapping.listing),
        single=compile_path(mapping.single) if mapping.single is not None else None,
        total=opt(mapping.total),
        board_company=tuple(
            compile_path(p) for p in _specs(mapping.fields.get("company")) if p.startswith("$")
        ),
        markers=row_markers(mapping),
        listing_steps=path_steps(mapping.listing),
    )


def _is_one_key(spec: str | tuple[str, ...]) -> bool:
    """A path that is one key of the row itself (`title`, not `a.b`, `a[0]` or `$.a`)."""
    if not isinstance(spec, str) or not spec or spec.startswith("$"):
        return False
    return _TOKEN.fullmatch(spec) is not None


def row_markers(mapping: JsonMapping) -> RowMarkers:
    """The mapping's declared row markers, else the first key of every item-relative
    `external_id` and `title` path (all alternatives: an older API's key names count)."""
    ids, titles = mapping.row_markers
    if ids or titles:
        return RowMarkers(ids, titles)

    def first_keys(name: str) -> tuple[str, ...]:
        keys = (path_steps(spec) for spec in _specs(mapping.fields.get(name)))
        found = (steps[0] for steps in keys if steps and isinstance(steps[0], str))
        return tuple(dict.fromkeys(k for k in found if not k.startswith("$")))

    return RowMarkers(first_keys("external_id"), first_keys("title"))


def _specs(spec: str | tuple[str, ...] | None) -> tuple[str, ...]:
    return () if spec is None else (spec,) if isinstance(spec, str) else spec


# ---------------------------------------------------------------- drafts -> postings


@dataclass
class Context:
    """What an adapter may look at besides the item: the document and its root."""

    doc: RawDocument
    root: Any
    single: bool


Draft = dict[str, Any]
Adapter = Callable[[Draft, dict[str, Any], Context], None]
# (row, its payload, context, the page's root-relative fields) -> the row's posting
RowBuilder = Callable[[dict[str, Any], Mapping[str, Any], Context, Draft], Posting]


def field_text(value: Any) -> str | None:
    """A field's value as the posting's text: a string cleaned, a number written out,
    a list's texts joined; None for nothing, an object or a flag."""
    if type(value) is str:  # most values: straight to the cleaning
        return clean_space(value)
    if value is None or isinstance(value, (dict, bool)):
        return None
    if isinstance(value, list):
        parts = [t for t in (field_text(v) for v in value) if t]
        return " / ".join(dict.fromkeys(parts)) or None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return clean_space(str(value))


_EMPTY: tuple[Any, ...] = (None, "", [], {})


def _first(getters: tuple[Getter, ...], item: Any, root: Any) -> Any:
    for get in getters:
        value = get(item, root)
        if value or value not in _EMPTY:  # a true value needs no comparisons (most do)
            return value
    return None


_TEXT_OR_NONE = frozenset((str, type(None)))  # an office's values the memo can key


def _offices(compiled: _Compiled, item: Any, root: Any) -> list[RawOffice]:
    out: list[RawOffice] = []
    for items, text, city, region, country in compiled.offices:
        found = items(item, root)
        for office in found if isinstance(found, list) else [found]:
            if office is None:
                continue
            raw = (
                _first(text, office, root) if text else office,
                city(office, root) if city else None,
                region(office, root) if region else None,
                country(office, root) if country else None,
            )
            plain = (
                type(raw[0]) in _TEXT_OR_NONE
                and type(raw[1]) in _TEXT_OR_NONE
                and type(raw[2]) in _TEXT_OR_NONE
                and type(raw[3]) in _TEXT_OR_NONE
            )
            candidate = _office_of_text(*raw) if plain else _office(*raw)
            if candidate is not None and candidate not in out:
                out.append(candidate)
    if len(out) < 2:
        return out
    return list(_echoes_dropped(tuple(out)))


def _office(written: Any, city: Any, region: Any, country: Any) -> RawOffice | None:
    """An office from its written text (or its parts joined) and its parts."""
    parts = (field_text(city), field_text(region), field_text(country))
    place = clean_place(field_text(written) or ", ".join(p for p in parts if p))
    return RawOffice(place, *parts) if place else None


# Memoized for offices given as text: a board names the same few places on every row,
# and cleaning, joining and building one costs more than the rest of a short row's
# fields together. The offices are frozen values.
_office_of_text = lru_cache(maxsize=4096)(_office)


@lru_cache(maxsize=4096)  # the same pairs of offices, row after row
def _echoes_dropped(offices: tuple[RawOffice, ...]) -> tuple[RawOffice, ...]:
    return tuple(_without_echoes(list(offices)))


def _without_echoes(offices: list[RawOffice]) -> list[RawOffice]:
    """Drop an office that only repeats the tail of another ("United States" beside
    "Austin, United States"): two fields describing one place are one office."""
    if len(offices) < 2:
        return offices
    keys = [o.text.casefold() for o in offices]
    return [
        office
        for office, key in zip(offices, keys, strict=True)
        if not any(other != key and other.endswith(", " + key) for other in keys)
    ]


def _remote(compiled: _Compiled, item: Any, root: Any) -> str | None:
    for get, values in compiled.remote:
        answer = remote_rule_answer(get(item, root), values)
        if answer is not None:
            return answer
    return None


def remote_rule_answer(value: Any, values: Mapping[Any, str]) -> str | None:
    """What a remote rule's `values` say of the value at its path (None: nothing)."""
    return values.get(value.lower() if isinstance(value, str) else value)


def page_values(compiled: _Compiled, root: Any) -> Draft:
    """The fields read from the document root alone: the same for every row of a page."""
    return {name: _first(getters, root, root) for name, getters in compiled.page_fields}


def first_given(row: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The first of the row's `keys` that gives a value (not None, "", [] or {}): a
    field of several keys, as `draft_item` reads it."""
    for key in keys:
        value = row.get(key)
        if value or value not in _EMPTY:
            return value
    return None


def draft_item(
    compiled: _Compiled, item: Mapping[str, Any], root: Any, page: Draft | None = None
) -> Draft:
    """The row's values by schema field name. `page` holds the root-relative fields
    (`page_values`) when the caller read them once for the page."""
    if type(item) is dict:
        # A row's own keys, as their getters and `_first` read them, without the calls
        # (the most common paths, read for every field of every row).
        get = item.get
        draft: Draft = {
            name: value if (value := get(key)) or value not in _EMPTY else None
            for name, key in compiled.key_fields
        }
        for name, keys in compiled.key_choices:
            draft[name] = first_given(item, keys)
    else:
        draft = {
            name: _first(compiled.fields[name], item, root)
            for name, _ in (*compiled.key_fields, *compiled.key_choices)
        }
    for name, getters in compiled.walked_fields:
        draft[name] = _first(getters, item, root)
    draft.update(page_values(compiled, root) if page is None else page)
    draft["offices"] = _offices(compiled, item, root) if compiled.offices else []
    draft["remote"] = _remote(compiled, item, root) if compiled.remote else None
    return draft


# The fields `finish` reads as text, in the order it unpacks them.
_TEXT_FIELDS = (
    "external_id",
    "url",
    "title",
    "company",
    "department",
    "employment_type",
    "apply_url",
    "detail_url",
)
_OFFICE_TEXT = attrgetter("text")


def finish(draft: Draft, item: Mapping[str, Any], ctx: Context) -> Posting:
    """A draft (values by schema field name, as the source gave them) -> Posting."""
    get = draft.get
    description_html, description_text = descriptions(
        get("description_html"), get("description_text")
    )
    # One comprehension for the texts: a text goes straight to its cleaning.
    (
        external_id,
        url,
        title,
        company,
        department,
        employment_type,
        apply_url,
        detail_url,
    ) = [
        clean_space(value)
        if type(value := get(name)) is str
        else None
        if value is None
        else field_text(value)
        for name in _TEXT_FIELDS
    ]
    return posting_from(
        external_id,
        url,
        title,
        company,
        department,
        place_text(get("location_text")),
        tuple(get("offices") or ()),
        description_html,
        description_text,
        employment_type,
        get("posted_at"),
        get("remote"),
        get("salary"),
        apply_url,
        get("job_type"),
        get("more_offices"),
        detail_url,
        get("legal_entity"),
        item,
        ctx.doc.fetched_at,
    )


def descriptions(html: Any, text: Any) -> tuple[str | None, str | None]:
    """(description HTML, description text) from the values a source gave: a text as
    given (trimmed), else the HTML's text."""
    if html is not None and not isinstance(html, str):
        html = field_text(html)
    text = text.strip() or None if isinstance(text, str) else html_to_text(html) if html else None
    return html or None, text


def place_text(value: Any) -> str | None:
    """A location value as the posting states it. `clean_place` cleans the text itself,
    memoized: a board's places repeat."""
    if value is None:
        return None
    return clean_place(value if type(value) is str else field_text(value))


def posting_from(  # one argument per Posting field, in its order
    external_id: str | None,
    url: str | None,
    title: str | None,
    company: str | None,
    department: str | None,
    location_text: str | None,
    offices: tuple[RawOffice, ...],
    description_html: str | None,
    description_text: str | None,
    employment_type: str | None,
    posted: Any,
    remote: str | None,
    salary: Any,
    apply_url: str | None,
    job_type: str | None,
    more_offices: Any,
    detail_url: str | None,
    legal_entity: Any,
    payload: Mapping[str, Any],
    fetched_at: datetime | None,
) -> Posting:
    """The posting from a row's values, its texts cleaned already (`finish` from a
    draft; a platform's row builder from the row itself): defaults, the posting date,
    remote words, job type and the company's legal entity, derived the one way.
    Positional: a row's posting is built for every row of every listing."""
    title = title or ""
    url = url or ""
    if location_text is None and offices:
        location_text = "; ".join(map(_OFFICE_TEXT, offices))
    # A tuple is an adapter's decision already (datetime, precision).
    posted_at, precision = posted if isinstance(posted, tuple) else parse_posted(posted, fetched_at)
    if company is not None or legal_entity is not None:  # most rows name neither
        company, legal_entity = split_entity(company, legal_entity)
    return posting_of(
        {
            "external_id": external_id or "",
            "url": url,
            "title": title,
            "company": company,
            "department": department,
            "location_text": location_text,
            "offices": offices,
            "description_html": description_html,
            "description_text": description_text,
            "employment_type": employment_type,
            "posted_at": posted_at,
            "posted_precision": precision,
            "remote": remote or _remote_in_places(location_text, offices),
            "salary": salary if isinstance(salary, Salary) else None,
            "apply_url": apply_url or url or None,
            "job_type": job_type or job_type_for(title, employment_type),
            "more_offices": int(more_offices or 0),
            "detail_url": detail_url,
            "legal_entity": legal_entity,
            "payload": payload,
        },
        literal=True,
    )


def _remote_in_places(location_text: str | None, offices: tuple[RawOffice, ...]) -> str:
    """What the location and the offices' texts say of remote work, read together."""
    if not offices:
        return remote_from_text(location_text)
    if len(offices) == 1:  # most rows: the pair's answer is memoized, not joined again
        return _remote_in_pair(location_text or "", offices[0].text)
    return remote_from_text(" ".join([location_text or "", *map(_OFFICE_TEXT, offices)]))


@lru_cache(maxsize=4096)  # a board names the same few places on every row
def _remote_in_pair(location_text: str, office_text: str) -> str:
    return remote_from_text(f"{location_text} {office_text}")


def split_entity(company: str | None, legal_entity: Any = None) -> tuple[str | None, str | None]:
    """(company, legal entity): a company label with an internal entity code is the
    entity, never a brand to show, whichever platform sent it."""
    legal = field_text(legal_entity)
    if company is not None and has_entity_code(company):
        return None, legal or company
    return company, legal


# ---------------------------------------------------------------- the parser


@dataclass(frozen=True)
class JsonParser:
    """A platform's JSON parser: its mapping plus optional adapters.

    `prepare` turns a non-standard body into data the mapping reads (Personio XML);
    `adapt` fills what paths cannot; `page` handles HTML (the platform's hosted job
    page); `paging` reports the next page of a listing. `listing_row` builds a listing
    row's posting in one step, instead of the mapping's draft, `adapt` and `finish`
    (Workday's short rows, where passing the draft between them cost a third of the
    row); it derives the posting by `posting_from`, as `finish` does.
    """

    mapping: JsonMapping
    adapt: Adapter | None = None
    page: Callable[[RawDocument], ParseOutcome] | None = None
    prepare: Callable[[RawDocument], tuple[Any, ParseOutcome | None]] | None = None
    paging: Callable[[Any, RawDocument, int], tuple[str | None, Mapping[str, Any]]] | None = None
    listing_row: RowBuilder | None = None

    def __call__(self, doc: RawDocument) -> ParseOutcome:
        return parse_json_document(self, doc)


_COMPILED: dict[int, _Compiled] = {}


def compiled(mapping: JsonMapping) -> _Compiled:
    key = id(mapping)
    if key not in _COMPILED:
        _COMPILED[key] = _compile(mapping)
    return _COMPILED[key]


def looks_like_html(body: bytes) -> bool:
    """Markup where JSON was expected: a hosted page, an error page, a login wall."""
    head = body[:512].lstrip()
    return head.startswith(b"<") and not head.startswith(b"<?xml")


def parse_json_document(parser: JsonParser, doc: RawDocument) -> ParseOutcome:
    mapping = parser.mapping
    if not doc.body.strip():
        return ParseOutcome.rejected(Issue("empty_body", "the response body is empty"))
    if parser.prepare is None and looks_like_html(doc.body):
        if parser.page is not None:
            return parser.page(doc)
        return ParseOutcome.rejected(
            Issue("html_not_json", f"expected {mapping.platform} JSON, got an HTML page")
        )
    data, rejection = parser.prepare(doc) if parser.prepare else load_json(doc)
    if rejection is not None:
        return rejection
    c = compiled(mapping)
    items = c.listing(data, data)
    single = False
    root = data  # what root-relative paths read: the document, or the envelope found
    where = f"$.{mapping.listing}" if mapping.listing else "$"
    issues = _prepared_issues(data) if parser.prepare is not None else []
    if isinstance(items, list) and items and not any(c.markers.matches(i) for i in items):
        # The documented place holds a list, but of something else (Lever's groups
        # of postings by team): every row would be rejected there, so look further.
        found = _rows_elsewhere(c, doc, data)
        if found is not None:
            items, root, where = found.rows, found.envelope, found.issue.path or "$"
            issues.append(found.issue)
    elif not isinstance(items, list):
        item = c.single(data, data) if c.single is not None else None
        if isinstance(item, dict) and all(k in item for k in mapping.single_keys):
            items, single = [item], True
            where = f"$.{mapping.single}" if mapping.single else "$"
        else:
            found = _rows_elsewhere(c, doc, data)
            if found is None:
                return _unexpected(mapping, data)
            items, root, where = found.rows, found.envelope, found.issue.path or "$"
            issues.append(found.issue)
    ctx = Context(doc=doc, root=root, single=single)
    candidates: list[tuple[str, Posting]] = []
    not_objects = 0
    # Rows decoded from a body with nothing unstorable in it go out as checked payloads
    # (parsers.hygiene): a prepared body (Personio's XML) was not decoded from the bytes,
    # so its rows are checked only where the reader checked them all.
    if parser.prepare is None:
        checked = json_body_storable(doc.body)
    else:
        checked = isinstance(data, dict) and data.get(ROWS_CHECKED) is True
    page = page_values(c, root)
    build = None if single else parser.listing_row
    for index, item in enumerate(items):
        path = f"{where}[{index}]"
        if not isinstance(item, dict):
            issues.append(Issue("bad_item", "an item is not an object", path))
            not_objects += 1
            continue
        payload = CheckedPayload(item) if checked else item
        if build is not None:
            candidates.append((path, build(item, payload, ctx, page)))
            continue
        draft = draft_item(c, item, root, page)
        if parser.adapt is not None:
            parser.adapt(draft, item, ctx)
        candidates.append((path, finish(draft, payload, ctx)))
    candidates = dedupe_postings(candidates)
    total = None if single or c.total is None else c.total(root, root)
    next_url: str | None = None
    paging: Mapping[str, Any] = {}
    if parser.paging is not None and not single:
        next_url, paging = parser.paging(root, doc, len(items))
    return outcome_from_postings(
        candidates,
        issues=issues,
        total=total if isinstance(total, int) and not isinstance(total, bool) else None,
        next_page_url=next_url,
        listing=not single and not mapping.listing_has_description,
        dropped=not_objects,
        paging=paging,
        board_company=None if single else field_text(_first(c.board_company, root, root)),
    )


def _prepared_issues(data: Any) -> list[Issue]:
    found = data.get(SHAPE_ISSUES, ()) if isinstance(data, dict) else ()
    return [issue for issue in found if isinstance(issue, Issue)]


def _rows_elsewhere(c: _Compiled, doc: RawDocument, data: Any) -> FoundRows | None:
    """A listing's rows where the documented path does not hold them. Only listings
    are searched: a detail response without its posting stays a rejection."""
    if doc.kind is not DocumentKind.LISTING:
        return None
    return find_rows(data, c.markers, c.listing_steps)


def _unexpected(mapping: JsonMapping, data: Any) -> ParseOutcome:
    error = json_error_signal(data)
    if error is not None:
        signal, message = error
        code = "not_found" if signal is PageSignal.NOT_FOUND else "api_error"
        return ParseOutcome.rejected(
            Issue(code, f"the API answered an error: {message}"), signal=signal
        )
    kind = type(data).__name__
    keys = f" with keys {sorted(data)[:8]}" if isinstance(data, dict) else ""
    return ParseOutcome.rejected(
        Issue("unexpected_shape", f"expected {mapping.describe()}; got a JSON {kind}{keys}", "$")
    )
