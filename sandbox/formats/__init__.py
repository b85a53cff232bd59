"""Every platform format the sandbox serves. A new format is a module with a
`FORMAT` (see sandbox.routing) added to this list."""

from sandbox.formats import (
    ashby,
    bamboohr,
    breezy,
    gemini,
    greenhouse,
    html_site,
    icims,
    jazzhr,
    jobvite,
    js_site,
    lever,
    oracle,
    paged_api,
    personio,
    pinpoint,
    recruitee,
    rippling,
    scenarios,
    smartrecruiters,
    successfactors,
    teamtailor,
    vn_sites,
    workable,
    workday,
)
from sandbox.routing import Format

FORMATS: list[Format] = [
    greenhouse.FORMAT,
    lever.FORMAT,
    ashby.FORMAT,
    smartrecruiters.FORMAT,
    workable.FORMAT,
    workday.FORMAT,
    recruitee.FORMAT,
    teamtailor.FORMAT,
    personio.FORMAT,
    bamboohr.FORMAT,
    pinpoint.FORMAT,
    breezy.FORMAT,
    rippling.FORMAT,
    oracle.FORMAT,
    successfactors.FORMAT,
    jazzhr.FORMAT,
    jobvite.FORMAT,
    icims.FORMAT,
    html_site.FORMAT,
    vn_sites.FORMAT,
    js_site.FORMAT,  # a listing rendered by JavaScript (the browser path)
    paged_api.FORMAT,  # a paged JSON API without validators (the count probe)
    scenarios.FORMAT,  # canned answers of a posting's own page (lifecycle checks)
    gemini.FORMAT,  # a model endpoint in the Gemini REST format (enrichment)
]
