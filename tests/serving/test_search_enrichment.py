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

from pipeline.enrich.evidence import locate
from pipeline.enrich.text import flat, posting_text
from serving_sync import search
from serving_sync.evidence import holds
from tests.serving.conftest import NOW, RunningWeb, insert_jobs, job_row, start_web


def description_of(i: int, required, preferred, lo, hi, seniority, work_mode) -> str:
    """A description stating what the values say, in the words their excerpts quote."""
    said = [f"Job number {i}."]
    if seniority:
        said.append(f"A {seniority.capitalize()} role.")
    if lo is not None:
        said.append(f"You need {lo}+ years of experience.")
    if hi is not None:
        said.append(f"Ideally {lo}-{hi} years.")
    if work_mode:
        said.append(f"This job is {work_mode}.")
    if required or preferred:
        said.append(
            "You will work with " + ", ".join(k.capitalize() for k in (*required, *preferred)) + "."
        )
    return " ".join(said)


def enriched(i: int, required=(), preferred=(), lo=None, hi=None, seniority=None, work_mode=None):
    base = job_row(i)
    description = description_of(i, required, preferred, lo, hi, seniority, work_mode)
    text = flat(posting_text(base["title"], base["location_text"], description))

    def ev(value: Any, evidence: str) -> dict[str, Any]:
        """A value as enrichment stores it: offsets into its own joined, normalised text."""
        span = locate(text, evidence)
        assert span is not None, evidence
        return {"value": value, "evidence": evidence, "start": span[0], "end": span[1]}

    fields = {"experience_min": ev(lo, f"{lo}+ years") if lo is not None else None}
    if hi is not None:
        fields["experience_max"] = ev(hi, f"{lo}-{hi} years")
    if seniority:
        fields["seniority"] = ev(seniority, seniority.capitalize())
    if work_mode:
        fields["work_mode"] = ev(work_mode, work_mode)
    skills = {
        name: [{"key": k, **ev(k, k.capitalize())} for k in keys]
        for name, keys in (("skills_required", required), ("skills_preferred", preferred))
    }
    return job_row(
        i,
        description=description,
        experience_min=lo,
        experience_max=hi,
        seniority=seniority,
        work_mode=work_mode or "unknown",
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
    job_row(5, work_mode="unknown"),  # not extracted
    job_row(6, work_mode="unknown"),  # not extracted
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


def test_api_job_returns_every_extracted_value_cut_from_the_field_it_names(web) -> None:
    body = get(web, f"/api/jobs/{ID[1]}").json()
    found = body["enrichment"]
    assert found["extracted"] is True
    description = body["description"]
    years = description.index("3+ years")
    assert found["experience_min"] == {
        "value": 3, "field": "description", "start": years, "end": years + 8,
        "evidence": "3+ years", "context": "You need 3+ years of experience.",
    }  # fmt: skip
    # "Senior" is the title's first word: the excerpt's first place in what enrichment read
    assert found["seniority"] == {
        "value": "senior", "field": "title", "start": 0, "end": 6, "evidence": "Senior",
        "context": "Senior Software Engineer",
    }  # fmt: skip
    assert found["education"] is None  # not stated
    assert [(s["key"], s["evidence"], s["field"]) for s in found["skills_required"]] == [
        ("python", "Python", "description"), ("sql", "Sql", "description"),
    ]  # fmt: skip
    for value in (found["experience_min"], found["experience_max"], *found["skills_required"]):
        assert holds(body, value)
        assert value["evidence"] in value["context"]
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


def test_a_year_range_given_high_first_reads_as_the_same_range(web) -> None:
    reversed_range = get(web, "/api/jobs", experience_min="9-2", limit=50).json()["items"]
    ordered = get(web, "/api/jobs", experience_min="2-9", limit=50).json()["items"]
    assert [j["id"] for j in reversed_range] == [j["id"] for j in ordered] != []


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"skill": "not-a-skill"}, "skill"),
        ({"skill": [f"k{i}" for i in range(11)]}, "skill"),
        ({"skill": "python", "skill_match": "some"}, "skill_match"),
        ({"skill": "python", "skill_scope": "preferred"}, "skill_scope"),
        ({"experience_min": "lots"}, "experience_min"),
        ({"experience_min": "3-41"}, "experience_min"),
        ({"experience_min": " 5"}, "experience_min"),  # values are exact, not trimmed
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


def test_the_job_page_shows_each_value_in_its_sentence_and_marks_it_in_the_description(
    web,
) -> None:
    page = get(web, f"/jobs/{ID[1]}").text
    assert "Requirements" in page
    assert (
        '<q class="excerpt" data-field="title" data-start="0" data-end="6">'
        "<mark>Senior</mark> Software Engineer</q>"
    ) in page
    description = page[page.index('<div class="description">') :]
    evidence = '<mark class="evidence">'
    assert f"You need {evidence}3+ years</mark> of experience." in description
    assert (
        f"work with {evidence}Python</mark>, {evidence}Sql</mark>, {evidence}Docker</mark>."
        in description
    )
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
