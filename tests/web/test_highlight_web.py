"""Highlights as a visitor sees them, over a real socket as the web role: the API's
snippet and offsets, the results' <mark>s, and the job page marking the search's words
in its description, escaped like everything else."""

from __future__ import annotations

import re

import httpx
import psycopg

from tests.serving.conftest import insert_jobs, job_row


def _get(web, path: str, **params) -> httpx.Response:
    return httpx.get(web.url + path, params=params, timeout=10)


def test_the_api_gives_each_result_a_snippet_and_its_marks(web, seeded) -> None:
    body = _get(web, "/api/jobs", q="build together", limit=5).json()
    assert body["items"]
    for item in body["items"]:
        assert len(item["snippet"]) <= 202
        marked = [item["snippet"][s:e].lower() for s, e in item["snippet_marks"]]
        assert set(marked) == {"build", "together"}
    plain = _get(web, "/api/jobs", limit=1).json()["items"][0]
    assert (plain["snippet"], plain["snippet_marks"]) == (None, [])


def test_results_mark_the_words_and_link_to_a_marked_job_page(web, seeded) -> None:
    page = _get(web, "/", q="together").text
    assert re.search(r'<p class="snippet">[^<]*<mark>together</mark>', page)
    link = re.search(r'<h2><a href="(/jobs/\d+\?q=together)">', page)
    assert link is not None
    job = httpx.get(web.url + link.group(1), timeout=10).text
    description = job[job.index('<div class="description">') :]
    assert '<mark class="hit">together</mark>' in description
    assert "are <mark" in job  # the note that says what the marks are


def test_a_job_page_without_a_search_marks_no_query_words(web, seeded) -> None:
    job = _get(web, "/jobs/1001").text
    assert 'class="hit"' not in job
    too_long = _get(web, "/jobs/1001", q="x" * 201)
    assert too_long.status_code == 422
    assert "q" in too_long.text


def test_a_marked_description_stays_escaped(serving, seeded, web) -> None:
    evil = "Build <script>alert(1)</script> zanzibar"
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, [job_row(100, description=evil)])
        conn.execute("ANALYZE serving.jobs")
    job = _get(web, "/jobs/1100", q="script zanzibar").text
    assert "<script>alert" not in job
    assert '&lt;<mark class="hit">script</mark>&gt;' in job
    listing = _get(web, "/", q="zanzibar").text
    assert "<script>alert" not in listing
    assert "&lt;/script&gt; <mark>zanzibar</mark>" in listing


def test_a_job_page_shows_the_descriptions_headings_and_lists_with_marks_inside(
    serving, seeded, web
) -> None:
    text = "Duties\n- Build pipelines together\n- Review <code>\nWe reply within a week."
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, [job_row(101, description=text, description_layout="huup")])
    page = _get(web, "/jobs/1101", q="together").text
    description = page[page.index('<div class="description">') :]
    assert "<h3>Duties</h3>" in description
    assert (
        '<ul><li>Build pipelines <mark class="hit">together</mark></li>'
        "<li>Review &lt;code&gt;</li></ul>" in description
    )
    assert "<p>We reply within a week.</p>" in description
    api = _get(web, "/api/jobs/1101").json()
    assert api["description"] == text  # offsets keep indexing the plain text
    assert api["description_html"].startswith("<h3>Duties</h3>\n<ul><li>Build pipelines")
    assert "description_layout" not in api
