"""The sandbox's fault switches answer the way the engine tests rely on, faults scoped to a
board's listings or its postings' pages, and listings that leave live jobs out (what the
lifecycle property test and the chaos run use)."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from sandbox.faults import Fault
from tests.apps import set_fault, set_robots

LISTING = "/greenhouse/v1/boards/{}/jobs?content=true"


@pytest.fixture
def client(sandbox):
    with httpx.Client(base_url=sandbox.url, timeout=10) as c:
        yield c


def test_a_fault_can_wear_off_after_n_requests(client, sandbox) -> None:
    set_fault(sandbox, "greenhouse", "t", status=429, retry_after="5", times=2)
    answers = [client.get(LISTING.format("t")) for _ in range(3)]
    assert [a.status_code for a in answers] == [429, 429, 200]
    assert answers[0].headers["retry-after"] == "5"


def test_validators_can_be_switched_off_or_narrowed(client, sandbox) -> None:
    plain = client.get(LISTING.format("v"))
    assert plain.headers["etag"]
    assert (
        client.get(
            LISTING.format("v"), headers={"If-None-Match": plain.headers["etag"]}
        ).status_code
        == 304
    )
    set_fault(sandbox, "greenhouse", "v", validators="none")
    bare = client.get(LISTING.format("v"), headers={"If-None-Match": plain.headers["etag"]})
    assert bare.status_code == 200
    assert "etag" not in bare.headers
    assert "last-modified" not in bare.headers


def test_slow_redirecting_shuffled_and_restamped_boards(client, sandbox) -> None:
    set_fault(sandbox, "greenhouse", "slow", delay_s=0.5)
    started = time.monotonic()
    assert client.get(LISTING.format("slow")).status_code == 200
    assert time.monotonic() - started >= 0.5

    set_fault(sandbox, "greenhouse", "r", redirect="http://10.0.0.1/internal")
    moved = client.get(LISTING.format("r"))
    assert (moved.status_code, moved.headers["location"]) == (302, "http://10.0.0.1/internal")

    plain = client.get(LISTING.format("s")).json()
    set_fault(sandbox, "greenhouse", "s", shuffle=True, restamp=True)
    variants = [client.get(LISTING.format("s")).json() for _ in range(3)]
    ids = sorted(j["id"] for j in plain["jobs"])
    assert all(sorted(j["id"] for j in v["jobs"]) == ids for v in variants)
    assert len({v["request_id"] for v in variants}) == 3
    assert all(v["jobs"][0]["posted_ago"].startswith("Posted ") for v in variants)


def test_the_request_log_and_robots_switch(client, sandbox) -> None:
    set_robots(sandbox, "User-agent: *\nDisallow: /x/\n", status=503)
    assert client.get("/robots.txt").status_code == 503
    client.get(LISTING.format("logged"), headers={"User-Agent": "probe/1"})
    entries = json.loads(client.get("/_sandbox/log").content)["requests"]
    assert [(e["path"], e["status"]) for e in entries] == [
        ("/robots.txt", 503),
        (LISTING.format("logged"), 200),
    ]
    assert entries[1]["headers"]["user-agent"] == "probe/1"
    assert entries[1]["token"] == "logged"


def test_many_boards_change_at_once(client, sandbox) -> None:
    before = client.get(LISTING.format("m1")).json()
    client.post("/_sandbox/advance-many", json={"platform": "greenhouse", "tokens": ["m1", "m2"]})
    assert sandbox.state.revision("greenhouse", "m1") == 1
    assert sandbox.state.revision("greenhouse", "m2") == 1
    assert client.get(LISTING.format("m1")).json() != before
    assert (
        client.post(
            "/_sandbox/fault", params={"platform": "g", "token": "t"}, json={"colour": 1}
        ).status_code
        == 400
    )


def test_wire_faults_reset_or_truncate_the_real_answer_and_the_log_keeps_the_asked_wait(
    client, sandbox
) -> None:
    whole = len(client.get(LISTING.format("w")).content)
    set_fault(sandbox, "greenhouse", "w", wire="reset")
    with pytest.raises(httpx.ReadError, match="reset"):
        client.get(LISTING.format("w"))
    set_fault(sandbox, "greenhouse", "w", wire="truncate")
    with pytest.raises(httpx.RemoteProtocolError, match=f"expected {whole}"):
        client.get(LISTING.format("w"))
    set_fault(sandbox, "greenhouse", "w", status=429, retry_after_date_s=3)
    dated = client.get(LISTING.format("w"))
    assert dated.status_code == 429
    assert dated.headers["retry-after"].endswith(" GMT")  # an HTTP date, not seconds
    entry = sandbox.state.requests()[-1]
    # A date has whole seconds: 3 s ahead asks for 2 to 3 s.
    assert 2.0 <= entry.cooldown_until - entry.at <= 3.0
    with pytest.raises(ValueError, match="wire must be one of"):
        Fault.from_dict({"wire": "melt"})


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
