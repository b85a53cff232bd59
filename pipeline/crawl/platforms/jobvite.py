"""Jobvite: one GET of the company's XML feed (`app.jobvite.com/CompanyJobs/Xml.aspx
?c={companyEId}`; the board token is that `companyEId`) is the whole board with
descriptions. Change detection: the feed's validators when sent, else its hash. The
direct check is the posting's career-site page (`jobs.jobvite.com/{slug}/job/{id}`),
whose 404 says the job is gone.

With an `api_base` (the sandbox) the token is also the first path segment, as for
the subdomain platforms: `{api_base}/{token}/CompanyJobs/Xml.aspx?c={token}`.
"""

from __future__ import annotations

from urllib.parse import quote

from pipeline.crawl.platforms.simple import HostPerBoard

DEFAULT_HOST = "https://app.jobvite.com"


class Jobvite(HostPerBoard):
    name = "jobvite"
    format_name = "CompanyJobs XML feed (Xml.aspx?c={companyEId})"

    def listing_url(self, api_base: str | None, token: str) -> str:
        eid = quote(token, safe="")
        origin = f"{api_base}/{eid}" if api_base else DEFAULT_HOST
        return f"{origin}/CompanyJobs/Xml.aspx?c={eid}"
