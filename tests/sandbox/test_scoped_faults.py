"""Sandbox faults scoped to a board's listings or its postings' pages, and listings
that leave live jobs out (what the lifecycle property test and the chaos run use)."""

from __future__ import annotations

import json

import httpx
import pytest

from sandbox.faults import Fault

TOKEN = "northwind"


def _fault(sandbox, spec) -> None:
    httpx.post(
        f"{sandbox.url}/_sandbox/fault",
        params={"platform": "greenhouse", "token": TOKEN},
        content=json.dumps(spec) if spec else b"",
    ).raise_for_status()


def _listing(sandbox) -> httpx.Response:
    return httpx.get(f"{sandbox.url}/greenhouse/v1/boards/{TOKEN}/jobs")


def _page(sandbox, job_id: int) -> httpx.Response:
    return httpx.get(f"{sandbox.url}/greenhouse/boards/{TOKEN}/jobs/{job_id}")


def test_an_omitting_listing_leaves_jobs_out_with_a_matching_total_and_their_pages_live(
    sandbox,
) -> None:
    jobs = sandbox.state.board("greenhouse", TOKEN).jobs
    full = _listing(sandbox).json()
    _fault(sandbox, {"omit": [jobs[0].job_id], "on": "listing"})
    partial = _listing(sandbox).json()
    assert {j["id"] for j in full["jobs"]} - {j["id"] for j in partial["jobs"]} == {jobs[0].job_id}
    assert partial["meta"]["total"] == len(partial["jobs"]) == len(jobs) - 1
    assert _page(sandbox, jobs[0].job_id).status_code == 200


def test_a_fault_on_postings_spares_the_listing_and_one_on_the_listing_spares_the_pages(
    sandbox,
) -> None:
    job = sandbox.state.board("greenhouse", TOKEN).jobs[0]
    _fault(sandbox, {"status": 500, "on": "postings"})
    assert (_listing(sandbox).status_code, _page(sandbox, job.job_id).status_code) == (200, 500)
    _fault(sandbox, {"status": 500, "on": "listing"})
    assert (_listing(sandbox).status_code, _page(sandbox, job.job_id).status_code) == (500, 200)
    _fault(sandbox, {"status": 500})
    assert (_listing(sandbox).status_code, _page(sandbox, job.job_id).status_code) == (500, 500)


def test_a_fault_scope_must_be_known() -> None:
    with pytest.raises(ValueError, match="on must be one of"):
        Fault.from_dict({"status": 500, "on": "everything"})
