"""Any search as an Atom feed (/feed with the search page's parameters): it parses as
Atom, lists the newest matches with links to their job pages, honours the filters, and
refuses a bad parameter as the page does."""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

import httpx

A = "{http://www.w3.org/2005/Atom}"


def feed(web, params: dict) -> ET.Element:
    response = httpx.get(web.url + "/feed", params=params, timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/atom+xml")
    root = ET.fromstring(response.content)
    assert root.tag == f"{A}feed"
    return root


def test_a_search_feed_parses_as_atom_with_an_entry_per_newest_match(web, seeded) -> None:
    root = feed(web, {"country": "VN"})
    for name in ("id", "title", "updated"):
        assert root.find(f"{A}{name}") is not None, name
    assert root.find(f"{A}link[@rel='self']").get("href").endswith("/feed?country=VN")
    assert root.find(f"{A}link[@rel='alternate']").get("href").endswith("/?country=VN")
    entries = root.findall(f"{A}entry")
    in_vietnam = {r["id"] for r in seeded if "VN" in r["countries"]}
    assert len(entries) == min(len(in_vietnam), 50)
    ids = set()
    for entry in entries:
        link = entry.find(f"{A}link").get("href")
        found = re.search(r"/jobs/(\d+)$", link)
        assert found, link
        ids.add(int(found.group(1)))
        assert entry.find(f"{A}id").text == link
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry.find(f"{A}updated").text)
    assert ids <= in_vietnam
    stamps = [e.find(f"{A}updated").text for e in entries]
    assert root.find(f"{A}updated").text == max(stamps)


def test_the_feed_takes_the_search_words_and_a_limit(web, seeded) -> None:
    root = feed(web, {"q": "engineer", "limit": "3"})
    entries = root.findall(f"{A}entry")
    assert len(entries) == 3
    assert all("engineer" in e.find(f"{A}title").text.lower() for e in entries)


def test_the_search_page_links_its_feed(web, seeded) -> None:
    page = httpx.get(web.url + "/?q=engineer&country=VN", timeout=10).text
    assert 'type="application/atom+xml"' in page
    assert 'href="/feed?q=engineer&amp;country=VN"' in page


def test_a_bad_parameter_is_refused_by_the_feed_too(web) -> None:
    response = httpx.get(web.url + "/feed", params={"remote": "maybe"}, timeout=10)
    assert response.status_code == 422
    assert "remote" in response.text
