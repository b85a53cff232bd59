"""What search engines and link previews read: a schema.org JobPosting (JSON-LD) on every
open job page with Google for Jobs' required properties and the recommended ones the
posting states, none on a closed job's 410 page; a description meta tag and OpenGraph
on each page; JSON-LD that no posting's text can break out of."""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime
from decimal import Decimal

import httpx

from web import structured

LD = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.S)
EMPLOYMENT = set(structured.EMPLOYMENT_TYPES.values())


def postings_on(page: str) -> list[dict]:
    return [json.loads(block) for block in LD.findall(page)]


def check_job_posting(posting: dict, row: dict, url: str) -> None:
    """Google's required properties (title, description, datePosted, hiringOrganization
    when the company is known, jobLocation or a remote posting's location type) with the
    right types, and the recommended ones where the posting states them."""
    assert posting["@context"] == "https://schema.org/"
    assert posting["@type"] == "JobPosting"
    assert posting["title"] == row["title"]
    assert isinstance(posting["description"], str)
    assert posting["description"].startswith("<p>")
    posted = row["posted_at"] or row["first_seen_at"]
    assert posting["datePosted"] == posted.date().isoformat()
    assert posting["hiringOrganization"] == {"@type": "Organization", "name": row["company"]}
    assert posting["identifier"] == {
        "@type": "PropertyValue",
        "name": row["source"],
        "value": row["external_id"],
    }
    assert posting["url"] == url
    assert posting["directApply"] is False
    if row["work_mode"] == "remote":
        assert posting["jobLocationType"] == "TELECOMMUTE"
        names = {c["name"] for c in posting.get("applicantLocationRequirements", [])}
        assert len(names) == len(row["countries"])
    elif row["countries"] or row["cities"]:
        places = posting["jobLocation"]
        places = places if isinstance(places, list) else [places]
        for place in places:
            assert place["@type"] == "Place"
            assert place["address"]["@type"] == "PostalAddress"
        localities = {p["address"].get("addressLocality") for p in places} - {None}
        assert localities == set(row["cities"])
    kinds = posting.get("employmentType", [])
    assert set(kinds if isinstance(kinds, list) else [kinds]) <= EMPLOYMENT
    if row["salary_min"] is not None:
        salary = posting["baseSalary"]
        assert salary["@type"] == "MonetaryAmount"
        assert salary["currency"] == row["salary_currency"]
        assert salary["value"]["unitText"] == "YEAR"
        assert salary["value"]["minValue"] == row["salary_min"]
        assert salary["value"]["maxValue"] == row["salary_max"]
    else:
        assert "baseSalary" not in posting


def test_every_open_job_page_carries_a_valid_job_posting(web, seeded) -> None:
    checked = 0
    with httpx.Client(base_url=web.url, timeout=10) as client:
        for row in seeded:
            response = client.get(f"/jobs/{row['id']}")
            assert response.status_code == 200
            found = postings_on(response.text)
            if not row["company"]:  # Google requires the employer: no item without it
                assert found == []
                continue
            (posting,) = found
            check_job_posting(posting, row, f"{web.url}/jobs/{row['id']}")
            checked += 1
    assert checked >= len(seeded) // 2


def test_a_closed_job_keeps_its_410_and_offers_no_job_posting(web, seeded) -> None:
    response = httpx.get(web.url + "/jobs/999", timeout=10)
    assert response.status_code == 410
    assert postings_on(response.text) == []


def test_each_job_page_has_a_description_and_an_opengraph_preview(web, seeded) -> None:
    row = seeded[4]
    page = httpx.get(f"{web.url}/jobs/{row['id']}", timeout=10).text
    description = re.search(r'<meta name="description" content="([^"]*)">', page)
    assert description is not None
    assert row["company"] in html.unescape(description.group(1))
    assert len(html.unescape(description.group(1))) <= structured.DESCRIPTION_META_CHARS
    title = re.search(r'<meta property="og:title" content="([^"]*)">', page)
    assert html.unescape(title.group(1)) == f"{row['title']} · {row['company']}"
    assert f'<meta property="og:url" content="{web.url}/jobs/{row["id"]}">' in page
    assert f'<link rel="canonical" href="{web.url}/jobs/{row["id"]}">' in page
    search = httpx.get(web.url + "/", timeout=10).text
    assert '<meta name="description" content="Search open job postings' in search


def test_a_posting_text_cannot_close_the_json_ld_element() -> None:
    row = {
        "title": "</script><script>alert(1)</script>",
        "description": "A & B <b>bold</b>\n\nSecond paragraph",
        "source": "lever",
        "external_id": "x",
        "company": "Acme & Co",
        "posted_at": datetime(2026, 11, 30, tzinfo=UTC),
        "work_mode": "remote",
        "countries": ["VN"],
        "employment_type": ["full_time", "contract"],
        "salary_min": Decimal("20.50"),
        "salary_max": None,
        "salary_currency": "USD",
        "salary_period": "hour",
    }
    posting = structured.job_posting(row, "https://example.test/jobs/1")
    assert posting is not None
    block = str(structured.json_ld(posting))
    assert "<" not in block
    assert ">" not in block
    assert json.loads(block) == posting
    assert (
        posting["description"] == "<p>A &amp; B &lt;b&gt;bold&lt;/b&gt;</p><p>Second paragraph</p>"
    )
    assert posting["applicantLocationRequirements"] == [{"@type": "Country", "name": "Viet Nam"}]
    assert posting["employmentType"] == ["FULL_TIME", "CONTRACTOR"]
    assert posting["baseSalary"]["value"] == {
        "@type": "QuantitativeValue",
        "unitText": "HOUR",
        "value": 20.5,
    }


def test_a_salary_without_its_period_is_not_offered_as_base_salary() -> None:
    row = {"salary_min": Decimal(65000), "salary_max": Decimal(85000), "salary_currency": "USD"}
    assert structured._base_salary({**row, "salary_period": None}) is None
    assert structured._base_salary({**row, "salary_period": "year"})["value"]["minValue"] == 65000
