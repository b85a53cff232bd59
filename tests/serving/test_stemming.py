"""A plain word finds its inflections in the posting's language: the sync detects each
posting's language (serving_sync.language) and adds its words' stems to search_tsv
(serving.stem_lexemes: English, German, French); a query word is itself or its stem in
each of those languages (serving.word_tsquery), so a posting matches through the stem
of its own language only. Vietnamese and unknown languages are searched folded only."""

from __future__ import annotations

import pytest

from serving_sync import search
from serving_sync.search import SearchRequest
from tests.serving.conftest import Seeder

ENGLISH = (
    "We are looking for engineers to join our platform team. You will work with the "
    "data team and own the pipelines that our customers use every day."
)
GERMAN = (
    "Wir suchen Ingenieure für unser Team in Berlin. Sie arbeiten mit der Plattform und "
    "sind für die Datenpipelines verantwortlich, die unsere Kunden nutzen."
)
FRENCH = (
    "Nous recherchons des développeuses pour rejoindre notre équipe. Vous travaillerez "
    "avec les équipes produit et serez responsable des pipelines."
)
VIETNAMESE = (
    "Công ty cần tuyển kế toán trưởng có kinh nghiệm. Ứng viên sẽ phụ trách sổ sách, "
    "báo cáo thuế và làm việc với các phòng ban."
)
UNCLEAR = "Engineering lead. Berlin. Platform. Kubernetes. Python."  # too few words to tell


@pytest.fixture
def postings(seed: Seeder) -> dict[str, int]:
    ids = {
        "en": seed.posting(title="Platform Developer", description_text=ENGLISH),
        "de": seed.posting(title="Ingenieur (m/w/d)", description_text=GERMAN),
        "fr": seed.posting(title="Développeuse backend", description_text=FRENCH),
        "vi": seed.posting(title="Kế toán trưởng", description_text=VIETNAMESE),
        "unclear": seed.posting(title="Lead", description_text=UNCLEAR),
    }
    seed.sync()
    return ids


def _found(seed: Seeder, q: str) -> set[int]:
    rows = seed.serving(
        "SELECT id FROM serving.jobs WHERE search_tsv @@ serving.web_tsquery(%s, false)", (q,)
    )
    return {r["id"] for r in rows}


def test_the_sync_records_each_postings_language_and_stems_only_the_three(
    seed: Seeder, postings: dict[str, int]
) -> None:
    rows = seed.serving("SELECT id, language, search_tsv::text AS tsv FROM serving.jobs")
    by_id = {r["id"]: r for r in rows}
    assert {k: by_id[v]["language"] for k, v in postings.items()} == {
        "en": "en",
        "de": "de",
        "fr": "fr",
        "vi": "vi",
        "unclear": None,
    }
    assert "'~en:engin'" in by_id[postings["en"]]["tsv"]
    assert "'~de:ingenieur'" in by_id[postings["de"]]["tsv"]
    assert "'~fr:developp'" in by_id[postings["fr"]]["tsv"]
    # Folded only: no stems at all.
    assert "'~" not in by_id[postings["vi"]]["tsv"]
    assert "'~" not in by_id[postings["unclear"]]["tsv"]
    # Stop words are not stemmed ("the", "and"), numbers are not either.
    assert "'~en:the'" not in by_id[postings["en"]]["tsv"]


@pytest.mark.parametrize(
    ("q", "language"),
    [
        ("engineer", "en"),  # the posting says "engineers"
        ("engineering", "en"),  # the same stem
        ("pipeline", "en"),  # "pipelines"
        ("Ingenieure", "de"),
        ("ingenieur", "de"),
        ("developpeuses", "fr"),
        ("développeuse", "fr"),
        ("equipes", "fr"),  # "équipe", "équipes"
    ],
)
def test_a_plain_word_finds_its_inflections_in_the_postings_language(
    seed: Seeder, postings: dict[str, int], q: str, language: str
) -> None:
    assert postings[language] in _found(seed, q)


def test_a_posting_without_a_stemmer_matches_only_the_words_it_has(
    seed: Seeder, postings: dict[str, int]
) -> None:
    # The unclear posting says "Engineering": found by that word and by its prefix, never
    # by an inflection (its language is unknown, so it is folded only).
    assert postings["unclear"] in _found(seed, "engineering")
    assert postings["unclear"] not in _found(seed, "engineers")
    assert postings["en"] in _found(seed, "engineers")
    # A stem matches only through the posting's own language: the German "Ingenieur"
    # in a posting of unknown language is not reached through the German stem.
    assert _found(seed, "kế toán") == {postings["vi"]}


def test_an_excluded_word_leaves_out_its_inflections_and_a_quoted_one_only_itself(
    seed: Seeder, postings: dict[str, int]
) -> None:
    # Both the English and the French posting say "pipelines"; only the English one says
    # "engineers", an inflection of "engineer".
    assert _found(seed, "pipelines") == {postings["en"], postings["fr"]}
    assert _found(seed, "pipelines -engineer") == {postings["fr"]}
    assert _found(seed, 'pipelines -"engineer"') == {postings["en"], postings["fr"]}
    # The unclear posting's "Engineering" is a word of its own there (no stemmer), so
    # "-engineer" leaves it in, and "-engineering" takes it out.
    assert _found(seed, "lead -engineer") == {postings["unclear"]}
    assert _found(seed, "lead -engineering") == set()


def test_the_same_words_in_any_order_give_the_same_postings(
    seed: Seeder, postings: dict[str, int]
) -> None:
    assert _found(seed, "engineers platform -kế") == _found(seed, "-kế platform engineers")
    assert _found(seed, "ingenieure berlin") == _found(seed, "berlin ingenieure")
    assert _found(seed, "ingenieure berlin") == {postings["de"]}


def test_a_word_found_through_its_stem_is_not_corrected_as_a_typo(
    seed: Seeder, postings: dict[str, int], web_conn
) -> None:
    # "pipeline" is no word of any posting ("pipelines" is), but its stem is.
    page = search.search(web_conn, SearchRequest(search.parse_filters({"q": ["pipeline "]})))
    assert page.corrected_query is None
    assert {i["id"] for i in page.items} >= {postings["en"], postings["fr"]}
    # A real typo still is.
    page = search.search(web_conn, SearchRequest(search.parse_filters({"q": ["pipelnes"]})))
    assert page.corrected_query == "pipelines"


def test_a_row_written_outside_the_sync_is_stemmed_in_its_language(seed: Seeder) -> None:
    seed.serving(
        "INSERT INTO serving.jobs (id, source, external_id, status, title, first_seen_at, url, "
        "language) VALUES (1, 'acme', '1', 'active', 'Ingenieure gesucht', now(), 'http://x/1', "
        "'de')"
    )
    assert _found(seed, "ingenieur") == {1}
    # Its language changed alone: the stems follow it.
    seed.serving("UPDATE serving.jobs SET language = NULL WHERE id = 1")
    assert _found(seed, "ingenieur") == set()


def test_the_matching_query_keeps_only_the_stems_some_posting_has(
    seed: Seeder, postings: dict[str, int]
) -> None:
    def matching(q: str) -> str:
        return seed.serving("SELECT serving.web_tsquery(%s, false)::text AS q", (q,))[0]["q"]

    # German and English postings have these stems; no French one has 'ingenieur'.
    assert matching("ingenieur") == "'ingenieur' | '~de:ingenieur'"
    assert matching("pipelines") == "'pipelines' | '~en:pipelin' | '~fr:pipelin'"
    # A word no posting has keeps the word alone: it matches nothing either way, and
    # the planner no longer takes its three stems for three times as many postings.
    assert matching("zzqqxx") == "'zzqqxx'"
    # The query as typed, which ranks, keeps every stem.
    typed = seed.serving("SELECT serving.typed_tsquery('zzqqxx', false)::text AS q")[0]["q"]
    assert typed == "'zzqqxx' | '~de:zzqqxx' | '~en:zzqqxx' | '~fr:zzqqxx'"
