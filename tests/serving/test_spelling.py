"""Typo correction: a word of 5 letters or more that no posting has becomes the nearest
word of the serving lexicon (1 edit up to 8 letters, 2 beyond), on the real serving
database as the web role; quoted, excluded and known words stay as typed, and
`verbatim` searches for what was typed."""

from __future__ import annotations

import psycopg
import pytest

from serving_sync import search, spelling
from serving_sync.search import SearchRequest

# ---------------------------------------------------------------- the pure rules


def test_one_edit_reaches_every_deletion_swap_replacement_and_insertion() -> None:
    variants = set(spelling.edits1("cat"))
    assert {"at", "ct", "ca"} <= variants  # deleted
    assert {"act", "cta"} <= variants  # neighbours swapped
    assert {"bat", "cot", "car"} <= variants  # replaced
    assert {"scat", "coat", "cats"} <= variants  # inserted
    assert "cat" not in variants
    assert all(spelling.distance("cat", v, 1) == 1 for v in variants)


@pytest.mark.parametrize(
    ("a", "b", "edits"),
    [
        ("engineer", "engineer", 0),
        ("engneer", "engineer", 1),
        ("specialsit", "specialist", 1),  # a swap is one edit
        ("enjineerimg", "engineering", 2),
        ("kitten", "sitting", 3),
        ("ca", "abc", 3),  # optimal string alignment: a swapped pair is not edited again
    ],
)
def test_the_edit_distance_counts_deletions_insertions_replacements_and_swaps(
    a: str, b: str, edits: int
) -> None:
    assert spelling.distance(a, b, 5) == edits
    assert spelling.distance(b, a, 5) == edits
    # Past the limit it stops counting: limit + 1 means "too far".
    assert spelling.distance(a, b, edits - 1) == edits if edits else True


def test_only_plain_words_of_five_letters_or_more_can_be_corrected() -> None:
    words = spelling.correctable_words('Engneer -senoir "quoted wrods" OR abcd c++ data2 Désigner')
    assert [(w.typed, w.folded) for w in words] == [
        ("Engneer", "engneer"),
        ("Désigner", "designer"),
    ]
    assert spelling.correctable_words('unbalanced "engneer') == []


def test_the_nearest_word_is_the_fewest_edits_then_the_commonest_then_alphabetical() -> None:
    assert spelling.nearest("mnagaer", {"manager": 0.9}) is None  # 2 edits, 7 letters
    assert spelling.nearest("enginer", {"engines": 0.0, "engineer": 0.0}) == "engineer"
    assert spelling.nearest("enginer", {"engines": 0.2, "engineer": 0.1}) == "engines"
    assert spelling.nearest("administrater", {"administrator": 0.0, "administrate": 0.0}) == (
        "administrate"
    )


def test_a_corrected_query_keeps_everything_but_the_corrected_words() -> None:
    q = '"data lake" Engneer -senior OR desginer'
    words = spelling.correctable_words(q)
    fixed = spelling.corrected(q, words, {"engneer": "engineer", "desginer": "designer"})
    assert fixed == '"data lake" engineer -senior OR designer'


# ---------------------------------------------------------------- on the published rows


def _spelled(web_conn, q: str, **raw: str) -> str | None:
    filters = search.parse_filters({"q": [q], **{k: [v] for k, v in raw.items()}})
    fixed = search.spelled(web_conn, filters)
    return None if fixed is None else fixed.q


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("engneer", "engineer"),  # 7 letters, a letter left out
        ("Develper", "developer"),  # case folded
        ("analst jobs", "analyst jobs"),  # a word that is not last
        ("engenearing", "engineering"),  # 11 letters: two edits
        ("angineering", "engineering"),  # a typo at the start: found by the word's end
        ("sepcialist", "specialist"),  # a swap at the start of a long word
        ("engneer OR desginer", "engineer OR designer"),  # each alternative
        ("senoir -intern", "senior -intern"),
        ("enginee data", "engineer data"),  # not the last word: no prefix to match
    ],
)
def test_a_word_no_posting_has_is_corrected_to_the_nearest_word(
    seeded, web_conn, typed: str, meant: str
) -> None:
    assert _spelled(web_conn, typed) == meant


@pytest.mark.parametrize(
    "typed",
    [
        "engineer",  # known
        "data enginee",  # the last word matches as a prefix
        "enjineet",  # 8 letters, two edits away: too far
        "-engneer manager",  # excluded
        '"engneer" manager',  # quoted
        "xylophonist",  # nothing near
        "dta",  # shorter than 5 letters
    ],
)
def test_known_excluded_quoted_short_and_faraway_words_stay_as_typed(
    seeded, web_conn, typed: str
) -> None:
    assert _spelled(web_conn, typed) is None


def test_the_page_answers_the_corrected_query_and_names_it(seeded, web_conn) -> None:
    typed = search.search(web_conn, SearchRequest(search.parse_filters({"q": ["engneer"]})))
    meant = search.search(web_conn, SearchRequest(search.parse_filters({"q": ["engineer"]})))
    assert typed.corrected_query == "engineer"
    assert meant.corrected_query is None
    assert [i["id"] for i in typed.items] == [i["id"] for i in meant.items]
    assert typed.items, "the seed has engineers"


def test_verbatim_searches_for_what_was_typed(seeded, web_conn) -> None:
    filters = search.parse_filters({"q": ["engneer"], "verbatim": ["true"]})
    page = search.search(web_conn, SearchRequest(filters))
    assert page.corrected_query is None
    assert page.items == ()
    assert ("verbatim", "true") in filters.as_params()


def test_a_bad_verbatim_value_names_the_parameter() -> None:
    with pytest.raises(search.InvalidParameter) as raised:
        search.parse_filters({"q": ["engneer"], "verbatim": ["perhaps"]})
    assert raised.value.param == "verbatim"


def test_at_most_five_words_of_a_query_are_corrected() -> None:
    words = spelling.correctable_words("alpha bravo charlie delta hotel india kilo")
    assert [w.folded for w in words] == ["alpha", "bravo", "charlie", "delta", "hotel"]


def test_the_web_role_cannot_list_the_lexicon_in_bulk(seeded, web_conn) -> None:
    """The lookup refuses more words or variants than a query can need: the lexicon
    holds words of postings gone too, so it must not be read out wholesale."""
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        web_conn.execute(search.SPELLING_SQL, (["abcde"] * 6, [], None))
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        web_conn.execute(search.SPELLING_SQL, ([], [], ["abcde"] * 2501))
    edits = spelling.edits1("engneer")
    assert len(edits) <= spelling.MAX_EDITS // spelling.MAX_WORDS
    rows = web_conn.execute(search.SPELLING_SQL, ([], [], edits)).fetchall()
    assert rows == [{"word": None, "candidate": "engineer", "share": rows[0]["share"]}]
