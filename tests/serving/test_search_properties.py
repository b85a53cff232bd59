"""Properties of the query language over generated queries, on the module's published
rows, searched as the web role through serving.web_search (all pages):

- order: exclusions and quoted phrases may stand anywhere, and the plain words before
  the last one in any order, with the same result set (the last plain word of an
  alternative is the one that also matches as a prefix, so it keeps its place);
- OR: `a OR b` finds at least what `a` finds, and what `b` finds;
- exclusion: adding `-x` never adds a result.
Derandomized: the same examples every run."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serving_sync.search import Filters
from tests.serving.conftest import SEED_ROWS
from tests.serving.test_search_sql import all_pages

WORDS = sorted(
    {
        w
        for row in SEED_ROWS
        for w in re.findall(r"[a-z]{3,}", f"{row['title']} {row['description']}".lower())
    }
)
# Words and the prefixes a visitor types on the way to them.
TYPED = sorted({*WORDS, *(w[:n] for w in WORDS for n in (3, 4, 5) if len(w) > n)})

word = st.sampled_from(TYPED)
exclusion = st.sampled_from(WORDS).map(lambda w: f"-{w}")
phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=2).map(
    lambda ws: '"' + " ".join(ws) + '"'
)
PROPERTY = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def found(conn, q: str) -> set[int]:
    return set(all_pages(conn, Filters(q=q), limit=50))


@PROPERTY
@given(
    plain=st.lists(word, min_size=1, max_size=3),
    others=st.lists(st.one_of(exclusion, phrase), min_size=1, max_size=2),
    data=st.data(),
)
def test_exclusions_and_phrases_mean_the_same_wherever_they_stand(
    seeded, web_conn, plain, others, data
) -> None:
    *before, last = plain
    first = " ".join([*others, *before, last])  # the last plain word last of all
    mixed = data.draw(st.permutations([*before, *others]))
    # ... and again with exclusions and phrases around and after it.
    second = " ".join([*mixed[: len(mixed) // 2], last, *mixed[len(mixed) // 2 :]])
    assert found(web_conn, first) == found(web_conn, second), (first, second)


@PROPERTY
@given(a=st.lists(word, min_size=1, max_size=2), b=st.lists(word, min_size=1, max_size=2))
def test_an_or_alternative_never_removes_a_result(seeded, web_conn, a, b) -> None:
    left, right = " ".join(a), " ".join(b)
    either = found(web_conn, f"{left} OR {right}")
    assert found(web_conn, left) <= either, (left, right)
    assert found(web_conn, right) <= either, (left, right)


@PROPERTY
@given(q=st.lists(word, min_size=1, max_size=2), x=st.sampled_from(WORDS))
def test_an_exclusion_never_adds_a_result(seeded, web_conn, q, x) -> None:
    base = " ".join(q)
    for narrowed in (f"{base} -{x}", f"-{x} {base}"):
        assert found(web_conn, narrowed) <= found(web_conn, base), (base, x)


def test_the_properties_are_not_vacuous(seeded, web_conn) -> None:
    """The examples above find things: an OR of two words finds more than either, an
    exclusion removes postings, and a prefix typed before an exclusion still widens."""
    assert found(web_conn, "engineer OR designer") > found(web_conn, "engineer")
    assert found(web_conn, "engin -senior") < found(web_conn, "engin")
    assert found(web_conn, "engin -senior") > found(web_conn, '"engin" -senior') == set()
