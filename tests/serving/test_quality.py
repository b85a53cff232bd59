"""The quality report: what a visitor would find in the published postings, counted
right from rows (pure) and read from the real serving schema (`jobharbor quality`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from typing import Any

import psycopg

from serving_sync.quality import (
    duplicated_places,
    evidence_checks,
    measure,
    one_line,
    read_quality,
    salary_anomaly,
)
from tests.serving.conftest import insert_jobs, job_row

JSON_KEYS = (
    "company_known_share", "employment_type_values", "unmapped_values", "place_duplicates",
    "evidence_offsets_valid_share", "undated_share",
)  # fmt: skip


def row(**values: Any) -> dict[str, Any]:
    base = {"id": 1, "source": "lever", "company": "Acme", "countries": ["DE"], "work_mode": "unknown",
            "employment_type": ["full_time"], "posted_at": None, "description": "x" * 10}  # fmt: skip
    return {**base, **values}


def test_one_place_under_two_spellings_counts_as_a_duplicate() -> None:
    assert duplicated_places(["Hanoi", "Ho Chi Minh City", "Ha Noi", "Hà Nội"]) == 2
    assert duplicated_places(["Paris", "Lyon"]) == 0
    assert duplicated_places([]) == 0


def test_salaries_nobody_would_believe_are_named() -> None:
    yearly = {"salary_currency": "USD", "salary_period": "year"}
    assert salary_anomaly({"salary_min": 90, "salary_max": 80, **yearly}) == "salary_min_above_max"
    assert salary_anomaly({"salary_min": 0, "salary_max": 10, **yearly}) == "salary_not_positive"
    assert salary_anomaly({"salary_min": 5e6, "salary_max": None, **yearly}) == (
        "salary_beyond_any_posting"
    )
    intern = {"salary_min": 112_000, "salary_max": 136_000, "job_type": "intern", **yearly}
    assert salary_anomaly(intern) == "intern_salary_of_a_senior"
    hourly = {"salary_min": 40, "salary_max": 60, "salary_currency": "USD", "salary_period": "hour"}
    assert salary_anomaly(hourly) is None  # 124,800 a year: believable
    vnd = {"salary_min": 20_000_000, "salary_max": 30_000_000, "salary_currency": "VND"}
    assert salary_anomaly({**vnd, "salary_period": "month"}) is None
    assert salary_anomaly({"salary_min": None, "salary_max": None}) is None


def test_evidence_counts_what_a_reader_can_check_at_the_served_offsets() -> None:
    job = row(title="Engineer", location_text=None, description="We need 5+ years of SQL.")
    good = {"value": 5, "evidence": "5+ years", "start": 17, "end": 25}
    gone = {"value": "airflow", "evidence": "Airflow", "start": 0, "end": 7}
    job["enrichment"] = {"experience_min": good, "skills_required": [gone], "education": None}
    assert evidence_checks(job) == (2, 1)
    assert evidence_checks(row(enrichment=None)) == (0, 0)


def test_the_report_counts_each_field_known_per_source_and_overall() -> None:
    rows = [
        row(id=1, company=None, posted_at="2026-01-01", employment_type=["Full-time"]),
        row(id=2, source="ashby", work_mode="remote", employment_type=["full_time"], cities=["Hanoi", "Ha Noi"]),
        row(id=3, source="ashby", employment_type=[], salary_min=Decimal(1), salary_max=Decimal(2)),
        row(id=4, employment_type=["other"], employment_type_raw="Zeitarbeit"),
    ]  # fmt: skip
    report = measure(rows)
    assert report["published"] == 4
    assert report["company_known_share"] == 0.75
    assert report["employment_type_values"] == 3  # Full-time, full_time, other
    assert report["unmapped_values"] == {
        "employment_type: Full-time": 1, "employment_type: Zeitarbeit": 1,
    }  # fmt: skip
    assert report["place_duplicates"] == 1
    assert report["undated_share"] == 0.75
    assert report["sources"]["ashby"]["work_mode_known_share"] == 0.5
    assert report["sources"]["ashby"]["salary_known_share"] == 0.5
    assert report["sources"]["lever"]["company_known_share"] == 0.5
    assert report["overall"]["description_length"] == {"p10": 10, "p50": 10, "p90": 10}
    assert report["evidence_offsets_valid_share"] is None  # nothing extracted: not 100%
    assert "quality: 4 published; known: company 75%" in one_line(report)


def test_an_empty_serving_schema_reports_nothing_known_not_everything() -> None:
    report = measure([])
    assert report["published"] == 0
    assert report["company_known_share"] is None
    assert report["undated_share"] is None
    assert "company -" in one_line(report)


def test_the_report_reads_the_published_postings_and_the_command_prints_it(serving) -> None:
    rows = [job_row(i) for i in range(1, 16)]
    with psycopg.connect(serving.url) as conn:
        insert_jobs(conn, rows)
    with serving.connect() as conn:
        report = read_quality(conn)
    assert report["published"] == 15
    expected = sum(1 for r in rows if r["company"]) / 15
    assert report["company_known_share"] == round(expected, 4)
    assert report["undated_share"] == round(sum(1 for r in rows if not r["posted_at"]) / 15, 4)
    out = subprocess.run(
        [sys.executable, "-m", "pipeline", "quality", "--json"],
        env={
            **os.environ,
            "JOBHARBOR_DATABASE_URL": serving.url,
            "JOBHARBOR_SERVING_DATABASE_URL": serving.url,
        },
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    printed = json.loads(out)
    assert all(key in printed for key in JSON_KEYS)
    assert printed["published"] == 15
