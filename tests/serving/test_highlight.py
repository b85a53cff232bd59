"""Highlights: the words a query finds, marked whole in a posting's text, and a snippet
of about 200 characters around the best match, on the pure rules and on the published
rows as the web role."""

from __future__ import annotations

import pytest

from serving_sync import highlight, search
from serving_sync.search import SearchRequest

LONG = (
    "We are a small team. " * 12
    + "You will build data pipelines in Python and own the warehouse. "
    + "Benefits include lunch. " * 12
    + "Experience with Python, Airflow and data modelling is a plus."
)


def _words(q: str) -> highlight.QueryWords:
    return highlight.query_words(q, search._prefix_terms(q))


def _marked(cut: highlight.Snippet) -> list[str]:
    return [cut.text[s:e] for s, e in cut.marks]


def test_every_plain_and_quoted_word_is_marked_never_an_excluded_one() -> None:
    text = "Senior Data Engineer: data lakes, Python; engineering culture. Not junior."
    spans = highlight.mark_spans(text, _words('"data lakes" python -junior engin'))
    assert [text[s:e] for s, e in spans] == [
        "Data", "Engineer", "data", "lakes", "Python", "engineering",
    ]  # fmt: skip


def test_marks_find_folded_words_and_keep_the_texts_own_offsets() -> None:
    text = "Kế toán trưởng tại Hà Nội; KẾ TOÁN tổng hợp"
    spans = highlight.mark_spans(text, _words("ke toan ha noi"))
    assert [text[s:e] for s, e in spans] == ["Kế", "toán", "Hà", "Nội", "KẾ", "TOÁN"]
    # A letter whose lowercase is two characters does not shift what follows.
    text = "İstanbul office, Python team"
    spans = highlight.mark_spans(text, _words("python"))
    assert [text[s:e] for s, e in spans] == ["Python"]


def test_a_word_is_marked_whole_or_not_at_all() -> None:
    text = "Javascript code and java"
    assert [text[s:e] for s, e in highlight.mark_spans(text, _words("java "))] == ["java"]
    # The last word of the query takes the prefix: "jav" marks both words.
    assert len(highlight.mark_spans(text, _words("jav"))) == 2


def test_a_word_starts_after_anything_but_a_letter_or_digit() -> None:
    # A match found inside a word (xjava, 2java, éjava) is no mark and does not hide the
    # word after it; after an underscore or punctuation a word starts, as the text
    # search parser splits it.
    text = "javajava xjava java_java 2java (java) éjava java"
    spans = highlight.mark_spans(text, _words("java "))
    assert {text[s:e] for s, e in spans} == {"java"}
    assert [s for s, _ in spans] == [15, 20, 32, 44]


def test_a_plain_word_marks_its_inflections_as_the_stemmers_match_them() -> None:
    text = "Engineers wanted: our engineering team. Ingenieure (m/w/d). Développeuses."
    marked = [text[s:e] for s, e in highlight.mark_spans(text, _words("engineer "))]
    assert marked == ["Engineers", "engineering"]  # English: engineer, -s, -ing share 'engin'
    marked = [text[s:e] for s, e in highlight.mark_spans(text, _words("ingenieur "))]
    assert marked == ["Ingenieure"]  # German
    marked = [text[s:e] for s, e in highlight.mark_spans(text, _words("developpeuse "))]
    assert marked == ["Développeuses"]  # French, folded
    # A quoted word and an excluded one mark no inflection.
    assert highlight.mark_spans(text, _words('"engineer" ')) == []
    assert highlight.mark_spans(text, _words("-engineer team ")) == [
        (text.index("team"), text.index("team") + 4)
    ]


def test_the_snippet_is_the_window_with_the_most_query_words() -> None:
    cut = highlight.snippet(LONG, _words("python airflow"))
    assert cut is not None
    assert len(cut.text) <= highlight.SNIPPET_CHARS + 2
    assert cut.text.startswith("…")
    assert cut.text.endswith(("…", "plus."))
    # The later window holds both words; the first Python alone would hold one.
    assert sorted(set(_marked(cut))) == ["Airflow", "Python"]


def test_the_snippet_is_cut_at_word_boundaries_with_its_whitespace_collapsed() -> None:
    text = (
        "Intro line.\n\n  We need a Rust\tdeveloper for embedded work. " + "More text here. " * 30
    )
    cut = highlight.snippet(text, _words("rust"))
    assert cut is not None
    assert "\n" not in cut.text
    assert "\t" not in cut.text
    assert _marked(cut) == ["Rust"]
    body = cut.text.removesuffix("…")
    assert text.replace("\n\n  ", " ").replace("\t", " ").startswith(body)


def test_every_kind_of_whitespace_collapses_to_one_space() -> None:
    text = " \u00a0Lead\u2003Rust\r\n\x0bdeveloper\u3000 "
    cut = highlight.snippet(text, _words("rust"))
    assert cut == highlight.Snippet("Lead Rust developer", ((5, 9),))


def test_without_a_match_the_snippet_is_the_start_unmarked() -> None:
    cut = highlight.snippet("Short text about cooking.", _words("python"))
    assert cut == highlight.Snippet("Short text about cooking.", ())
    assert highlight.snippet(None, _words("python")) is None


# ---------------------------------------------------------------- on the published rows


def test_each_result_carries_its_snippet_and_marks(seeded, web_conn) -> None:
    page = search.search(web_conn, SearchRequest(search.parse_filters({"q": ["together"]})))
    assert page.items
    for item in page.items:
        marked = [item["snippet"][s:e] for s, e in item["snippet_marks"]]
        assert marked == ["together"], item["snippet"]


@pytest.mark.parametrize("q", ["", "-python"])
def test_no_query_words_no_marks(seeded, web_conn, q: str) -> None:
    page = search.search(web_conn, SearchRequest(search.parse_filters({"q": [q]})))
    assert page.items
    assert all(item["snippet_marks"] == [] for item in page.items)
    if not q:
        assert all(item["snippet"] is None for item in page.items)


def test_a_corrected_query_marks_the_corrected_word(seeded, web_conn) -> None:
    page = search.search(web_conn, SearchRequest(search.parse_filters({"q": ["togeter"]})))
    assert page.corrected_query == "together"
    assert all(
        [i["snippet"][s:e] for s, e in i["snippet_marks"]] == ["together"] for i in page.items
    )
