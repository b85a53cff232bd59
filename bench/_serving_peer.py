"""The peer baseline of bench/serving.py: the same published rows and the same requests
in tantivy (the Rust search engine behind Quickwit and ParadeDB), in-process, so both
sides are timed on this machine in one run.

What the peer holds: title, company and description as text (lowercased, ASCII-folded
and English-stemmed: "ke toan" finds "kế toán", "engineers" finds "engineer", as
serving's folded words and English stems do), the filter groups as raw keyword fields
(fast, for aggregations), the list date as an integer fast field. What differs, stated:
- a query's words are ANDed (tantivy's parser in conjunction mode), over the three text
  fields; serving ranks title above company above description, the peer lists newest
  first either way, so ranking does not enter;
- the prefix class: serving's last word is a prefix of any word (its lexicon); the
  peer's is a regular expression `prefix.*` over each text field's terms: the same set;
- stems: the peer stems every row in English; serving stems English, German and French
  postings each in its own language (the bench's rows are English or unclear, so the
  peer stems more: its matches are a superset);
- facets: both disjunctive (a group with a filter is counted without it: one
  aggregation per such group), top 12 values per group, a posting without a value
  counted as `unknown` on both sides;
- a page: both read the page's rows and, with a query, cut a highlighted snippet of
  about 200 characters from each description; serving also checks the words for typos
  and reads each row's duplicate group, the peer neither.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import psycopg
import tantivy

if TYPE_CHECKING:  # only a type here: importing the package from bench/ would find
    # bench/serving_sync.py first unless the caller put the repository first on the path
    from serving_sync.search import Filters

TEXT_FIELDS = ["title", "company_name", "description"]
# Serving's facet groups (search.GROUPS, passed in: this module cannot import the
# package, see above) are keyword fields of the same names, each filled from the column
# of that name, or for the office lists and employment types from these.
LIST_COLUMNS = {
    "country": "countries",
    "region": "regions",
    "city": "cities",
    "employment_type": "employment_type",
}
TOP_N = 12
ANALYZER = "folded_en"
ROWS_SQL = """
SELECT id, title, coalesce(company, '') AS company_name,
       coalesce(description, '') AS description,
       countries, regions, cities, coalesce(work_mode, 'unknown') AS work_mode,
       coalesce(job_type, 'unknown') AS job_type, employment_type, source,
       coalesce(company, 'unknown') AS company,
       (salary_min IS NOT NULL OR salary_max IS NOT NULL) AS has_salary,
       -- Postings of unknown age list last, as serving's -infinity does.
       CASE WHEN sort_at = '-infinity' THEN -1 ELSE extract(epoch FROM sort_at)::bigint END
           AS sort_at
FROM serving.jobs
"""  # fmt: skip


def _schema(groups: tuple[str, ...]) -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_integer_field("id", stored=True, fast=True)
    for name in TEXT_FIELDS:  # stored: a page shows them, and the snippet is cut from one
        builder.add_text_field(name, stored=True, tokenizer_name=ANALYZER)
    for name in groups:
        builder.add_text_field(name, tokenizer_name="raw", fast=True)
    builder.add_integer_field("sort_at", fast=True, indexed=True)
    builder.add_integer_field("has_salary", fast=True, indexed=True)
    return builder.build()


def _analyzer() -> Any:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


@dataclass
class Peer:
    index: tantivy.Index
    schema: tantivy.Schema
    groups: tuple[str, ...]
    rows: int
    build_s: float

    def searcher(self) -> tantivy.Searcher:
        return self.index.searcher()


@contextmanager
def built(owner_url: str, groups: tuple[str, ...]) -> Iterator[Peer]:
    """The peer index over serving.jobs as the bench left it, in a temporary folder,
    with a keyword field for each of serving's facet `groups`."""
    with tempfile.TemporaryDirectory(prefix="jobharbor-peer-") as path:
        schema = _schema(groups)
        index = tantivy.Index(schema, path=path)
        index.register_tokenizer(ANALYZER, _analyzer())
        started = time.monotonic()
        writer = index.writer(heap_size=256_000_000, num_threads=2)
        rows = 0
        for row in _rows(owner_url):
            writer.add_document(_document(row, groups))
            rows += 1
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        yield Peer(index, schema, groups, rows, round(time.monotonic() - started, 1))


def _rows(owner_url: str) -> Iterator[dict[str, Any]]:
    with (
        psycopg.connect(owner_url, row_factory=psycopg.rows.dict_row) as conn,
        conn.cursor(name="peer_rows") as cursor,
    ):
        cursor.itersize = 5000
        cursor.execute(ROWS_SQL)
        yield from cursor


def _document(row: dict[str, Any], groups: tuple[str, ...]) -> tantivy.Document:
    doc = tantivy.Document(
        id=row["id"],
        title=row["title"],
        company_name=row["company_name"],
        description=row["description"],
        sort_at=row["sort_at"],
        has_salary=int(row["has_salary"]),
    )
    for group in groups:
        # A posting with no office, or no employment type, counts as 'unknown', as serving's.
        values = (
            (row[LIST_COLUMNS[group]] or ["unknown"]) if group in LIST_COLUMNS else [row[group]]
        )
        for value in values:
            doc.add_text(group, value)
    return doc


def _filter_values(peer: Peer, f: Filters) -> dict[str, tuple[str, ...]]:
    """The keyword filters of a request, by group (the filter of the same name)."""
    return {g: tuple(getattr(f, g)) for g in peer.groups if getattr(f, g)}


def query(peer: Peer, f: Filters, *, without: str | None = None) -> tantivy.Query:
    """The request as one boolean query (`without`: a group left out, for its facet)."""
    must: list[tuple[tantivy.Occur, tantivy.Query]] = []
    if f.q:
        must.append((tantivy.Occur.Must, _text_query(peer, f.q)))
    for field, values in _filter_values(peer, f).items():
        if field != without:
            must.append(
                (tantivy.Occur.Must, tantivy.Query.term_set_query(peer.schema, field, list(values)))
            )
    if f.posted_within_days is not None:
        since = datetime.now(UTC) - timedelta(days=f.posted_within_days)
        must.append(
            (
                tantivy.Occur.Must,
                tantivy.Query.range_query(
                    peer.schema, "sort_at", tantivy.FieldType.Integer, int(since.timestamp())
                ),
            )
        )
    if f.has_salary is not None:
        must.append(
            (
                tantivy.Occur.Must,
                tantivy.Query.term_query(peer.schema, "has_salary", int(f.has_salary)),
            )
        )
    if not must:
        return tantivy.Query.all_query()
    return tantivy.Query.boolean_query(must)


def _text_query(peer: Peer, q: str) -> tantivy.Query:
    words = q.split()
    if len(words) == 1 and len(words[0]) < 6 and not q.endswith(" "):
        # The bench's prefix class ("engin", "manag"): any word starting so.
        pattern = words[0].lower() + ".*"
        return tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Should, tantivy.Query.regex_query(peer.schema, name, pattern))
                for name in TEXT_FIELDS
            ]
        )
    return peer.index.parse_query(q, TEXT_FIELDS, conjunction_by_default=True)


def search(peer: Peer, searcher: tantivy.Searcher, f: Filters, limit: int = 21) -> list[str]:
    """A first page newest first, as a page of serving's list is built (one more row than
    shown): the rows' stored fields, and with a query a highlighted snippet of about 200
    characters from each description. Returns the titles."""
    asked = query(peer, f)
    found = searcher.search(asked, limit=limit, count=False, order_by_field="sort_at")
    docs = [searcher.doc(address) for _, address in found.hits]
    if f.q:
        snippets = tantivy.SnippetGenerator.create(searcher, asked, peer.schema, "description")
        snippets.set_max_num_chars(200)
        for doc in docs:
            snippets.snippet_from_doc(doc).to_html()
    return [doc.get_first("title") for doc in docs]


def facets(peer: Peer, searcher: tantivy.Searcher, f: Filters) -> dict[str, Any]:
    """Disjunctive facet counts: the groups without a filter in one aggregation, each
    group with one in its own (counted without it), plus the total."""
    filtered = set(_filter_values(peer, f))
    plain = [g for g in peer.groups if g not in filtered]
    answer = searcher.aggregate(query(peer, f), _terms(plain))
    for group in filtered:
        answer.update(searcher.aggregate(query(peer, f, without=group), _terms([group])))
    answer["total"] = searcher.search(query(peer, f), limit=1, count=True).count
    return answer


def _terms(groups: list[str]) -> dict[str, Any]:
    return {g: {"terms": {"field": g, "size": TOP_N}} for g in groups}
