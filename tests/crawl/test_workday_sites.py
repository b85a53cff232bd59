"""Workday board tokens of both real shapes, and the URLs the adapter builds from them:
a tenant's own host (`tenant.wd5/Site`, unchanged) and a data center's shared host
(`wd3.myworkdaysite.com/recruiting/tenant/Site`, the board's address)."""

from __future__ import annotations

import pytest

from pipeline.crawl.platforms.workday import Workday, parse_token
from pipeline.db.rows import DueCheck
from pipeline.normalize.company import company_from_token
from pipeline.workday_sites import WorkdaySite, workday_site

SHARED = "wd3.myworkdaysite.com/recruiting/acme/Careers"


@pytest.mark.parametrize(
    ("token", "site"),
    [
        ("nvidia.wd5/NVIDIAExternalCareerSite", WorkdaySite("nvidia", "wd5", "NVIDIAExternalCareerSite")),
        ("acme.wd3.myworkdayjobs.com/Careers", WorkdaySite("acme", "wd3", "Careers")),
        ("salesforce.wd12/External_Career_Site", WorkdaySite("salesforce", "wd12", "External_Career_Site")),
        (SHARED, WorkdaySite("acme", "wd3", "Careers", shared_host=True)),
        ("wd103.myworkdaysite.com/recruiting/quiet-bank/Ext.1", WorkdaySite("quiet-bank", "wd103", "Ext.1", shared_host=True)),
    ],
)  # fmt: skip
def test_a_token_names_tenant_data_center_site_and_host(token: str, site: WorkdaySite) -> None:
    assert workday_site(token) == site
    assert workday_site(site.token) == site  # the usual spelling reads back the same


@pytest.mark.parametrize(
    "token",
    [
        "acme.wd3.myworkdaysite.com/Careers",  # a host that does not exist
        "wd3.myworkdaysite.com/acme/Careers",
        "wd3.myworkdaysite.com/recruiting/acme",
        "wd3.myworkdaysite.com/en-US/recruiting/acme/Careers",
        "wd3.myworkdaysite.com.evil.example/recruiting/acme/Careers",
        "wd3.myworkdayjobs.com/recruiting/acme/Careers",
        "nvidia/Site",
        "nvidia.wd5",
    ],
)
def test_other_spellings_are_no_workday_token(token: str) -> None:
    assert workday_site(token) is None
    with pytest.raises(ValueError, match="must look like"):
        parse_token(token)


def test_listing_urls_are_on_each_sites_real_host() -> None:
    workday = Workday()
    assert (
        workday.listing_url(None, "nvidia.wd5/Ext")
        == "https://nvidia.wd5.myworkdayjobs.com/wday/cxs/nvidia/Ext/jobs"
    )
    assert (
        workday.listing_url(None, SHARED)
        == "https://wd3.myworkdaysite.com/wday/cxs/acme/Careers/jobs"
    )


def test_under_a_configured_base_the_host_is_the_first_path_segment() -> None:
    workday = Workday()
    base = "http://127.0.0.1:8765/workday"
    assert (
        workday.listing_url(base, "harbor.wd5/HarborCareers")
        == f"{base}/harbor.wd5/wday/cxs/harbor/HarborCareers/jobs"  # as before
    )
    assert (
        workday.listing_url(base, SHARED)
        == f"{base}/wd3.myworkdaysite.com/wday/cxs/acme/Careers/jobs"
    )


def test_a_shared_host_board_paces_and_queues_with_its_data_center() -> None:
    workday = Workday()
    shared = workday.listing_url(None, SHARED)
    own = workday.listing_url(None, "acme.wd3/Careers")
    assert workday.pacing_key(shared) == workday.pacing_key(own) == "wd3.myworkdayjobs.com"
    assert workday.pacing_key(workday.listing_url(None, "acme.wd5/Careers")) != (
        workday.pacing_key(shared)
    )
    assert workday.lane(None, shared) == workday.lane(None, own) == "workday:wd3"  # type: ignore[arg-type]


def _due(url: str, board_key: str) -> DueCheck:
    return DueCheck(
        id=1,
        external_id="R12345",
        board_id=1,
        url=url,
        title="Buyer",
        status="missing",
        board_key=board_key,
        board_url="",
    )


@pytest.mark.parametrize(
    ("page", "api"),
    [
        (
            "https://wd3.myworkdaysite.com/recruiting/acme/Careers/job/Reston/Buyer_R12345-1",
            "https://wd3.myworkdaysite.com/wday/cxs/acme/Careers/job/Reston/Buyer_R12345-1",
        ),
        (
            "https://wd3.myworkdaysite.com/en-US/recruiting/acme/Careers/job/Reston/Buyer_R12345",
            "https://wd3.myworkdaysite.com/wday/cxs/acme/Careers/job/Reston/Buyer_R12345",
        ),
        (  # the sandbox serves the shared host under a base
            "http://127.0.0.1:8765/workday/wd3.myworkdaysite.com/recruiting/acme/Careers/job/X_R1",
            "http://127.0.0.1:8765/workday/wd3.myworkdaysite.com/wday/cxs/acme/Careers/job/X_R1",
        ),
        (  # the tenant's own host, unchanged
            "https://acme.wd5.myworkdayjobs.com/Careers/job/Reston/Buyer_R12345",
            "https://acme.wd5.myworkdayjobs.com/wday/cxs/acme/Careers/job/Reston/Buyer_R12345",
        ),
    ],
)
def test_the_direct_check_asks_the_cxs_detail_of_the_postings_host(page: str, api: str) -> None:
    request = Workday().check_request(_due(page, SHARED))
    assert request.url == api
    assert request.method == "GET"


@pytest.mark.parametrize(
    ("token", "name"),
    [
        (SHARED, "Acme"),
        ("wd5.myworkdaysite.com/recruiting/quiet-bank/External", "Quiet Bank"),
        ("wd1.myworkdaysite.com/recruiting/x7f3k2/External", None),  # the tenant is an id
    ],
)
def test_a_shared_host_board_is_named_after_its_tenant_never_the_host(
    token: str, name: str | None
) -> None:
    assert company_from_token("workday", token) == name
