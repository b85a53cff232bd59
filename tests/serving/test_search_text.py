"""search_tsv written by the sync (diacritics stripped in Python) is the tsvector the
SQL fold gives, with the stems of the row's language and its filter lexemes; any other writer of serving.jobs gets it
computed by the trigger, and a filter column edited alone swaps its lexemes."""

from __future__ import annotations

from tests.serving.conftest import Seeder

SAME_AS_SQL_FOLD = """
SELECT j.id, j.search_tsv = serving.search_tsv_of(
           serving.fold(j.title), serving.fold(j.company), serving.fold(j.location_text),
           serving.fold(left(j.description, 20000)))
       || serving.stem_lexemes(j.language, serving.fold(j.title),
              serving.fold(left(j.description, 20000)))
       || serving.filter_lexemes(j.countries, j.regions, j.cities, j.work_mode, j.job_type,
              j.employment_type, j.source, j.company, j.salary_min, j.salary_max) AS same
FROM serving.jobs AS j ORDER BY j.id
"""


def test_the_synced_search_text_is_the_sql_fold_of_the_row(seed: Seeder) -> None:
    seed.posting(
        title="KẾ TOÁN Trưởng", company="Công ty ĐÀ NẴNG", location_text="Hà Nội & 2 nơi khác"
    )
    seed.posting(title="Ingénieur Zürich", description_text="Ærøskøbing Œuvre ǅemal " * 900)
    seed.posting(title="Plain ASCII Engineer", company=None, location_text=None)
    seed.posting(
        title="Café Manager",
        description_text="You will run the café with our team and the kitchen, every day.",
    )
    seed.sync()
    assert [r["same"] for r in seed.serving(SAME_AS_SQL_FOLD)] == [True, True, True, True]
    # The English one carries its stems, in the order the SQL writes them too.
    assert seed.serving("SELECT language FROM serving.jobs ORDER BY id")[3] == {"language": "en"}
    hits = seed.serving(
        "SELECT j.title FROM serving.jobs AS j "
        "WHERE j.search_tsv @@ websearch_to_tsquery('simple', serving.fold('ke toan da nang'))"
    )
    assert hits == [{"title": "KẾ TOÁN Trưởng"}]


def test_a_row_written_outside_the_sync_gets_its_search_text(seed: Seeder) -> None:
    seed.serving(
        "INSERT INTO serving.jobs (id, source, external_id, status, title, first_seen_at, url) "
        "VALUES (1, 'acme', '1', 'active', 'Kỹ sư phần mềm', now(), 'http://x/1')"
    )
    seed.serving("UPDATE serving.jobs SET company = 'Đông Á' WHERE id = 1")
    assert seed.serving(SAME_AS_SQL_FOLD) == [{"id": 1, "same": True}]
    assert "'dong':5B" in seed.serving("SELECT search_tsv::text AS t FROM serving.jobs")[0]["t"]


def test_a_filter_column_edited_alone_swaps_its_filter_lexemes(seed: Seeder) -> None:
    seed.serving(
        "INSERT INTO serving.jobs (id, source, external_id, status, title, first_seen_at, url, "
        "work_mode, countries) VALUES (1, 'acme', '1', 'active', 'Nurse', now(), 'http://x/1', "
        "'remote', '{DE}')"
    )
    seed.serving("UPDATE serving.jobs SET work_mode = 'hybrid', countries = '{}' WHERE id = 1")
    assert seed.serving(SAME_AS_SQL_FOLD) == [{"id": 1, "same": True}]
    text = seed.serving("SELECT search_tsv::text AS t FROM serving.jobs")[0]["t"]
    assert "'¦wm=hybrid'" in text
    assert "'¦c=unknown'" in text
    assert "¦wm=remote" not in text
    assert "¦c=DE" not in text
