"""Bad input that reaches the database (docs/reliability.md §4): NUL bytes and control
characters in every text field of a listing. PostgreSQL refuses NUL in text: the
posting must still be stored (or rejected with an issue), never a failed transaction
that loses the rest of its batch."""

from __future__ import annotations

import json

from pipeline.phases.discover import discover
from pipeline.phases.parse import parse_source
from tests.apps import greenhouse_source, query, set_fault

HOSTILE = "bad\x00 \x01\x07\x1b[31m\u202e\ufeff\ud7ff text"


def _job(i: int, text: str) -> dict:
    return {
        "id": 9000 + i,
        "internal_job_id": 9000 + i,
        "title": f"Engineer {i} {text}",
        "absolute_url": f"https://boards.example/jobs/{9000 + i}",
        "updated_at": "2026-11-20T10:00:00-05:00",
        "first_published": "2026-11-19T10:00:00-05:00",
        "requisition_id": f"R{text}",
        "location": {"name": f"Berlin {text}"},
        "company_name": f"Acme {text}",
        "departments": [{"id": 1, "name": f"Dept {text}"}],
        "offices": [{"id": 1, "name": f"Office {text}", "location": f"Berlin {text}"}],
        "metadata": [{"name": f"k{text}", "value": f"v{text}"}],
        "content": f"&lt;p&gt;About {text}&lt;/p&gt;",
    }


def test_nul_bytes_and_control_characters_in_every_text_field_lose_nothing(
    make_app, sandbox
) -> None:
    app = make_app(greenhouse_source("gh", sandbox.url, ["nul"]))
    jobs = [_job(0, HOSTILE), _job(1, "clean"), _job(2, "\x00" * 50), _job(3, "\ud800 lone")]
    body = json.dumps({"jobs": jobs, "meta": {"total": len(jobs)}})
    set_fault(sandbox, "greenhouse", "nul", status=200, body=body, content_type="application/json")
    report = discover(app, "gh")
    parse_source(app, "gh")

    assert report.stats["outcomes"] == {"changed": 1}, report.stats
    rows = query(app, "SELECT external_id, title FROM core.postings ORDER BY external_id")
    assert [r["external_id"] for r in rows] == ["9001"]  # the clean one, batch intact
    scan = query(app, "SELECT issues, complete FROM crawl.scans ORDER BY id DESC LIMIT 1")[0]
    print(scan)
    codes = [i["code"] for i in scan["issues"]]
    assert codes.count("unstorable_text") == 3
    assert scan["complete"] is False  # a listing that dropped rows proves no absence
