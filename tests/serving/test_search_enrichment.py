"""The enrichment's filters, facets, stats and job shapes, on the real serving schema as
the read-only web role: skills ANY/ALL in required or required + preferred, experience
as range overlap, seniority and work mode, unknown selectable in each; facet sums with
the new groups; "not extracted" never reads as "no requirements"; 422s name the
parameter."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from serving_sync import search
from tests.serving.conftest import NOW, RunningWeb, insert_jobs, job_row, start_web


def ev(value: Any, evidence: str, start: int) -> dict[str, Any]:
    return {"value": value, "evidence": evidence, "start": start, "end": start + len(evidence)}


def enriched(i: int, required=(), preferred=(), lo=None, hi=None, seniority=None, work_mode=None):
    fields = {"experience_min": ev(lo, f"{lo}+ years", 5) if lo is not None else None}
    if hi is not None:
        fields["experience_max"] = ev(hi, f"{lo}-{hi} years", 5)
    if seniority:
        fields["seniority"] = ev(seniority, seniority.capitalize(), 0)
    if work_mode:
        fields["work_mode"] = ev(work_mode, work_mode, 20)
    skills = {
        name: [{"key": k, **ev(k, k.capitalize(), 40 + n)} for n, k in enumerate(keys)]
        for name, keys in (("skills_required", required), ("skills_preferred", preferred))
    }
    return job_row(
        i,
        experience_min=lo,
        experience_max=hi,
        seniority=seniority,
        work_mode=work_mode,
        skills_required=list(required),
        skills_preferred=list(preferred),
        enrichment=json.dumps({**{k: v for k, v in fields.items() if v}, **skills}),
        enriched_at=NOW,
    )


ROWS = [
    enriched(1, ["python", "sql"], ["docker"], 3, 5, "senior", "remote"),
    enriched(2, ["python"], ["sql"], 0, 1, "junior", "onsite"),
    enriched(3, ["java"], [], 5, None, "senior", "hybrid"),
    enriched(4, [], ["python"]),  # extracted: nothing stated
    job_row(5),  # not extracted
    job_row(6),  # not extracted
]
ID = {n: 1000 + n for n in range(1, 7)}
NOT_EXTRACTED = {ID[5], ID[6]}


@pytest.fixture
def rows(serving) -> list[dict[str, Any]]:
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, ROWS)
    return ROWS


def ids(web_conn, **raw: Any) -> set[int]:
    params = {k: v if isinstance(v, list) else [str(v)] for k, v in raw.items()}
    request = search.parse_request(params)
    return {item["id"] for item in search.search(web_conn, request).items}


def n(*numbers: int) -> set[int]:
    return {ID[i] for i in numbers}


def test_skill_any_and_all_within_required_skills(rows, web_conn) -> None:
    assert ids(web_conn, skill=["python", "sql"]) == n(1, 2)
    assert ids(web_conn, skill=["python", "sql"], skill_match="all") == n(1)
    assert ids(web_conn, skill=["java"]) == n(3)


def test_skill_scope_all_adds_preferred_skills(rows, web_conn) -> None:
    assert ids(web_conn, skill=["python"], skill_scope="all") == n(1, 2, 4)
    assert ids(web_conn, skill=["python", "sql"], skill_match="all", skill_scope="all") == n(1, 2)
    assert ids(web_conn, skill=["docker"]) == set()
    assert ids(web_conn, skill=["docker"], skill_scope="all") == n(1)


def test_experience_is_range_overlap_with_unknown_selectable(rows, web_conn) -> None:
    assert ids(web_conn, experience_min=["2-4"]) == n(1)
    assert ids(web_conn, experience_min=["5"]) == n(1, 3)
    assert ids(web_conn, experience_min=["10+"]) == n(3)  # "5+ years" is open-ended
    assert ids(web_conn, experience_min=["0-1", "10+"]) == n(2, 3)
    assert ids(web_conn, experience_min=["unknown"]) == n(4, 5, 6)
    assert ids(web_conn, experience_min=["2-4", "unknown"]) == n(1, 4, 5, 6)


def test_seniority_and_work_mode_with_unknown_selectable(rows, web_conn) -> None:
    assert ids(web_conn, seniority=["senior"]) == n(1, 3)
    assert ids(web_conn, seniority=["unknown"]) == n(4, 5, 6)
    assert ids(web_conn, work_mode=["remote", "unknown"]) == n(1, 4, 5, 6)
    assert ids(web_conn, work_mode=["hybrid"], seniority=["senior"]) == n(3)


def test_the_new_filters_combine_with_the_existing_ones(rows, web_conn) -> None:
    source_of_1 = ROWS[0]["source"]
    both = ids(web_conn, skill=["python"], source=[source_of_1])
    assert both == {r["id"] for r in ROWS[:2] if r["source"] == source_of_1}


def counts_of(web_conn, groups, **raw) -> search.Counts:
    params = {k: v if isinstance(v, list) else [str(v)] for k, v in raw.items()}
    return search.counts(web_conn, search.parse_filters(params), groups, budget_ms=5000)


def test_single_valued_enrichment_facets_sum_to_their_denominator(rows, web_conn) -> None:
    found = counts_of(web_conn, ("seniority", "work_mode", "enrichment"))
    for group in ("seniority", "work_mode", "enrichment"):
        counted = found.groups[group]
        assert counted is not None
        assert sum(c for _, c in counted.buckets) + counted.other == counted.denominator == 6
    assert dict(found.groups["seniority"].buckets) == {"senior": 2, "junior": 1, "unknown": 3}
    assert dict(found.groups["enrichment"].buckets) == {"extracted": 4, "unknown": 2}


def test_the_skill_facet_counts_not_extracted_as_unknown_never_as_no_skills(rows, web_conn) -> None:
    skill = counts_of(web_conn, ("skill",)).groups["skill"]
    assert skill is not None
    assert skill.denominator == 6
    assert skill.unknown == len(NOT_EXTRACTED)  # posting 4 has no skills but was extracted
    assert dict(skill.buckets) == {"python": 2, "sql": 1, "java": 1, "unknown": 2}
    assert skill.coverage == round(4 / 6, 4)
    wider = counts_of(web_conn, ("skill",), skill_scope="all").groups["skill"]
    assert dict(wider.buckets) == {"python": 3, "sql": 2, "java": 1, "docker": 1, "unknown": 2}


def test_facets_are_disjunctive_for_the_new_groups(rows, web_conn) -> None:
    found = counts_of(web_conn, ("skill", "seniority", "experience"), seniority="senior")
    seniority = dict(found.groups["seniority"].buckets)  # its own filter lifted
    assert seniority == {"senior": 2, "junior": 1, "unknown": 3}
    assert dict(found.groups["skill"].buckets) == {"python": 1, "sql": 1, "java": 1, "unknown": 0}
    assert found.groups["skill"].denominator == 2


def test_the_experience_facet_counts_every_band_a_range_overlaps(rows, web_conn) -> None:
    experience = counts_of(web_conn, ("experience",)).groups["experience"]
    assert experience.buckets == (
        ("0-1", 1), ("2-4", 1), ("5-9", 2), ("10+", 1), ("unknown", 3),
    )  # fmt: skip
    assert experience.denominator == 6
    # A facet value is a filter value: selecting it gives its count.
    for band, count in experience.buckets:
        assert len(ids(web_conn, experience_min=[band])) == count


# ---------------------------------------------------------------- the API


@pytest.fixture
def web(rows, web_url: str) -> Iterator[RunningWeb]:
    running = start_web(web_url)
    try:
        yield running
    finally:
        running.stop()


def get(web: RunningWeb, path: str, **params: Any) -> httpx.Response:
    return httpx.get(web.url + path, params=params, timeout=10)


def test_api_jobs_filters_by_skill_and_lists_enrichment(web) -> None:
    body = get(web, "/api/jobs", skill=["python", "sql"], skill_match="all").json()
    assert [item["id"] for item in body["items"]] == [ID[1]]
    item = body["items"][0]
    assert (item["skills_required"], item["seniority"], item["enriched"]) == (
        ["python", "sql"], "senior", True,
    )  # fmt: skip
    unknown = get(web, "/api/jobs", seniority="unknown", work_mode="unknown").json()
    assert {i["id"] for i in unknown["items"]} == n(4, 5, 6)


def test_api_job_returns_every_extracted_value_with_its_evidence(web) -> None:
    body = get(web, f"/api/jobs/{ID[1]}").json()
    found = body["enrichment"]
    assert found["extracted"] is True
    assert found["seniority"] == {"value": "senior", "evidence": "Senior", "start": 0, "end": 6}
    assert found["experience_min"] == {"value": 3, "evidence": "3+ years", "start": 5, "end": 13}
    assert found["education"] is None  # not stated
    assert found["skills_required"] == [
        {"key": "python", "value": "python", "evidence": "Python", "start": 40, "end": 46},
        {"key": "sql", "value": "sql", "evidence": "Sql", "start": 41, "end": 44},
    ]
    assert "skills_required" not in body  # only under enrichment, as evidence objects


def test_api_job_without_a_result_says_not_extracted_not_no_requirements(web) -> None:
    found = get(web, f"/api/jobs/{ID[5]}").json()["enrichment"]
    assert found["extracted"] is False
    assert found["skills_required"] is None
    assert found["seniority"] is None


def test_api_stats_carry_top_skills_experience_and_seniority_with_coverage(web) -> None:
    body = get(web, "/api/stats").json()
    skills = {b["value"]: b["count"] for b in body["facets"]["skill"]}
    assert skills == {"python": 2, "sql": 1, "java": 1, "unknown": 2}
    assert body["denominators"]["skill"] == body["denominators"]["seniority"] == 6
    assert body["coverage"]["seniority"] == 0.5
    assert [b["value"] for b in body["facets"]["experience"]] == [
        "0-1", "2-4", "5-9", "10+", "unknown",
    ]  # fmt: skip
    assert body["enrichment"] == {
        "denominator": 6, "extracted": 4, "not_extracted": 2, "coverage": round(4 / 6, 4),
    }  # fmt: skip


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"skill": "not-a-skill"}, "skill"),
        ({"skill": [f"k{i}" for i in range(11)]}, "skill"),
        ({"skill": "python", "skill_match": "some"}, "skill_match"),
        ({"skill": "python", "skill_scope": "preferred"}, "skill_scope"),
        ({"experience_min": "lots"}, "experience_min"),
        ({"experience_min": "9-2"}, "experience_min"),
        ({"experience_min": "41+"}, "experience_min"),
        ({"seniority": "boss"}, "seniority"),
        ({"work_mode": "space"}, "work_mode"),
    ],
)
def test_bad_enrichment_filter_values_are_422_naming_the_parameter(web, params, name) -> None:
    for path in ("/api/jobs", "/api/stats"):
        response = get(web, path, **params)
        assert response.status_code == 422
        assert response.json()["detail"][0]["loc"][-1] == name


def test_the_job_page_shows_each_value_with_its_excerpt(web) -> None:
    page = get(web, f"/jobs/{ID[1]}").text
    assert "Requirements" in page
    assert '<q class="excerpt" data-start="0" data-end="6">Senior</q>' in page
    assert 'data-key="python"' in page
    assert "have not been extracted" in get(web, f"/jobs/{ID[5]}").text


def test_the_search_page_offers_the_new_facets_and_the_stats_page_the_new_charts(web) -> None:
    page = get(web, "/", skill="python").text
    assert 'name="skill" value="python"' in page
    assert "checked" in page
    assert 'name="experience_min" value="2-4"' in page
    assert 'id="skill_match"' in page
    stats = get(web, "/stats").text
    assert 'id="chart-skill"' in stats
    assert 'id="chart-seniority"' in stats
    assert "Requirements extracted for 4 of 6 jobs" in stats
