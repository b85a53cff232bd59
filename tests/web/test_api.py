"""The web app over a real socket, as the read-only role: JSON API, pages, errors,
outage, rate limit."""

from __future__ import annotations

import base64

import httpx
import psycopg
import pytest

from serving_sync import search
from tests.serving.conftest import free_port, start_web


def get(web, path: str, **params) -> httpx.Response:
    return httpx.get(web.url + path, params=params, timeout=10, follow_redirects=True)


def test_api_jobs_pages_through_every_match_once(web, seeded) -> None:
    seen: list[int] = []
    params: dict = {"country": ["VN", "unknown"], "limit": 4}
    while True:
        body = get(web, "/api/jobs", **params).json()
        assert set(body) == {
            "items",
            "next_cursor",
            "has_previous",
            "previous_cursor",
            "corrected_query",
        }
        assert body["corrected_query"] is None
        seen.extend(item["id"] for item in body["items"])
        if not body["next_cursor"]:
            break
        params["cursor"] = body["next_cursor"]
    expected = {r["id"] for r in seeded if not r["countries"] or "VN" in r["countries"]}
    assert len(seen) == len(set(seen))
    assert set(seen) == expected


def test_api_jobs_pages_back_through_the_pages_it_came_by(web, seeded) -> None:
    params: dict = {"limit": 3}
    forward: list[tuple[str | None, list[int]]] = []
    cursor = None
    for _ in range(5):
        body = get(web, "/api/jobs", **params, **({"cursor": cursor} if cursor else {})).json()
        forward.append((cursor, [i["id"] for i in body["items"]]))
        cursor = body["next_cursor"]
    assert get(web, "/api/jobs", **params).json()["has_previous"] is False
    # Back from the fifth page: each previous_cursor gives the page listed before it.
    body = get(web, "/api/jobs", **params, cursor=forward[-1][0]).json()
    for earlier_cursor, earlier_ids in reversed(forward[:-1]):
        assert body["has_previous"] is True
        assert body["previous_cursor"] == earlier_cursor  # None: the first page
        back = {"cursor": earlier_cursor} if earlier_cursor else {}
        body = get(web, "/api/jobs", **params, **back).json()
        assert [i["id"] for i in body["items"]] == earlier_ids
    assert body["has_previous"] is False
    assert body["previous_cursor"] is None


def test_api_jobs_items_carry_what_a_list_shows(web, seeded) -> None:
    item = get(web, "/api/jobs", q="ke toan", limit=1).json()["items"][0]
    assert item["title"] in {"Kế toán trưởng", "Nhân viên kế toán tổng hợp"}
    assert item["date_kind"] in {"posted", "first_seen", "listed_since"}
    assert item["page"] == f"/jobs/{item['id']}"
    assert "description" not in item


def test_api_stats_has_totals_facets_and_coverage(web, seeded) -> None:
    body = get(web, "/api/stats", work_mode="remote").json()
    assert {"total", "computed_at", "facets", "coverage"} <= set(body)
    assert body["total"] == sum(r["work_mode"] == "remote" for r in seeded)
    assert set(body["facets"]) == {*search.FACET_GROUPS, "month", *search.ENRICH_STATS_GROUPS}
    assert "remote" not in body["facets"]  # one facet for where the work is done
    modes = {b["value"]: b["count"] for b in body["facets"]["work_mode"]}
    assert sum(modes.values()) == body["denominators"]["work_mode"] == len(seeded)
    assert 0 < body["coverage"]["country"] < 1
    assert body["unavailable"] == []


def test_api_job_open_closed_and_unknown(web, seeded) -> None:
    job = get(web, f"/api/jobs/{seeded[3]['id']}")
    assert job.status_code == 200
    assert job.json()["description"] == seeded[3]["description"]
    closed = get(web, "/api/jobs/999")
    assert closed.status_code == 410
    assert closed.json()["closed_at"]
    assert get(web, "/api/jobs/123456").status_code == 404
    assert get(web, f"/api/jobs/{2**63 + 5}").status_code == 404


def _cursor(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


BAD_INPUT = {
    "q_too_long": ({"q": "x" * 201}, "q"),
    "unknown_remote": ({"remote": "sometimes"}, "remote"),
    "unknown_job_type": ({"job_type": "boss"}, "job_type"),
    "bad_country": ({"country": "Vietnam"}, "country"),
    "too_many_values": ({"company": [f"c{i}" for i in range(21)]}, "company"),
    "limit_zero": ({"limit": 0}, "limit"),
    "limit_51": ({"limit": 51}, "limit"),
    "limit_text": ({"limit": "ten"}, "limit"),
    "cursor_garbage": ({"cursor": "%%%not-a-cursor"}, "cursor"),
    "cursor_bad_json": ({"cursor": _cursor('{"s": "newest"}')}, "cursor"),
    "cursor_huge_id": (
        {
            "cursor": _cursor(
                '{"s":"newest","i":99999999999999999999,"t":"2026-01-01T00:00:00+00:00"}'
            )
        },
        "cursor",
    ),
    "cursor_other_sort": ({"cursor": _cursor('{"s":"relevance","i":1,"r":0.5}')}, "cursor"),
    "salary_without_currency": ({"salary_min": 1000}, "salary_min"),
    "bad_currency": ({"salary_min": 1000, "salary_currency": "euro"}, "salary_currency"),
    "days_text": ({"posted_within_days": "week"}, "posted_within_days"),
    "include_undated_text": ({"include_undated": "sometimes"}, "include_undated"),
    "cursor_unknown_age_flag_not_1": ({"cursor": _cursor('{"s":"newest","i":1,"u":2}')}, "cursor"),
    "bad_sort": ({"sort": "oldest"}, "sort"),
    "bad_group": ({"group": "title"}, "group"),
    "verbatim_text": ({"q": "engneer", "verbatim": "perhaps"}, "verbatim"),
    "unknown_parameter": ({"colour": "blue"}, "colour"),
}


@pytest.mark.parametrize("case", BAD_INPUT)
def test_bad_input_is_a_422_naming_the_parameter(web, case) -> None:
    params, name = BAD_INPUT[case]
    response = get(web, "/api/jobs", **params)
    assert response.status_code == 422
    assert any(name in error["loc"] for error in response.json()["detail"])
    page = (
        get(web, "/", **params) if name not in ("colour", "limit") or case == "limit_51" else None
    )
    if page is not None:
        assert page.status_code == 422
        assert name in page.text


INJECTIONS = (
    "' OR 1=1 --",
    "x'); DROP TABLE serving.jobs; --",
    '"; SELECT pg_sleep(5); --',
    "%' UNION SELECT * FROM pg_authid --",
    "\\x00",
    "{unknown}",
)


@pytest.mark.parametrize(
    "param", [*search.GROUPS, "q", "sort", "cursor", "salary_currency", "limit"]
)
def test_injection_attempts_are_harmless(web, seeded, serving, param) -> None:
    for evil in INJECTIONS:
        for path in ("/api/jobs", "/api/stats", "/", "/stats"):
            response = get(web, path, **{param: evil})
            assert response.status_code in (200, 422), (path, param, evil, response.text[:300])
            if response.status_code == 200 and path == "/api/jobs":
                assert response.json()["items"] == []
    with psycopg.connect(serving.url) as owner:
        assert owner.execute("SELECT count(*) FROM serving.jobs").fetchone()[0] == len(seeded)


def test_pages_vary_on_hx_request(web) -> None:
    response = get(web, "/")
    assert response.status_code == 200
    assert "HX-Request" in response.headers["vary"].split(", ")
    assert 'role="status"' in response.text
    fragment = httpx.get(web.url + "/", headers={"HX-Request": "true"})
    assert "<html" not in fragment.text
    assert 'role="status"' in fragment.text


def test_job_pages_answer_200_410_and_404(web, seeded) -> None:
    row = seeded[4]
    page = get(web, f"/jobs/{row['id']}")
    assert page.status_code == 200
    assert row["description"] in page.text
    assert f"Posted {row['openings_12m']} time" in page.text
    closed = get(web, "/jobs/999")
    assert closed.status_code == 410
    assert "closed on" in closed.text
    assert get(web, "/jobs/4242").status_code == 404
    assert get(web, "/jobs/abc").status_code == 422


def test_healthz_reports_the_last_applied_sync_and_its_age(web, serving) -> None:
    assert get(web, "/healthz").json()["last_sync_at"] is None
    with psycopg.connect(serving.url) as owner:
        owner.execute(
            """INSERT INTO serving.sync_runs (started_at, finished_at, dry_run, status, source_rows)
               VALUES (now() - interval '2 hours', now() - interval '1 hour', false, 'applied', 60),
                      (now(), now(), true, 'previewed', 60)"""
        )
    body = get(web, "/healthz").json()
    assert body["status"] == "ok"
    assert 3500 < body["last_sync_age_s"] < 3700
    assert body["published_rows"] == 60


@pytest.mark.db  # its PostgreSQL is one that does not answer
def test_a_database_outage_says_search_unavailable_never_zero_results() -> None:
    dead = f"postgresql://jobharbor_web:x@127.0.0.1:{free_port()}/serving?connect_timeout=1"
    running = start_web(dead, web_pool_timeout_s=1.0)
    try:
        page = get(running, "/", q="engineer")
        assert page.status_code == 503
        assert "Search unavailable" in page.text
        assert "0 jobs" not in page.text
        assert "No jobs match" not in page.text
        api = get(running, "/api/jobs")
        assert api.status_code == 503
        assert api.json() == {"detail": "search unavailable"}
        assert get(running, "/healthz").status_code == 503
        assert get(running, "/jobs/1").status_code == 503
    finally:
        running.stop()


def test_data_routes_are_rate_limited_per_client(seeded, web_url) -> None:
    running = start_web(web_url, web_rate_limit_per_minute=3)
    try:
        codes = [get(running, "/api/jobs", limit=1).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        assert get(running, "/", q="x").status_code == 429
        assert get(running, "/healthz").status_code == 200  # not a data route
    finally:
        running.stop()


def test_the_openapi_document_lists_the_contract_parameters(web) -> None:
    spec = get(web, "/openapi.json").json()
    parameters = spec["paths"]["/api/jobs"]["get"]["parameters"]
    names = {p["name"] for p in parameters}
    # salary_min and salary_currency are the two properties of one exploded object.
    [salary] = [p for p in parameters if p["name"] == "salary"]
    assert (salary["style"], salary["explode"]) == ("form", True)
    assert set(salary["schema"]["properties"]) == {"salary_min", "salary_currency"}
    expected = {*search.filter_names(), "sort", "group", "cursor", "limit"}
    assert names == expected - {"salary_min", "salary_currency"} | {"salary"}
    assert "/api/stats" in spec["paths"]
    assert "/api/jobs/{job_id}" in spec["paths"]


def test_the_cli_serves_the_web_app_on_host_and_port() -> None:
    from pipeline.cli import build_parser, cmd_web

    args = build_parser().parse_args(["web", "--host", "0.0.0.0", "--port", "8123"])
    assert (args.func, args.host, args.port) == (cmd_web, "0.0.0.0", 8123)
    defaults = build_parser().parse_args(["web"])
    assert (defaults.host, defaults.port) == ("127.0.0.1", 8000)


def test_the_reader_url_logs_in_as_the_web_role_with_the_environment_password(
    monkeypatch, databases
) -> None:
    from psycopg.conninfo import conninfo_to_dict

    from web.server import resolve_reader_url
    from web.settings import WebSettings

    monkeypatch.setenv("JOBHARBOR_DATABASE_URL", databases.db.url)
    monkeypatch.setenv("JOBHARBOR_SERVING_DATABASE_URL", databases.serving.url)
    monkeypatch.setenv("JOBHARBOR_WEB_DB_PASSWORD", "s3cret")
    info = conninfo_to_dict(resolve_reader_url(WebSettings()))
    assert (info["user"], info["password"]) == ("jobharbor_web", "s3cret")
    assert info["dbname"] == conninfo_to_dict(databases.serving.url)["dbname"]


def test_a_posting_cannot_put_a_script_link_on_its_page(seeded, serving, web) -> None:
    with psycopg.connect(serving.url) as owner:
        owner.execute(
            "UPDATE serving.jobs SET apply_url = 'javascript:alert(1)', url = 'data:text/html,x', description = '<script>alert(2)</script>' WHERE id = %s",
            (seeded[0]["id"],),
        )
    page = get(web, f"/jobs/{seeded[0]['id']}").text
    assert "javascript:" not in page
    assert "data:text" not in page
    assert "<script>alert(2)" not in page
    assert "&lt;script&gt;alert(2)" in page


def test_counts_are_reused_briefly_with_their_computed_at(seeded, serving, web_url) -> None:
    running = start_web(web_url, web_counts_cache_s=60)
    try:
        first = get(running, "/api/stats", remote="yes").json()
        with psycopg.connect(serving.url) as owner:
            owner.execute("DELETE FROM serving.jobs WHERE work_mode = 'remote'")
        again = get(running, "/api/stats", remote="yes").json()
        assert again == first  # the same result, computed_at included: true as of then
        other = get(running, "/api/stats", remote="hybrid").json()
        assert other["computed_at"] != first["computed_at"]
    finally:
        running.stop()
