"""SAP SuccessFactors Recruiting: one GET of the career site's XML feed is the board.

A board token is `{host}/{company}`: `career2.successfactors.eu/SwissRe` for
https://career2.successfactors.eu/career?company=SwissRe. The feed is single-shot
(no paging); change detection is the server's validators when it sends any, else
the listing's hash. The direct check is the posting's own job page
(`career_ns=job_listing&career_job_req_id=...`), whose closed banner or 404 says it
is gone.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from pipeline.crawl.platforms.simple import HostPerBoard

_TOKEN = re.compile(r"^(?P<host>[A-Za-z0-9.-]+\.[A-Za-z]{2,})/(?P<company>[A-Za-z0-9_.-]+)$")


def parse_token(token: str) -> tuple[str, str]:
    match = _TOKEN.match(token)
    if match is None:
        raise ValueError(
            f"SuccessFactors board token {token!r} must look like career2.successfactors.eu/SwissRe"
        )
    return match["host"].lower(), match["company"]


class SuccessFactors(HostPerBoard):
    name = "successfactors"
    format_name = "career-site XML feed (job_listing_summary, resultType=XML)"
    robots = "obey"  # the feed is served by the career site itself, not an API host

    def listing_url(self, api_base: str | None, token: str) -> str:
        host, company = parse_token(token)
        origin = f"{api_base}/{host}" if api_base else f"https://{host}"
        return (
            f"{origin}/career?company={quote(company, safe='')}"
            "&career_ns=job_listing_summary&resultType=XML"
        )
