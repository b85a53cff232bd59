"""The sitemap a crawler reads: the search page and every open job page (not a closed
or missing one) with when each was last written; past the URLs one file may list, a
sitemap index of parts that together list each open job exactly once."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import httpx
import psycopg

from tests.serving.conftest import insert_jobs, job_row, start_web

S = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def xml(url: str) -> ET.Element:
    response = httpx.get(url, timeout=10)
    assert response.status_code == 200, url
    assert response.headers["content-type"].startswith("application/xml")
    return ET.fromstring(response.content)


def job_ids(urlset: ET.Element) -> list[int]:
    locs = [u.find(f"{S}loc").text for u in urlset.findall(f"{S}url")]
    return [int(loc.rsplit("/", 1)[1]) for loc in locs if "/jobs/" in loc]


def test_the_sitemap_lists_the_search_page_and_every_open_job(web, seeded) -> None:
    root = xml(web.url + "/sitemap.xml")
    assert root.tag == f"{S}urlset"
    locs = [u.find(f"{S}loc").text for u in root.findall(f"{S}url")]
    assert locs[0] == web.url + "/"
    open_ids = sorted(r["id"] for r in seeded if r["status"] == "active")
    assert job_ids(root) == open_ids
    for url in root.findall(f"{S}url")[1:]:
        assert len(url.find(f"{S}lastmod").text) == len("2026-12-04")


def test_past_one_file_the_sitemap_is_an_index_of_parts_listing_each_job_once(
    web_url, seeded
) -> None:
    running = start_web(web_url, web_sitemap_urls=7)
    try:
        index = xml(running.url + "/sitemap.xml")
        assert index.tag == f"{S}sitemapindex"
        parts = [s.find(f"{S}loc").text for s in index.findall(f"{S}sitemap")]
        open_ids = sorted(r["id"] for r in seeded if r["status"] == "active")
        assert len(parts) == -(-len(open_ids) // 7)
        listed = []
        for part in parts:
            urlset = xml(part)
            assert len(urlset.findall(f"{S}url")) <= 7
            listed += job_ids(urlset)
        assert listed == open_ids
        beyond = httpx.get(running.url + f"/sitemap-{len(parts) + 1}.xml", timeout=10)
        assert beyond.status_code == 404
    finally:
        running.stop()


def test_robots_txt_names_the_sitemap(web) -> None:
    lines = httpx.get(web.url + "/robots.txt", timeout=10).text.splitlines()
    assert f"Sitemap: {web.url}/sitemap.xml" in lines


def test_a_posting_not_seen_at_the_last_check_is_left_out(web, seeded, serving) -> None:
    with psycopg.connect(serving.url) as owner:
        insert_jobs(owner, [job_row(61, id=5001, status="missing")])
    listed = job_ids(xml(web.url + "/sitemap.xml"))
    assert 5001 not in listed
    assert len(listed) == len(seeded)
    page = httpx.get(web.url + "/jobs/5001", timeout=10)
    assert page.status_code == 200  # still shown, but not offered to search engines as open
    assert "application/ld+json" not in page.text
