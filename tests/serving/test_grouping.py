"""Grouped results: the postings of one duplicate group (the same job on several boards
or sources) show once, where the first stands, saying where else the job is listed;
reposts are counted; on the real serving database as the web role, and on the page."""

from __future__ import annotations

import httpx
import psycopg
import pytest

from serving_sync import search
from tests.serving.conftest import insert_jobs, job_row

GROUP = 77


@pytest.fixture
def grouped(serving) -> None:
    rows = [job_row(i, title="Glassblower", description="Annealing ovens.") for i in range(4)]
    for row in rows[:3]:
        row["duplicate_group"] = GROUP  # the same job on greenhouse, lever, vietnamworks
    rows[3]["openings_12m"] = 3
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, rows)
        conn.execute("ANALYZE serving.jobs")


def _page(web_conn, **raw: str) -> search.Page:
    request = search.parse_request({k: [v] for k, v in raw.items()})
    return search.search(web_conn, request)


def test_a_duplicate_group_shows_once_naming_where_else_it_is_listed(grouped, web_conn) -> None:
    page = _page(web_conn, q="glassblower")
    ids = [item["id"] for item in page.items]
    assert len(ids) == 2  # the group once, and the posting of its own
    first = next(item for item in page.items if item["group"] == GROUP)
    own = {1000: "greenhouse", 1001: "lever", 1002: "vietnamworks"}
    assert first["listings"] == 3
    assert first["also_on"] == sorted(s for i, s in own.items() if i != first["id"])
    assert sorted([first["id"], *first["other_ids"]]) == [1000, 1001, 1002]
    single = next(item for item in page.items if item["group"] is None)
    assert (single["also_on"], single["listings"], single["reposts"]) == ([], 1, 2)


def test_a_filter_that_keeps_one_member_still_names_the_others(grouped, web_conn) -> None:
    page = _page(web_conn, q="glassblower", source="lever")
    assert [item["id"] for item in page.items] == [1001]
    assert page.items[0]["also_on"] == ["greenhouse", "vietnamworks"]


def test_the_page_says_where_else_and_how_often(grouped, web_url) -> None:
    from tests.serving.conftest import start_web

    web = start_web(web_url)
    try:
        text = httpx.get(web.url + "/", params={"q": "glassblower"}, timeout=10).text
    finally:
        web.stop()
    assert text.count('<li class="job">') == 2
    assert "Also on " in text
    assert "2 reposts in 12 months" in text
