"""Similar jobs (serving.web_similar), as the web role reads them: the same job elsewhere
first, then open postings by shared title words and skills, newest first among equals;
postings not seen open at the last check never; stop words share nothing."""

from __future__ import annotations

from datetime import timedelta

import psycopg
from psycopg.rows import dict_row

from serving_sync import roles, search
from tests.serving.conftest import NOW, WEB_PASSWORD, insert_jobs, job_row


def _row(i: int, title: str, **overrides):
    fields = {
        "title": title,
        "description": f"{title}. Join us.",
        "duplicate_group": None,
        "skills_required": [],
        "first_seen_at": NOW - timedelta(days=i),
        "posted_at": NOW - timedelta(days=i),
    }
    return job_row(i, **{**fields, **overrides})


ROWS = [
    _row(0, "Senior Data Engineer", skills_required=["python", "sql"], duplicate_group=7),
    _row(1, "Data Engineer", duplicate_group=7, source="lever"),  # the same job elsewhere
    _row(2, "Data Engineer", skills_required=["python", "sql"]),  # 2 words + 2 skills
    _row(3, "Senior Data Engineer (m/w/d)"),  # 3 words
    _row(4, "Data Analyst", skills_required=["sql"]),  # 1 word + 1 skill
    _row(5, "Engineer of the Year", status="missing"),  # not seen open: never
    _row(6, "Pastry Baker", skills_required=["baking"]),  # nothing shared
    _row(7, "Head of the Kitchen and Bar"),  # only stop words shared with row 8
    _row(8, "Chef of the Bar and the Grill"),
    _row(9, "Data Engineer"),  # 2 words, older than row 2
]


def _similar(serving, job_id: int) -> list[dict]:
    roles.provision_web_role(serving, WEB_PASSWORD)
    url = roles.reader_url(serving.url, WEB_PASSWORD)
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        return search.similar(conn, job_id, rows=20)


def _seed(serving) -> None:
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, ROWS)


def test_the_same_job_comes_first_then_the_most_shared_words_and_skills(serving) -> None:
    _seed(serving)
    found = _similar(serving, 1000)
    # Rows 4 and 9 share as much (1 word + 1 skill, 2 words): the newer first.
    assert [r["id"] - 1000 for r in found] == [1, 2, 3, 4, 9]
    assert [r["same_job"] for r in found] == [True, False, False, False, False]
    assert [(r["shared_words"], r["shared_skills"]) for r in found[1:]] == [
        (2, 2),
        (3, 0),
        (1, 1),
        (2, 0),
    ]


def test_a_posting_not_seen_open_is_never_similar_and_nothing_shared_is_nothing(serving) -> None:
    _seed(serving)
    assert all(r["id"] != 1005 for r in _similar(serving, 1003))
    assert _similar(serving, 1006) == []  # "Pastry Baker" shares a word with no one
    # "of", "the", "and" are shared, but are stop words: "Bar" is the one word shared.
    shared = _similar(serving, 1007)
    assert [(r["id"], r["shared_words"]) for r in shared] == [(1008, 1)]


def test_an_unknown_job_has_no_similar_jobs_and_the_list_is_bounded(serving) -> None:
    _seed(serving)
    assert _similar(serving, 999_999) == []
    roles.provision_web_role(serving, WEB_PASSWORD)
    url = roles.reader_url(serving.url, WEB_PASSWORD)
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        assert len(search.similar(conn, 1000, rows=2)) == 2
        assert len(search.similar(conn, 1000, rows=10_000)) <= 20
