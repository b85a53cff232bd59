"""iCIMS: the career portal's job search pages, `https://{portal}.icims.com/jobs/search
?ss=1&in_iframe=1&pr={page}` (the token is the portal's first host label, such as
`careers-acme`), read page by page while "Page N of M" says more follow; each new or
changed row's job page for its advert (JSON-LD).

Change detection: HTML pages without useful validators (page 1 says nothing of page
7), so every page is read and rows are hashed. The direct check is the job page: its
"no longer available" banner or a 404 closes the posting. Portals are websites, so
robots.txt is obeyed.
"""

from __future__ import annotations

from pipeline.crawl.platforms.simple import DetailFromPosting, SubdomainPlatform


class Icims(SubdomainPlatform, DetailFromPosting):
    name = "icims"
    format_name = "job search page (HTML, in_iframe=1, paged)"
    host_template = "{token}.icims.com"
    path = "/jobs/search?ss=1&in_iframe=1&pr=0"
    robots = "obey"
    conditional = False
    max_pages = 100
