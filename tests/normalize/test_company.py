"""The company order (posting, sources.yaml, board envelope, token) and the names a board
token yields: every token shape each platform writes, readable or opaque."""

from __future__ import annotations

import itertools
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.normalize.company import (
    BOARD_SOURCES,
    Company,
    company_from_token,
    resolve_company,
    words_to_name,
)
from pipeline.platform_names import ATS_PLATFORMS, PLATFORMS

# ---------------------------------------------------------------- the order


@pytest.mark.parametrize("source", BOARD_SOURCES)
def test_the_posting_s_own_company_wins_over_every_board_source(source: str) -> None:
    assert resolve_company("Acme Robotics", "Acme", source) == Company("Acme Robotics", "posting")


@pytest.mark.parametrize("source", BOARD_SOURCES)
def test_a_posting_without_one_takes_its_board_s_with_its_source(source: str) -> None:
    for own in (None, "", "   "):
        assert resolve_company(own, " Acme ", source) == Company("Acme", source)


def test_nobody_s_name_is_not_stated() -> None:
    assert resolve_company(None, None, None) == Company(None, None)
    assert resolve_company("", "", "derived") == Company(None, None)
    # A board name of no known source is not published as if it were one.
    assert resolve_company(None, "Acme", None) == Company(None, None)
    assert resolve_company(None, "Acme", "guess") == Company(None, None)


# ---------------------------------------------------------------- slugs, all platforms

SLUG_PLATFORMS = [
    p for p in ATS_PLATFORMS if p not in ("workday", "successfactors", "oracle", "icims")
]
WORDS = ("quiet", "bank", "harbor", "labs", "acme", "robotics")


# A Personio token with a dot is a host (test_hosts_name_their_label), not a slug.
SLUG_SHAPES = [(p, sep) for p in SLUG_PLATFORMS for sep in "-_." if (p, sep) != ("personio", ".")]


@pytest.mark.parametrize(("platform", "separator"), SLUG_SHAPES)
def test_every_slug_of_words_reads_as_those_words(platform: str, separator: str) -> None:
    for count in (1, 2, 3):
        for words in itertools.permutations(WORDS, count):
            token = separator.join(words)
            assert company_from_token(platform, token) == " ".join(w.title() for w in words)
            # Case as the operator wrote it: upper words stay upper, others are titled.
            assert company_from_token(platform, token.title()) == " ".join(w.title() for w in words)


@pytest.mark.parametrize(
    ("token", "name"),
    [
        ("DeltaWorks", "Delta Works"),
        ("CedarBank", "Cedar Bank"),
        ("AcmeAI", "Acme AI"),
        ("quietBank", "Quiet Bank"),
        ("IBM", "IBM"),
        ("NVIDIA", "NVIDIA"),
        ("iRobot", "iRobot"),
        ("eBay", "eBay"),
        # A trailing counter tells two boards of one employer apart.
        ("Ubisoft2", "Ubisoft"),
        ("cedarlabs01", "Cedarlabs"),
        ("acme-2024", "Acme"),
        # Careers-site words name no one.
        ("acme-careers", "Acme"),
        ("jobs_acme", "Acme"),
    ],
)
def test_written_shapes(token: str, name: str) -> None:
    for platform in SLUG_PLATFORMS:
        assert company_from_token(platform, token) == name, platform


OPAQUE = [
    "qZA9VfwF",  # Jobvite company ids
    "q0oaVfwd",
    "12345",
    "0042",
    "x7f3k2",
    "a1b2c3",
    "web3labs",
    "xkcd",  # no vowel: not a word
    "bcdfgh",
    "AbCdEf",  # a random mix of cases
    "qZAVfwF",
    "career",  # Teamtailor's own board: a careers-site word
    "jobs",
    "careers-jobs",
    "",
    "---",
]


@pytest.mark.parametrize("token", OPAQUE)
def test_opaque_tokens_derive_nothing(token: str) -> None:
    for platform in SLUG_PLATFORMS:
        assert company_from_token(platform, token) is None, platform


_ID_ALPHABET = string.ascii_letters + string.digits


@given(
    st.text(_ID_ALPHABET, min_size=4, max_size=16).filter(
        lambda t: any(c.isdigit() for c in t.rstrip(string.digits))
    )
)
def test_a_token_with_a_digit_inside_is_an_id(token: str) -> None:
    # Base62 ids (Jobvite's companyEId and their like) always hold a digit before the
    # end; a counter at the end is the only digit a name may carry.
    assert company_from_token("jobvite", token) is None


@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), st.sampled_from("-_"))
def test_a_derived_name_is_words_and_derives_itself_again(words: list[str], sep: str) -> None:
    name = words_to_name(sep.join(words))
    assert name == " ".join(w.title() for w in words)
    assert words_to_name(name.replace(" ", "-")) == name  # idempotent on its own output


def test_job_sites_name_a_category_not_an_employer() -> None:
    for scope in ("it", "ke-toan", "quiet-bank", "marketing"):
        assert company_from_token("html_site", scope) is None


# Where each platform's token names the employer; every other ATS token is its slug.
ACME_TOKENS = {
    "workday": "acme.wd5/External",
    "successfactors": "career2.successfactors.eu/acme",
    "oracle": "acme.fa.us2.oraclecloud.com/CX_1",
    "icims": "careers-acme",
}


def test_every_platform_has_a_rule() -> None:
    """Each ATS reads the employer from its own token form; a job site names nobody."""
    for platform in PLATFORMS:
        expected = None if platform == "html_site" else "Acme"
        assert company_from_token(platform, ACME_TOKENS.get(platform, "acme")) == expected, platform


# ---------------------------------------------------------------- composite tokens


@pytest.mark.parametrize(
    ("token", "name"),
    [
        ("nvidia.wd5/NVIDIAExternalCareerSite", "Nvidia"),  # the tenant, as Workday writes it
        ("salesforce.wd12/External_Career_Site", "Salesforce"),
        ("harbor.wd5/HarborCareers", "Harbor"),
        ("quiet-bank.wd1/External", "Quiet Bank"),
        ("acme.wd3.myworkdayjobs.com/Careers", "Acme"),
        ("x7f3k2.wd1/External", None),  # the tenant is an id
    ],
)
def test_workday_names_its_tenant_never_the_site(token: str, name: str | None) -> None:
    assert company_from_token("workday", token) == name


@pytest.mark.parametrize(
    ("token", "name"),
    [
        ("career2.successfactors.eu/QuietBank", "Quiet Bank"),
        ("career10.successfactors.com/cedarlabs01", "Cedarlabs"),
        ("career4.successfactors.com/acme-robotics", "Acme Robotics"),
        ("career5.sapsf.eu/C0012345P", None),  # a numbered company id
        ("career2.successfactors.eu", None),  # no company id at all
    ],
)
def test_successfactors_names_its_company_id(token: str, name: str | None) -> None:
    assert company_from_token("successfactors", token) == name


@pytest.mark.parametrize(
    ("token", "name"),
    [
        ("harbor.fa.us2.oraclecloud.com/CX_1", "Harbor"),
        ("delta.fa.em2.oraclecloud.com/CX_2001", "Delta"),
        ("eeho.fa.us2.oraclecloud.com/CX_1", "Eeho"),  # Oracle's own pod: as written
        ("careers.acme.com/CX_1", "Acme"),  # the employer's own domain
        ("jobs.quietbank.co.uk/CX_3", "Quietbank"),
        ("hcm-x7f3k2.fa.us6.oraclecloud.com/CX_1", None),
    ],
)
def test_oracle_names_its_host(token: str, name: str | None) -> None:
    assert company_from_token("oracle", token) == name


@pytest.mark.parametrize(
    ("token", "name"),
    [
        ("careers-harborlabs", "Harborlabs"),
        ("jobs-cedarhealth", "Cedarhealth"),
        ("CAREERS-acme", "Acme"),
        ("quietbank-careers", "Quietbank"),
        ("careers-x7f3k2", None),
    ],
)
def test_icims_strips_its_portal_prefixes(token: str, name: str | None) -> None:
    assert company_from_token("icims", token) == name


@pytest.mark.parametrize(
    ("token", "name"),
    [("acme.jobs.personio.com", "Acme"), ("quiet-bank.jobs.personio.de", "Quiet Bank")],
)
def test_hosts_name_their_label(token: str, name: str) -> None:
    assert company_from_token("personio", token) == name
