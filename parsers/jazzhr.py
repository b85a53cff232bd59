"""JazzHR: the public XML job feed (`https://app.jazz.co/feeds/export/jobs/{company}`)
and the hosted apply page (`https://{company}.applytojob.com/apply/{code}/{slug}`).

Feed quirks: `<jobs>` opens with `<publisher>JazzHR</publisher>`, `<publisherurl>` and
the employer's `<company>`, then one `<job>` per posting, every value in CDATA: `id`
(`job_20260106122430_CR9WJRTY9BDUBAKM`), `status` (Open, or Filled / Closed / On Hold
for postings no longer taking applicants, which are not live and are left out),
`title`, `department`, `url` (the apply page, often plain `http://`), `city`,
`state`, `country`, `postalcode`, `description` (HTML), `type` (Full Time,
Contractor, ...), `experience`, `original_open_date`. No paging.
"""

from __future__ import annotations

from typing import Any

from parsers import mappings
from parsers.hosted import parse_hosted_page
from parsers.jsonmap import JsonParser, row_markers
from parsers.registry import register
from parsers.types import Issue, ParseOutcome, RawDocument
from parsers.xmlfeed import is_html_page, read_feed

PARSER_VERSION = "1"
_MARKERS = row_markers(mappings.JAZZHR)
LIVE_STATUSES = frozenset({"open", ""})


def _read(doc: RawDocument) -> tuple[Any, ParseOutcome | None]:
    data, rejection = read_feed(doc, roots=("jobs",), item="job", key="jobs", markers=_MARKERS)
    if rejection is None:
        data["jobs"] = [
            job for job in data["jobs"] if str(job.get("status") or "").lower() in LIVE_STATUSES
        ]
    return data, rejection


def parse_page(doc: RawDocument) -> ParseOutcome:
    return parse_hosted_page(doc, platform="jazzhr", id_pattern=r"/apply/([A-Za-z0-9]+)/")


_feed = JsonParser(mappings.JAZZHR, prepare=_read)


@register("jazzhr", PARSER_VERSION)
def parse_jazzhr(doc: RawDocument) -> ParseOutcome:
    if not doc.body.strip():
        return ParseOutcome.rejected(Issue("empty_body", "the response body is empty"))
    if is_html_page(doc.body):
        return parse_page(doc)
    return _feed(doc)
