"""The platform names a source may use in sources.yaml: the one list of platforms.

Everything else a platform needs is keyed by these names: the crawler adapter
(`pipeline.crawl.platforms.PLATFORMS`, which refuses to load when its names differ
from these), the parser (`parsers.REGISTRY`), the sandbox format, golden cases and
docs. `tests/architecture/test_platform_kit.py` names any piece a platform is missing;
docs/adding-a-platform.md lists the steps to add one.

Plain data without imports, so that `pipeline.config` (which DAG files import at parse
time) can validate `platform:` keys without loading the crawler.
"""

from __future__ import annotations

# JSON/XML/HTML APIs of applicant tracking systems, one adapter and one parser each.
# The order is the one error messages list them in.
ATS_PLATFORMS = (
    "greenhouse",
    "lever",
    "ashby",
    "smartrecruiters",
    "workable",
    "workday",
    "recruitee",
    "teamtailor",
    "personio",
    "bamboohr",
    "pinpoint",
    "breezy",
    "rippling",
    "oracle",
    "successfactors",
    "jazzhr",
    "jobvite",
    "icims",
)
# Job sites configured by selectors in sources.yaml (one parser per configured site).
HTML_PLATFORMS = ("html_site",)
PLATFORMS = ATS_PLATFORMS + HTML_PLATFORMS
