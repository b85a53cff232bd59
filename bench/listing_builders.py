"""Benchmark listings of Pinpoint, Breezy, Rippling, Oracle, SuccessFactors, JazzHR,
Jobvite and iCIMS, in each platform's real shape (see docs/parsers.md), from the same
rows as bench/parse.py's others.
Each builder returns (body, the URL the listing is fetched from)."""

from __future__ import annotations

import json
from collections.abc import Callable

from sandbox.world import Job, job_uuid

Rows = list[tuple[str, Job]]
Builder = Callable[[Rows, Callable[[str, Job], str]], tuple[bytes, str]]


def pinpoint_listing(rows: Rows, description: Callable[[str, Job], str]) -> tuple[bytes, str]:
    items = [
        {
            "id": str(job.job_id),
            "title": job.title,
            "description": description(company, job),
            "key_responsibilities_header": "What you'll do",
            "key_responsibilities": "<ul><li>Design services</li><li>Review code</li></ul>",
            "benefits_header": "Benefits",
            "benefits": "<p>Learning budget.</p>",
            "url": f"https://acme.pinpointhq.com/en/postings/{job_uuid(job)}",
            "path": f"/en/postings/{job_uuid(job)}",
            "location": {
                "name": job.location,
                "city": job.location.split(",")[0],
                "province": None,
            },
            "job": {"department": {"name": job.department}},
            "employment_type_text": "Full Time",
            "workplace_type": "hybrid",
            "compensation": "£50,000 - £60,000 per year",
            "compensation_visible": True,
        }
        for company, job in rows
    ]
    return json.dumps({"data": items}).encode(), "https://acme.pinpointhq.com/postings.json"


def _hex12(job: Job) -> str:
    return f"{job.job_id:012x}"[-12:]


def breezy_listing(rows: Rows, description: Callable[[str, Job], str]) -> tuple[bytes, str]:
    items = [
        {
            "id": _hex12(job),
            "friendly_id": f"{_hex12(job)}-role",
            "name": job.title,
            "url": f"https://acme.breezy.hr/p/{_hex12(job)}-role",
            "published_date": job.posted_at.isoformat(),
            "type": {"id": "fullTime", "name": "Full-Time"},
            "location": {
                "country": {"name": "United States", "id": "US"},
                "state": {"id": "CA", "name": "California"},
                "city": job.location.split(",")[0],
                "is_remote": False,
                "name": job.location,
            },
            "department": job.department,
            "salary": "$100,000 - $150,000 / yr",
            "company": {"name": company, "logo_url": None, "friendly_id": "acme"},
            "description": description(company, job),
        }
        for company, job in rows
    ]
    return json.dumps(items).encode(), "https://acme.breezy.hr/json?verbose=true"


def rippling_page(rows: Rows, description: Callable[[str, Job], str]) -> tuple[bytes, str]:
    """A page of 100 rows (the listing has no descriptions; detail pages are JSON too)."""
    items = [
        {
            "id": job_uuid(job),
            "name": job.title,
            "url": f"https://ats.rippling.com/acme/jobs/{job_uuid(job)}",
            "department": {"name": job.department},
            "locations": [
                {
                    "name": job.location,
                    "city": job.location.split(",")[0],
                    "state": None,
                    "country": "United States",
                    "countryCode": "US",
                    "workplaceType": "HYBRID",
                }
            ],
        }
        for _, job in rows[:100]
    ]
    body = {"items": items, "page": 0, "pageSize": 100, "totalItems": 200, "totalPages": 2}
    return (
        json.dumps(body).encode(),
        "https://ats.rippling.com/api/v2/board/acme/jobs?page=0&pageSize=100",
    )


def oracle_page(rows: Rows, description: Callable[[str, Job], str]) -> tuple[bytes, str]:
    """A search page of 200 requisitions (teasers only: the advert is on the detail)."""
    items = [
        {
            "Id": str(job.job_id % 10**9),
            "Title": job.title,
            "PostedDate": job.posted_at.date().isoformat(),
            "PrimaryLocationCountry": "US",
            "PrimaryLocation": job.location,
            "WorkplaceTypeCode": "ORA_HYBRID",
            "WorkplaceType": "Hybrid",
            "JobFamily": job.department,
            "JobSchedule": "Full time",
            "ShortDescriptionStr": f"{company} is hiring a {job.title}.",
            "secondaryLocations": [{"Id": 1, "Name": "Austin, TX", "CountryCode": "US"}],
        }
        for company, job in rows
    ]
    search = {"SearchId": 1, "TotalJobsCount": 400, "Limit": 200, "Offset": 0}
    body = {"items": [{**search, "requisitionList": items}], "count": 1, "hasMore": False}
    url = (
        "https://eeho.fa.us2.oraclecloud.com/hcmRestApi/resources/latest/recruitingCEJobRequisitions"
        "?onlyData=true&finder=findReqs;siteNumber=CX_1,limit=200,offset=0"
    )
    return json.dumps(body).encode(), url


def successfactors_feed(rows: Rows, description: Callable[[str, Job], str]) -> tuple[bytes, str]:
    from xml.sax.saxutils import escape

    jobs = "".join(
        f"<Job><JobTitle>{escape(job.title)}</JobTitle><ReqId>{job.job_id % 10**6}</ReqId>"
        f"<Posted-Date>{job.posted_at:%m/%d/%Y}</Posted-Date>"
        f"<Job-Description>{escape(description(company, job))}</Job-Description>"
        f"<filter1><label>Posting Location</label><value>{escape(job.location)}</value></filter1>"
        f"<filter2><label>Job Family / Functional Area</label><value>{job.department}</value></filter2>"
        "<mfield1><label>Type of Employment</label><value>Regular</value></mfield1></Job>"
        for company, job in rows
    )
    body = f"<?xml version='1.0' encoding='UTF-8'?>\n<Job-Listing>{jobs}</Job-Listing>"
    url = "https://career2.successfactors.eu/career?company=Acme&career_ns=job_listing_summary&resultType=XML"
    return body.encode(), url


def jazzhr_feed(rows: Rows, description: Callable[[str, Job], str]) -> tuple[bytes, str]:
    def cdata(tag: str, value: str) -> str:
        return f"<{tag}><![CDATA[{value}]]></{tag}>"

    jobs = "".join(
        "<job>"
        + cdata("id", f"job_20260106122430_{job.job_id}")
        + cdata("status", "Open")
        + cdata("title", job.title)
        + cdata("department", job.department)
        + cdata("url", f"https://acme.applytojob.com/apply/{job.job_id % 10**8}/role")
        + cdata("city", job.location.split(",")[0])
        + cdata("state", "CA")
        + cdata("country", "United States")
        + cdata("description", description(company, job))
        + cdata("type", "Full Time")
        + cdata("original_open_date", job.posted_at.date().isoformat())
        + "</job>"
        for company, job in rows
    )
    body = (
        f"<?xml version='1.0' encoding='utf-8'?>\n<jobs>{cdata('publisher', 'JazzHR')}{jobs}</jobs>"
    )
    return body.encode(), "https://app.jazz.co/feeds/export/jobs/acme"


def jobvite_feed(rows: Rows, description: Callable[[str, Job], str]) -> tuple[bytes, str]:
    from xml.sax.saxutils import escape

    jobs = "".join(
        f"<job><id>o{job.job_id % 10**7}</id><title>{escape(job.title)}</title>"
        f"<requisitionId>R{job.job_id % 10**4}</requisitionId><category>{job.department}</category>"
        f"<jobtype>Full-Time</jobtype><location>{escape(job.location)}</location>"
        f"<date>{job.posted_at.month}/{job.posted_at.day}/{job.posted_at.year}</date>"
        f"<detail-url>https://jobs.jobvite.com/acme/job/o{job.job_id % 10**7}</detail-url>"
        f"<apply-url>https://jobs.jobvite.com/acme/job/o{job.job_id % 10**7}/apply</apply-url>"
        f"<description><![CDATA[{description(company, job)}]]></description></job>"
        for company, job in rows
    )
    body = f"<?xml version='1.0' encoding='UTF-8'?><result>{jobs}</result>"
    return body.encode(), "https://app.jobvite.com/CompanyJobs/Xml.aspx?c=qAcme123"


def icims_search(rows: Rows, description: Callable[[str, Job], str]) -> tuple[bytes, str]:
    """A portal's search page of 50 rows (HTML; the adverts are on the job pages)."""
    cards = "".join(
        "<div class='row'><div class='col-xs-12 title'>"
        f"<a href='https://careers-acme.icims.com/jobs/{job.job_id % 10**5}/role/job?in_iframe=1'"
        f" class='iCIMS_Anchor' title='{job.job_id % 10**5} - {job.title}'><h3>{job.title}</h3></a>"
        "</div><div class='col-xs-12 additionalFields'><dl class='iCIMS_JobHeaderGroup'>"
        f"<dt>Job Locations</dt><dd>US-CA-{job.location.split(',')[0]}</dd>"
        f"<dt>Category</dt><dd>{job.department}</dd>"
        f"<dt>Posted Date</dt><dd><span title='{job.posted_at:%m/%d/%Y}'>x</span></dd>"
        "</dl></div></div>"
        for _, job in rows[:50]
    )
    body = (
        f"<html><body><div class='iCIMS_JobsTable'>{cards}</div>"
        "<div class='iCIMS_Paging'>Page 1 of 4</div></body></html>"
    )
    return body.encode(), "https://careers-acme.icims.com/jobs/search?ss=1&in_iframe=1&pr=0"


# JSON listings join bench/parse.py's JSON figure; XML and HTML feeds are measured
# apart, against lxml parsing the same bytes (json.loads cannot read them).
BUILDERS: dict[str, Builder] = {
    "pinpoint": pinpoint_listing,
    "breezy": breezy_listing,
    "rippling": rippling_page,
    "oracle": oracle_page,
}
FEED_BUILDERS: dict[str, tuple[Builder, str]] = {
    "successfactors": (successfactors_feed, "xml"),
    "jazzhr": (jazzhr_feed, "xml"),
    "jobvite": (jobvite_feed, "xml"),
    "icims": (icims_search, "html"),
}


def measure_feeds(
    rows: Rows,
    description: Callable[[str, Job], str],
    timed: Callable[[Callable[[], object], float], tuple[int, float]],
    seconds: float,
) -> tuple[dict[str, float], float]:
    """MB/s per XML / HTML listing parser, printed beside lxml's rate on the same bytes,
    and the MB/s of all of them together (their bytes over their time)."""
    import lxml.etree
    import lxml.html

    from parsers.registry import REGISTRY
    from parsers.types import DocumentKind, RawDocument

    print("XML and HTML listings (MB/s of input; one core)")
    rates: dict[str, float] = {}
    total_mb = total_s = 0.0
    for name, (build, kind) in FEED_BUILDERS.items():
        body, url = build(rows, description)
        doc = RawDocument(body, url, DocumentKind.LISTING)
        parser = REGISTRY.get(name)
        assert parser.parse(doc).postings, f"{name}: the benchmark input must parse"
        raw = lxml.etree.fromstring if kind == "xml" else lxml.html.fromstring
        runs, elapsed = timed(lambda p=parser, d=doc: p.parse(d), seconds)
        raw_runs, raw_elapsed = timed(lambda b=body, f=raw: f(b), seconds)
        mb = len(body) / 1e6
        rate, raw_rate = mb * runs / elapsed, mb * raw_runs / raw_elapsed
        rates[name] = round(rate, 1)
        total_mb += mb * runs
        total_s += elapsed
        print(
            f"  {parser.ref:<20} {len(body) / 1024:8.0f} KB  {rate:8.1f} MB/s   "
            f"lxml {raw_rate:8.1f} MB/s   ratio {rate / raw_rate:5.2f}"
        )
    return rates, total_mb / total_s
