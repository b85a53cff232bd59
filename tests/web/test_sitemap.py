"""The sitemap a crawler reads: the search page, every published company's page and
every open job page (not a closed or missing one) with when each was last written and
its address in each language; past the URLs one file may list, a sitemap index of parts
that together list each exactly once."""

from __future__ import annotations

from xml.etree import ElementTree as ET

import httpx
import psycopg

from serving_sync.companies import slug
from tests.serving.conftest import insert_jobs, job_row, start_web

S = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
X = "{http://www.w3.org/1999/xhtml}"


def xml(url: str) -> ET.Element:
    response = httpx.get(url, timeout=10)
    assert response.status_code == 200, url
    assert response.headers["content-type"].startswith("application/xml")
    return ET.fromstring(response.content)


def locs(urlset: ET.Element) -> list[str]:
    return [u.find(f"{S}loc").text for u in urlset.findall(f"{S}url")]


def job_ids(urlset: ET.Element) -> list[int]:
    return [int(loc.rsplit("/", 1)[1]) for loc in locs(urlset) if "/jobs/" in loc]


def company_slugs(urlset: ET.Element) -> list[str]:
    return [loc.rsplit("/", 1)[1] for loc in locs(urlset) if "/companies/" in loc]


def published_slugs(seeded) -> list[str]:
    return sorted({slug(r["company"]) for r in seeded if r["company"]})


def test_the_sitemap_lists_the_search_page_every_company_and_every_open_job(web, seeded) -> None:
    root = xml(web.url + "/sitemap.xml")
    assert root.tag == f"{S}urlset"
    assert locs(root)[0] == web.url + "/"
    open_ids = sorted(r["id"] for r in seeded if r["status"] == "active")
    assert job_ids(root) == open_ids
    assert sorted(company_slugs(root)) == published_slugs(seeded)
    assert len(locs(root)) == 1 + len(published_slugs(seeded)) + len(open_ids)
    for url in root.findall(f"{S}url"):
        if "/jobs/" in url.find(f"{S}loc").text:
            assert len(url.find(f"{S}lastmod").text) == len("2026-12-04")
    for company in company_slugs(root)[:2]:  # each listed company page is a page
        assert httpx.get(f"{web.url}/companies/{company}", timeout=10).status_code == 200


def test_each_sitemap_address_names_its_language_alternates(web, seeded) -> None:
    root = xml(web.url + "/sitemap.xml")
    for url in root.findall(f"{S}url"):
        loc = url.find(f"{S}loc").text
        links = {
            link.get("hreflang"): link.get("href")
            for link in url.findall(f"{X}link")
            if link.get("rel") == "alternate"
        }
        query = "&lang=vi" if "?" in loc else "?lang=vi"
        assert links == {"en": loc, "vi": loc + query, "x-default": loc}, loc


def test_past_one_file_the_sitemap_is_an_index_of_parts_listing_each_job_once(
    web_url, seeded
) -> None:
    running = start_web(web_url, web_sitemap_urls=7)
    try:
        index = xml(running.url + "/sitemap.xml")
        assert index.tag == f"{S}sitemapindex"
        parts = [s.find(f"{S}loc").text for s in index.findall(f"{S}sitemap")]
        open_ids = sorted(r["id"] for r in seeded if r["status"] == "active")
        job_parts = [p for p in parts if "/sitemap-companies-" not in p]
        assert len(job_parts) == -(-len(open_ids) // 7)
        assert len(parts) - len(job_parts) == -(-len(published_slugs(seeded)) // 7)
        listed, named = [], []
        for part in parts:
            urlset = xml(part)
            assert len(urlset.findall(f"{S}url")) <= 7
            listed += job_ids(urlset)
            named += company_slugs(urlset)
        assert listed == open_ids
        assert sorted(named) == published_slugs(seeded)
        for beyond in (f"sitemap-{len(job_parts) + 1}", f"sitemap-companies-{len(parts)}"):
            assert httpx.get(f"{running.url}/{beyond}.xml", timeout=10).status_code == 404
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
