"""The sandbox job web: real formats, deterministic data, validators, change on demand."""

from __future__ import annotations

import json

import httpx
import pytest

from sandbox.server import start_sandbox


def test_greenhouse_listing_is_deterministic_and_in_the_real_shape(sandbox) -> None:
    url = f"{sandbox.url}/greenhouse/v1/boards/northwind/jobs?content=true"
    first, second = httpx.get(url), httpx.get(url)
    assert first.content == second.content
    data = first.json()
    assert data["meta"]["total"] == len(data["jobs"]) > 0
    job = data["jobs"][0]
    assert {
        "id",
        "title",
        "absolute_url",
        "location",
        "updated_at",
        "content",
        "departments",
        "offices",
    } <= set(job)
    assert job["content"].startswith(
        "&lt;p&gt;"
    )  # HTML, entity-escaped once more, like the real API
    without_content = httpx.get(f"{sandbox.url}/greenhouse/v1/boards/northwind/jobs").json()
    assert "content" not in without_content["jobs"][0]


@pytest.mark.sandbox  # two sandboxes of its own
def test_same_seed_same_bytes_across_servers() -> None:
    a, b = start_sandbox(seed=11), start_sandbox(seed=11)
    try:
        path = "/greenhouse/v1/boards/acme/jobs?content=true"
        body_a = httpx.get(a.url + path).json()
        body_b = httpx.get(b.url + path).json()
        # Absolute URLs name each server's own port; everything else is identical.
        assert json.dumps(body_a).replace(a.url, "X") == json.dumps(body_b).replace(b.url, "X")
    finally:
        a.stop()
        b.stop()


def test_conditional_requests_answer_304(sandbox) -> None:
    url = f"{sandbox.url}/greenhouse/v1/boards/northwind/jobs?content=true"
    first = httpx.get(url)
    assert httpx.get(url, headers={"If-None-Match": first.headers["etag"]}).status_code == 304
    assert (
        httpx.get(url, headers={"If-Modified-Since": first.headers["last-modified"]}).status_code
        == 304
    )
    assert httpx.get(url, headers={"If-None-Match": '"other"'}).status_code == 200


def test_advance_removes_changes_and_adds_one_posting(sandbox) -> None:
    url = f"{sandbox.url}/greenhouse/v1/boards/northwind/jobs?content=true"
    before = {j["id"]: j for j in httpx.get(url).json()["jobs"]}
    etag = httpx.get(url).headers["etag"]
    httpx.post(
        f"{sandbox.url}/_sandbox/advance", params={"platform": "greenhouse", "token": "northwind"}
    )
    after = {j["id"]: j for j in httpx.get(url).json()["jobs"]}
    assert len(set(before) - set(after)) == 1
    assert len(set(after) - set(before)) == 1
    changed = [i for i in set(before) & set(after) if before[i] != after[i]]
    assert len(changed) == 1
    assert httpx.get(url, headers={"If-None-Match": etag}).status_code == 200


def test_remove_takes_postings_down_for_real_until_reset(sandbox) -> None:
    base = f"{sandbox.url}/greenhouse/v1/boards/northwind/jobs"
    ids = [j["id"] for j in httpx.get(base).json()["jobs"]]
    etag = httpx.get(base).headers["etag"]
    admin = f"{sandbox.url}/_sandbox/remove"
    one = httpx.post(admin, params={"platform": "greenhouse", "token": "northwind", "id": ids[0]})
    assert one.json()["removed"] == ids[0]
    listed = [j["id"] for j in httpx.get(base).json()["jobs"]]
    assert listed == ids[1:]
    assert httpx.get(f"{base}/{ids[0]}").status_code == 404  # its own record: gone
    assert httpx.get(f"{base}/{ids[1]}").status_code == 200
    # The listing changed: a conditional request for the old one is answered in full.
    assert httpx.get(base, headers={"If-None-Match": etag}).status_code == 200

    httpx.post(admin, params={"platform": "greenhouse", "token": "northwind"})  # all of them
    assert httpx.get(base).json()["jobs"] == []
    assert {httpx.get(f"{base}/{i}").status_code for i in ids} == {404}

    for bad in ({"platform": "greenhouse"}, {"platform": "greenhouse", "token": "x", "id": "a"}):
        refused = httpx.post(admin, params=bad)
        assert refused.status_code == 400, bad
    httpx.post(f"{sandbox.url}/_sandbox/reset").raise_for_status()
    assert [j["id"] for j in httpx.get(base).json()["jobs"]] == ids


def test_html_site_paginates_and_embeds_jsonld(sandbox) -> None:
    page1 = httpx.get(f"{sandbox.url}/sites/vieclam/it/jobs?page=1")
    assert page1.status_code == 200
    assert "class='next'" in page1.text
    assert "việc làm" in page1.text
    last = 1
    while "class='next'" in httpx.get(f"{sandbox.url}/sites/vieclam/it/jobs?page={last}").text:
        last += 1
    assert httpx.get(f"{sandbox.url}/sites/vieclam/it/jobs?page={last + 1}").status_code == 404
    detail_url = page1.text.split("class='job-title' href='")[1].split("'")[0]
    detail = httpx.get(detail_url)
    assert detail.status_code == 200
    assert "application/ld+json" in detail.text


def test_gone_boards_and_faults(sandbox) -> None:
    assert httpx.get(f"{sandbox.url}/greenhouse/v1/boards/gone-acme/jobs").status_code == 404
    httpx.post(
        f"{sandbox.url}/_sandbox/fault",
        params={"platform": "greenhouse", "token": "acme"},
        content=json.dumps({"status": 503, "body": "busy"}),
    )
    assert httpx.get(f"{sandbox.url}/greenhouse/v1/boards/acme/jobs").status_code == 503
    bad = httpx.post(
        f"{sandbox.url}/_sandbox/fault",
        params={"platform": "greenhouse", "token": "acme"},
        content=json.dumps({"colour": "red"}),
    )
    assert bad.status_code == 400
    assert "unknown fault settings: colour" in bad.text
    httpx.post(f"{sandbox.url}/_sandbox/reset")
    assert httpx.get(f"{sandbox.url}/greenhouse/v1/boards/acme/jobs").status_code == 200
