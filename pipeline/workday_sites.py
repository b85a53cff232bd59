"""Workday board tokens: which career site a token names, and on which host it lives.

A Workday career site is published in one of two real shapes:

- on the tenant's own host, https://{tenant}.{dc}.myworkdayjobs.com/[locale/]{site},
  written `tenant.wd5/Site` (or `tenant.wd5.myworkdayjobs.com/Site`);
- on its data centre's shared host, https://{dc}.myworkdaysite.com/[locale/]recruiting/
  {tenant}/{site}, written as that address without scheme and locale:
  `wd3.myworkdaysite.com/recruiting/tenant/Site`.

Both serve the same CXS API under `{origin}/wday/cxs/{tenant}/{site}`. There is no
tenant-named myworkdaysite.com host, so no token spells one.

Plain data and regular expressions, so that `pipeline.config` can validate tokens
without loading the crawler.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The tenant's own host: `nvidia.wd5/NVIDIAExternalCareerSite`.
OWN_HOST_TOKEN = re.compile(
    r"^(?P<tenant>[A-Za-z0-9_-]+)\.(?P<dc>wd\d+)(?:\.myworkdayjobs\.com)?"
    r"/(?P<site>[A-Za-z0-9_.-]+)$"
)
# The data centre's shared host: `wd3.myworkdaysite.com/recruiting/acme/Careers`.
SHARED_HOST_TOKEN = re.compile(
    r"^(?P<dc>wd\d+)\.myworkdaysite\.com/recruiting"
    r"/(?P<tenant>[A-Za-z0-9_-]+)/(?P<site>[A-Za-z0-9_.-]+)$"
)
TOKEN_FORMS = (
    "tenant.wd5/SiteName (from https://tenant.wd5.myworkdayjobs.com/SiteName) or "
    "wd3.myworkdaysite.com/recruiting/tenant/SiteName "
    "(from https://wd3.myworkdaysite.com/recruiting/tenant/SiteName)"
)


@dataclass(frozen=True)
class WorkdaySite:
    """One career site: its tenant, data centre and site name, and whether it is
    published on the data centre's shared host rather than the tenant's own."""

    tenant: str
    dc: str
    site: str
    shared_host: bool = False

    @property
    def host(self) -> str:
        if self.shared_host:
            return f"{self.dc}.myworkdaysite.com"
        return f"{self.tenant}.{self.dc}.myworkdayjobs.com"

    @property
    def token(self) -> str:
        """The token in its usual spelling (what boards import registers)."""
        if self.shared_host:
            return f"{self.host}/recruiting/{self.tenant}/{self.site}"
        return f"{self.tenant}.{self.dc}/{self.site}"

    def api_root(self, api_base: str | None = None) -> str:
        """Where the site's CXS API starts: its real origin, or under a configured
        base the way the sandbox serves it (the host name as the first path segment:
        `{api_base}/wd3.myworkdaysite.com`, `{api_base}/acme.wd5` for an own host)."""
        if api_base is None:
            return f"https://{self.host}"
        segment = self.host if self.shared_host else f"{self.tenant}.{self.dc}"
        return f"{api_base}/{segment}"

    def listing_url(self, api_base: str | None = None) -> str:
        return f"{self.api_root(api_base)}/wday/cxs/{self.tenant}/{self.site}/jobs"


def workday_site(token: str) -> WorkdaySite | None:
    """The career site a board token names, or None when it is not a Workday token."""
    own = OWN_HOST_TOKEN.match(token)
    if own is not None:
        return WorkdaySite(own["tenant"], own["dc"], own["site"])
    shared = SHARED_HOST_TOKEN.match(token)
    if shared is not None:
        return WorkdaySite(shared["tenant"], shared["dc"], shared["site"], shared_host=True)
    return None
