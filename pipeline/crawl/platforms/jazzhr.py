"""JazzHR: one GET of `https://app.jazz.co/feeds/export/jobs/{company}` (the company's
`applytojob.com` subdomain) is the whole board with descriptions; change detection is
the feed's validators when sent, else its hash. The direct check is the posting's
apply page, which JazzHR sends back to the board's `/apply` page once the job is
closed (a redirect up to the board: conclusive), or answers 404."""

from __future__ import annotations

from pipeline.crawl.platforms.simple import PathPlatform


class JazzHR(PathPlatform):
    name = "jazzhr"
    format_name = "XML export feed (app.jazz.co/feeds/export/jobs)"
    default_api_base = "https://app.jazz.co"
    path = "/feeds/export/jobs/{token}"
