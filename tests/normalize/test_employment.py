"""One vocabulary for employment type: every spelling the platforms, the real captures,
the golden cases and the sandbox use reads as a canonical value; a value nobody mapped
is `other`; one posting's type, job type and seniority never contradict each other."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from parsers.registry import REGISTRY
from parsers.types import DocumentKind
from pipeline.normalize.employment import (
    REGULAR_MEANS_FULL_TIME,
    VOCABULARY,
    Coherent,
    coherent,
    employment_types,
    is_mapped,
    words,
)
from pipeline.platform_names import PLATFORMS
from tests.parsers.conftest import doc, read_real
from tests.parsers.test_conformance import ATS_FOLDERS, files, run

GOLDEN = Path(__file__).parents[1] / "golden"

# (platform or None for any, stated value) -> canonical types. Each platform's documented
# enumeration and the spellings the issue names.
CASES: dict[tuple[str | None, str], tuple[str, ...]] = {
    # the demo's facet spellings
    (None, "Full-time"): ("full_time",),
    (None, "FULL_TIME"): ("full_time",),
    (None, "Full Time"): ("full_time",),
    (None, "Full-Time"): ("full_time",),
    (None, "Full time"): ("full_time",),
    (None, "full"): ("full_time",),
    (None, "fulltime_permanent"): ("full_time",),
    (None, "FullTime"): ("full_time",),
    (None, "Salaried, full-time"): ("full_time",),
    (None, "permanent, full-time"): ("full_time",),
    (None, "Part time"): ("part_time",),
    (None, "Contractor"): ("contract",),
    (None, "Temporary"): ("temporary",),
    (None, "Intern"): ("internship",),
    # Workday timeType, SmartRecruiters typeOfEmployment
    ("workday", "Full time"): ("full_time",),
    ("workday", "Part time"): ("part_time",),
    ("smartrecruiters", "full-time"): ("full_time",),
    ("smartrecruiters", "part-time"): ("part_time",),
    ("smartrecruiters", "contract"): ("contract",),
    ("smartrecruiters", "intern"): ("internship",),
    # Personio employmentType (+ schedule)
    ("personio", "permanent"): ("full_time",),
    ("personio", "intern"): ("internship",),
    ("personio", "trainee"): ("internship",),
    ("personio", "freelance"): ("contract",),
    ("personio", "temporary"): ("temporary",),
    ("personio", "working_student"): ("part_time",),
    ("personio", "permanent, part-time"): ("part_time",),
    ("personio", "permanent, full-or-part-time"): ("full_time", "part_time"),
    # Lever commitment (free text; the common ones)
    ("lever", "Full-time"): ("full_time",),
    ("lever", "Part-time"): ("part_time",),
    ("lever", "Contract"): ("contract",),
    ("lever", "Permanent"): ("full_time",),
    ("lever", "Short Term"): ("temporary",),
    ("lever", "Full-time /"): ("full_time",),
    ("lever", "Full Time - Remote"): ("full_time",),
    # Ashby employmentType
    ("ashby", "FullTime"): ("full_time",),
    ("ashby", "PartTime"): ("part_time",),
    ("ashby", "Intern"): ("internship",),
    ("ashby", "Contract"): ("contract",),
    ("ashby", "Temporary"): ("temporary",),
    # Recruitee employment_type_code
    ("recruitee", "fulltime_permanent"): ("full_time",),
    ("recruitee", "fulltime_fixed_term"): ("full_time", "temporary"),
    ("recruitee", "parttime_permanent"): ("part_time",),
    ("recruitee", "parttime_fixed_term"): ("part_time", "temporary"),
    ("recruitee", "freelance"): ("contract",),
    ("recruitee", "internship"): ("internship",),
    ("recruitee", "traineeship"): ("internship",),
    ("recruitee", "volunteer"): ("volunteer",),
    # Teamtailor employment type
    ("teamtailor", "Full-time"): ("full_time",),
    ("teamtailor", "Part-time"): ("part_time",),
    ("teamtailor", "Temporary"): ("temporary",),
    # Workable type
    ("workable", "full"): ("full_time",),
    ("workable", "part"): ("part_time",),
    ("workable", "contract"): ("contract",),
    ("workable", "temporary"): ("temporary",),
    ("workable", "Full-time"): ("full_time",),
    ("workable", "Internship"): ("internship",),
    # BambooHR employmentStatusLabel
    ("bamboohr", "Full-Time"): ("full_time",),
    ("bamboohr", "Part-Time"): ("part_time",),
    ("bamboohr", "Contractor"): ("contract",),
    ("bamboohr", "Intern"): ("internship",),
    # Rippling employmentType (id, label)
    ("rippling", "Salaried, full-time"): ("full_time",),
    ("rippling", "SALARIED_FT"): ("full_time",),
    ("rippling", "SALARIED_PT"): ("part_time",),
    ("rippling", "HOURLY_FT"): ("full_time",),
    ("rippling", "CONTRACTOR"): ("contract",),
    ("rippling", "INTERN"): ("internship",),
    ("rippling", "TEMP"): ("temporary",),
    # Pinpoint employment_type and its text
    ("pinpoint", "full_time"): ("full_time",),
    ("pinpoint", "Full Time"): ("full_time",),
    ("pinpoint", "internship"): ("internship",),
    ("pinpoint", "Internship"): ("internship",),
    ("pinpoint", "part_time"): ("part_time",),
    # Breezy type id and name
    ("breezy", "fullTime"): ("full_time",),
    ("breezy", "Full-Time"): ("full_time",),
    ("breezy", "partTime"): ("part_time",),
    ("breezy", "contractor"): ("contract",),
    ("breezy", "intern"): ("internship",),
    ("breezy", "temporary"): ("temporary",),
    ("breezy", "seasonal"): ("temporary",),
    ("breezy", "volunteer"): ("volunteer",),
    ("breezy", "perDiem"): ("per_diem",),
    ("breezy", "other"): ("other",),
    # JazzHR type
    ("jazzhr", "Full Time"): ("full_time",),
    ("jazzhr", "Part Time"): ("part_time",),
    ("jazzhr", "Intern"): ("internship",),
    ("jazzhr", "Contract to Hire"): ("contract",),
    ("jazzhr", "Seasonal"): ("temporary",),
    # Jobvite jobType
    ("jobvite", "Full-Time"): ("full_time",),
    ("jobvite", "Part-Time"): ("part_time",),
    ("jobvite", "Internship"): ("internship",),
    # iCIMS position type
    ("icims", "Regular Full-Time"): ("full_time",),
    ("icims", "Regular Part-Time"): ("part_time",),
    ("icims", "Temporary"): ("temporary",),
    ("icims", "Regular"): ("full_time",),
    # SuccessFactors Type of Employment
    ("successfactors", "Regular"): ("full_time",),
    ("successfactors", "Internship"): ("internship",),
    ("successfactors", "Temporary"): ("temporary",),
    # Oracle Recruiting worker type / job schedule
    ("oracle", "Regular"): ("full_time",),
    ("oracle", "Full time"): ("full_time",),
    ("oracle", "Part time"): ("part_time",),
    ("greenhouse", "Regular"): ("full_time",),
    ("greenhouse", "Intern"): ("internship",),
    # JSON-LD schema.org employmentType
    ("html_site", "FULL_TIME"): ("full_time",),
    ("html_site", "PART_TIME"): ("part_time",),
    ("html_site", "CONTRACTOR"): ("contract",),
    ("html_site", "TEMPORARY"): ("temporary",),
    ("html_site", "INTERN"): ("internship",),
    ("html_site", "VOLUNTEER"): ("volunteer",),
    ("html_site", "PER_DIEM"): ("per_diem",),
    ("html_site", "OTHER"): ("other",),
    ("html_site", "FULL_TIME, CONTRACTOR"): ("full_time", "contract"),
    ("html_site", "FULL_TIME, OTHER"): ("full_time",),
    # Vietnamese, German, French
    (None, "Toàn thời gian"): ("full_time",),
    (None, "Bán thời gian"): ("part_time",),
    (None, "Thực tập"): ("internship",),
    (None, "Thực tập sinh"): ("internship",),
    (None, "Vollzeit"): ("full_time",),
    (None, "Teilzeit"): ("part_time",),
    (None, "Vollzeit oder Teilzeit"): ("full_time", "part_time"),
    (None, "Praktikum"): ("internship",),
    (None, "Werkstudent"): ("part_time",),
    (None, "Befristet"): ("temporary",),
    (None, "Freiberuflich"): ("contract",),
    (None, "Festanstellung"): ("full_time",),
    (None, "CDI"): ("full_time",),
    (None, "CDD"): ("temporary",),
    (None, "Temps plein"): ("full_time",),
    (None, "Temps partiel"): ("part_time",),
    (None, "Stage"): ("internship",),
    (None, "Alternance"): ("internship",),
    (None, "Intérim"): ("temporary",),
    (None, "Freelance"): ("contract",),
    (None, "CDI, temps partiel"): ("part_time",),
    # lists, separators and noise
    (None, "Full-time, Part-time"): ("full_time", "part_time"),
    (None, "Full-time / Part-time"): ("full_time", "part_time"),
    (None, "full-time; contract"): ("full_time", "contract"),
    (None, "  FULL-TIME  "): ("full_time",),
    (None, "Per Diem"): ("per_diem",),
    (None, "PRN"): ("per_diem",),
}


@pytest.mark.parametrize(("platform", "raw"), CASES, ids=[f"{p}:{r}" for p, r in CASES])
def test_every_spelling_maps_to_the_vocabulary(platform: str | None, raw: str) -> None:
    assert employment_types(raw, platform) == CASES[(platform, raw)]


def test_the_vocabulary_is_the_published_eight() -> None:
    assert VOCABULARY == (
        "full_time", "part_time", "contract", "temporary", "internship", "volunteer",
        "per_diem", "other",
    )  # fmt: skip
    assert all(set(types) <= set(VOCABULARY) for types in CASES.values())


def test_nothing_stated_is_the_empty_set_and_an_unknown_value_is_other() -> None:
    assert employment_types(None) == ()
    assert employment_types("   ") == ()
    assert employment_types("Gig") == ("other",)
    assert employment_types("Zeitarbeitsvertrag mit Option") == ("other",)
    assert not is_mapped("Gig")
    assert is_mapped("OTHER")  # schema.org's OTHER: stated, and known
    assert is_mapped("Full-time")


def test_regular_means_full_time_only_where_the_platform_says_so() -> None:
    assert set(PLATFORMS) >= REGULAR_MEANS_FULL_TIME
    for platform in PLATFORMS:
        expected = ("full_time",) if platform in REGULAR_MEANS_FULL_TIME else ("other",)
        assert employment_types("Regular", platform) == expected, platform
    assert employment_types("Regular", None) == ("other",)
    # With hours stated the hours decide, on every platform.
    assert employment_types("Regular Part-Time", "lever") == ("part_time",)


def test_words_fold_case_accents_camel_case_and_separators() -> None:
    assert words("FullTime") == ["full", "time"]
    assert words("FULL_TIME") == ["full", "time"]
    assert words("fulltime_permanent") == ["fulltime", "permanent"]
    assert words("Toàn thời gian") == ["toan", "thoi", "gian"]
    assert words("Intérim") == ["interim"]
    assert words("Đà Nẵng") == ["da", "nang"]


# ---------------------------------------------------------------- the real spellings


def _real_values(real_dir: Path) -> Iterator[tuple[str, str]]:
    """(platform, employment type as parsed) of every posting of every real capture."""
    for platform in ATS_FOLDERS:
        for path in files(real_dir, platform):
            for posting in run(platform, path).postings:
                if posting.employment_type:
                    yield platform, posting.employment_type
    for path in files(real_dir, "jsonld"):
        body = read_real(path)
        outcome = REGISTRY.get("jsonld").parse(
            doc(body, "https://example.com/page", DocumentKind.DETAIL)
        )
        for posting in outcome.postings:
            if posting.employment_type:
                yield "jsonld", posting.employment_type


@pytest.mark.real_fixtures
def test_every_employment_type_of_the_real_captures_is_mapped(real_dir: Path) -> None:
    found = set(_real_values(real_dir))
    assert len(found) >= 10, found  # the captures hold a dozen spellings: all were read
    unmapped = {(p, v) for p, v in found if employment_types(v, p) == ("other",)}
    assert unmapped == set()


def _golden_values() -> Iterator[tuple[str, str]]:
    for path in GOLDEN.rglob("expected*.json"):
        platform = path.relative_to(GOLDEN).parts[0]
        data = json.loads(path.read_text("utf-8"))
        postings = data.get("postings", []) if isinstance(data, dict) else data
        for posting in postings if isinstance(postings, list) else ():
            value = posting.get("employment_type") if isinstance(posting, dict) else None
            if value:
                yield platform, value


def test_every_employment_type_of_the_golden_cases_is_mapped() -> None:
    found = set(_golden_values())
    assert len(found) >= 10, found
    assert {(p, v) for p, v in found if employment_types(v, p) == ("other",)} == set()


# What the sandbox's formats state (sandbox/formats/*.py): each platform's own spelling.
SANDBOX = {
    ("ashby", "FullTime"), ("ashby", "Intern"), ("bamboohr", "Full-Time"),
    ("bamboohr", "Intern"), ("breezy", "Full-Time"), ("breezy", "fullTime"),
    ("html_site", "FULL_TIME"), ("html_site", "INTERN"), ("jazzhr", "Full Time"),
    ("jazzhr", "Intern"), ("lever", "Full-time"), ("lever", "Full-time /"), ("lever", "Intern"),
    ("personio", "permanent"), ("personio", "intern"), ("pinpoint", "full_time"),
    ("pinpoint", "Full Time"), ("pinpoint", "internship"), ("recruitee", "fulltime_permanent"),
    ("recruitee", "internship"), ("rippling", "Salaried, full-time"), ("rippling", "Intern"),
    ("rippling", "SALARIED_FT"), ("successfactors", "Regular"),
    ("successfactors", "Internship"), ("workable", "Full-time"), ("workable", "full"),
    ("workable", "Internship"), ("workday", "Full time"), ("greenhouse", "Full-time"),
    ("greenhouse", "Intern"),
}  # fmt: skip


def test_every_employment_type_of_the_sandbox_is_mapped() -> None:
    assert {(p, v) for p, v in SANDBOX if employment_types(v, p) == ("other",)} == set()


# ---------------------------------------------------------------- one posting


def test_an_intern_title_makes_a_full_time_posting_an_internship() -> None:
    assert coherent(("full_time",), job_type="intern", seniority=None, extracted=None) == Coherent(
        ("internship",), "intern", "intern"
    )


def test_an_extracted_internship_wins_over_a_stated_full_time() -> None:
    settled = coherent(("full_time",), job_type=None, seniority=None, extracted="internship")
    assert settled == Coherent(("internship",), "intern", "intern")


def test_an_intern_seniority_is_an_internship_and_the_stated_term_stays() -> None:
    settled = coherent(
        ("full_time", "temporary"), job_type=None, seniority="intern", extracted=None
    )
    assert settled == Coherent(("temporary", "internship"), "intern", "intern")


def test_a_co_op_stays_a_co_op_and_a_senior_reading_yields_to_the_title() -> None:
    settled = coherent((), job_type="co-op", seniority="senior", extracted=None)
    assert settled == Coherent(("internship",), "co-op", "intern")


def test_a_stated_internship_settles_a_new_grad_reading() -> None:
    settled = coherent(("internship",), job_type="new_grad", seniority="junior", extracted=None)
    assert settled == Coherent(("internship",), "intern", "intern")


def test_the_stated_type_wins_over_the_description_otherwise() -> None:
    assert coherent(("full_time",), job_type=None, seniority="senior", extracted="contract") == (
        Coherent(("full_time",), None, "senior")
    )


def test_the_extracted_type_fills_in_when_nothing_known_is_stated() -> None:
    assert coherent((), job_type=None, seniority=None, extracted="freelance").employment_type == (
        "contract",
    )
    assert coherent(("other",), job_type=None, seniority=None, extracted="part_time") == Coherent(
        ("part_time",), None, None
    )
    assert coherent((), job_type=None, seniority=None, extracted=None) == Coherent((), None, None)


def test_a_new_grad_title_is_junior_whatever_the_description_reads() -> None:
    settled = coherent(("full_time",), job_type="new_grad", seniority="senior", extracted=None)
    assert settled == Coherent(("full_time",), "new_grad", "junior")
    assert coherent((), job_type="new_grad", seniority=None, extracted=None).seniority is None


@pytest.mark.parametrize("raw", sorted({r for _, r in CASES}))
def test_no_posting_is_both_an_internship_and_something_that_contradicts_it(raw: str) -> None:
    for job_type in (None, "intern", "new_grad", "student", "co-op"):
        for seniority in (None, "intern", "junior", "senior"):
            for extracted in (None, "internship", "full_time", "freelance"):
                stated = employment_types(raw, None)
                c = coherent(stated, job_type=job_type, seniority=seniority, extracted=extracted)
                is_intern = "internship" in c.employment_type
                assert (
                    is_intern == (c.job_type in ("intern", "co-op")) == (c.seniority == "intern")
                ), (raw, job_type, seniority, extracted, c)
                if is_intern:
                    assert not {"full_time", "part_time"} & set(c.employment_type)
                if c.job_type == "new_grad":
                    assert c.seniority in (None, "junior")
