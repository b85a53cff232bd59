"""The shared parsing rules: job types, dates with precision, remote, salaries,
Vietnamese locations. Tables of inputs and their exact expected readings."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from pathlib import Path

import pytest

from parsers.common import job_type_for, job_type_from_title
from parsers.text import parse_number, parse_posted, parse_salary_text, remote_from_text
from parsers.types import RawOffice
from parsers.vietnam import split_locations

NOW = datetime(2026, 3, 10, 15, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Software Engineering Intern", "intern"),
        ("Internship - Data Science (Summer 2026)", "intern"),
        ("International Sales Manager", None),
        ("Internal Audit Lead", None),
        ("Internet Infrastructure Engineer", None),
        ("Research Intern, Robotics", "intern"),  # first rule that matches wins
        ("Engineering Co-op (Fall 2026)", "co-op"),
        ("Co-op Engineering Student", "co-op"),
        ("Warehouse Associate - Cooper St", None),
        ("Coop Store Manager", None),  # the retailer, not a co-op term
        ("Coop Student - Software", "co-op"),
        ("DFT Engineer - New College Grad", "new_grad"),
        ("Software Engineer, New Grad 2026", "new_grad"),
        ("Graduate Software Engineer", "new_grad"),
        ("2027 EU Campus Programme Talent Community", "new_grad"),
        ("Stručni suradnik - Grad Zagreb", None),  # "grad" is Croatian for city
        ("Grad Zagreb - Referent za nabavu", None),
        ("Werkstudent (m/w/d) Data Engineering", "student"),
        ("Working Student Marketing", "student"),
        ("Student Success Manager", None),
        ("Graduate Student Researcher", "student"),
        ("Research Scientist, LLMs", "research"),
        ("Postdoctoral Researcher", "research"),
        ("UX Researcher", None),
        ("Thực tập sinh Marketing", "intern"),
        ("Senior Backend Engineer", None),
        ("", None),
    ],
)
def test_job_type_rules(title: str, expected: str | None) -> None:
    assert job_type_from_title(title) == expected


def test_employment_type_decides_only_when_the_title_is_silent() -> None:
    assert job_type_for("Media & Channels Trainee", "Intern") == "intern"
    assert job_type_for("Data Engineer", "working_student") == "student"
    assert job_type_for("Research Scientist", "Intern") == "research"  # the title wins
    assert job_type_for("Data Engineer", "Full-time") is None


@pytest.mark.parametrize(
    ("value", "expected", "precision"),
    [
        ("Posted Today", "2026-03-10", "day"),
        ("Posted Yesterday", "2026-03-09", "day"),
        ("Posted 3 Days Ago", "2026-03-07", "day"),
        ("Posted 30+ Days Ago", None, "unknown"),  # never an invented date
        ("Posted\n7 hours ago", "2026-03-10", "day"),
        ("20 hours ago", "2026-03-09", "day"),
        ("2 weeks ago", None, "unknown"),  # too coarse to name a day
        ("1 month ago", None, "unknown"),
        ("hôm nay", "2026-03-10", "day"),
        ("2 ngày trước", "2026-03-08", "day"),
        ("1 tuần trước", None, "unknown"),
        ("Cập nhật 1 tháng trước", None, "unknown"),
        ("2025-10-18", "2025-10-18", "day"),
        ("2026-09-18 12:55:59 UTC", "2026-09-18", "exact"),
        ("2026-07-16T11:55:32-04:00", "2026-07-16", "exact"),
        ("18/10/2025", "2025-10-18", "day"),
        ("05/06/2026", None, "unknown"),  # May or June: unknown, not a guess
        ("soon", None, "unknown"),
        ("", None, "unknown"),
        (None, None, "unknown"),
    ],
)
def test_dates_have_a_precision(value: str | None, expected: str | None, precision: str) -> None:
    parsed, got = parse_posted(value, NOW)
    assert got == precision
    assert (parsed.date().isoformat() if parsed else None) == expected


def test_relative_dates_need_the_fetch_time() -> None:
    assert parse_posted("Posted Today", None) == (None, "unknown")


def test_epoch_milliseconds_are_exact() -> None:
    parsed, precision = parse_posted(1764205361939)
    assert (parsed.isoformat(), precision) == ("2025-11-27T01:02:41.939000+00:00", "exact")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Remote - US", "yes"),
        ("Hybrid - London", "hybrid"),
        ("San Francisco, CA | Remote", "yes"),
        ("At office", "unknown"),  # never "no"
        ("On-site", "unknown"),
        ("Berlin", "unknown"),
        ("Làm việc từ xa", "yes"),
        (None, "unknown"),
    ],
)
def test_remote_is_yes_hybrid_or_unknown(text: str | None, expected: str) -> None:
    assert remote_from_text(text) == expected


@pytest.mark.parametrize(
    ("raw", "low", "high", "currency", "period"),
    [
        ("$65,000—$85,000 USD", 65000, 85000, "USD", None),
        ("15 - 25 triệu", 15e6, 25e6, "VND", None),
        ("Lương: 4,5 Tr - 20 Tr VND", 4.5e6, 20e6, "VND", None),
        ("50.000.000 - 70.000.000 VND", 50e6, 70e6, "VND", None),
        ("Tới 1,000 USD", None, 1000, "USD", None),
        ("Từ 6.6 triệu", 6.6e6, None, "VND", None),
        ("Lên đến 30.000.000 VND", None, 30e6, "VND", None),
        ("27 k - 30 k /giờ", 27000, 30000, None, "hour"),
        ("€50k - €60k per year", 50000, 60000, "EUR", "year"),
        ("Up to $120,000/yr", None, 120000, "USD", "year"),
        ("$290,000", 290000, 290000, "USD", None),
    ],
)
def test_salaries_as_stated(
    raw: str, low: float | None, high: float | None, currency: str | None, period: str | None
) -> None:
    salary = parse_salary_text(raw)
    assert salary is not None
    assert salary.raw == raw
    assert (salary.min, salary.max, salary.currency, salary.period) == (low, high, currency, period)


@pytest.mark.parametrize("raw", ["Thỏa thuận", "Thoả thuận", "Lương: Cạnh tranh", "Negotiable"])
def test_negotiable_keeps_only_the_raw_text(raw: str) -> None:
    salary = parse_salary_text(raw)
    assert salary is not None
    assert (salary.raw, salary.min, salary.max, salary.currency) == (raw, None, None, None)


@pytest.mark.parametrize("raw", ["Sign in to view salary", "", None, "Tới 150 k /sp"])
def test_no_figures_or_unknown_units_are_not_numbers(raw: str | None) -> None:
    salary = parse_salary_text(raw)
    assert salary is None or (salary.min, salary.max) == (None, None)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("65,000", 65000),
        ("50.000.000", 5e7),
        ("4,5", 4.5),
        ("1,000.50", 1000.5),
        ("1.000,50", 1000.5),
        ("10.5", 10.5),
        ("x", None),
    ],
)
def test_numbers(text: str, value: float | None) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize(
    ("text", "regions", "more"),
    [
        ("Hà Nội & 2 nơi khác", ["Hà Nội"], 2),
        ("Hồ Chí Minh & 9 nơi khác", ["Hồ Chí Minh"], 9),
        ("Hà Nội, Hồ Chí Minh", ["Hà Nội", "Hồ Chí Minh"], 0),
        ("Hà Nội Hồ Chí Minh", ["Hà Nội", "Hồ Chí Minh"], 0),  # CareerViet: no separator
        ("Ho Chi Minh - Ha Noi", ["Hồ Chí Minh", "Hà Nội"], 0),  # ITviec
        ("Bà Rịa-Vũng Tàu", ["Bà Rịa - Vũng Tàu"], 0),  # a dash inside one province
        ("Bắc Ninh, Bắc Giang, Hà Nội", ["Bắc Ninh", "Bắc Giang", "Hà Nội"], 0),
        ("TP.HCM", ["Hồ Chí Minh"], 0),
        ("Thanh Hoá", ["Thanh Hóa"], 0),  # old-style tone mark
        ("Ho Chi Minh - Others", ["Hồ Chí Minh"], 1),
    ],
)
def test_vietnamese_locations(text: str, regions: list[str], more: int) -> None:
    split = split_locations(text)
    assert split is not None
    offices, count = split
    assert [o.region for o in offices if o.region] == regions
    assert count == more
    assert all(o.country == "Vietnam" for o in offices if o.region)


def test_unknown_words_stay_as_written() -> None:
    offices, _ = split_locations("Quảng Ninh KV Bắc Trung Bộ")
    assert [(o.text, o.region) for o in offices] == [
        ("Quảng Ninh", "Quảng Ninh"),
        ("KV Bắc Trung Bộ", None),
    ]
    assert split_locations("San Francisco, CA") is None  # not ours to read


# ---------------------------------------------------------------- real scraped values


def _csv(real_dir: Path, name: str) -> list[dict[str, str]]:
    with (real_dir / "locations" / name).open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.real_fixtures
def test_every_real_vietnamese_location_reads(real_dir: Path) -> None:
    rows = _csv(real_dir, "vn-topcv-vietnamworks-careerviet-location-salary-values.csv")
    places = [r["value"] for r in rows if r["field"] == "Nơi làm việc"]
    assert len(places) > 400
    unread = [p for p in places if split_locations(p) is None]
    assert unread == ["Nhật Bản", "Nước Ngoài"]  # Japan, "abroad": not provinces, kept as written
    assert split_locations("Nước Ngoài & 13 nơi khác") == ((RawOffice("Nước Ngoài"),), 13)
    counted = [p for p in places if "nơi khác" in p]
    assert counted
    assert all(split_locations(p)[1] >= 2 for p in counted)


@pytest.mark.real_fixtures
def test_every_real_vietnamese_salary_reads(real_dir: Path) -> None:
    rows = _csv(real_dir, "vn-topcv-vietnamworks-careerviet-location-salary-values.csv")
    salaries = [
        r["value"] for r in rows if r["field"] in ("salary", "Mức lương", "Mức lương (VND)")
    ]
    assert len(salaries) > 500
    parsed = [parse_salary_text(s) for s in salaries]
    assert all(p is not None for p in parsed)  # every one is a salary or "negotiable"
    millions = [p for s, p in zip(salaries, parsed, strict=True) if s.endswith("triệu")]
    stated = [p for p in millions if p.min or p.max]
    assert len(stated) > 400
    assert all(p.currency == "VND" and (p.min or p.max) >= 1e5 for p in stated)
    # "0.0 - 0.0 triệu" is in the data: a placeholder, kept raw, never a salary of zero.
    assert all(p.min is None and p.max is None for p in millions if p not in stated)


@pytest.mark.real_fixtures
def test_every_real_itviec_posted_time_reads(real_dir: Path) -> None:
    rows = _csv(real_dir, "itviec-scraped-location-workmode-postedtime-values.csv")
    for row in rows:
        if row["field"] == "postedTime" and row["value"]:
            assert parse_posted(row["value"], NOW)[1] == "day", row["value"]
        if row["field"] == "location" and row["value"] not in ("", "Others"):
            assert split_locations(row["value"]) is not None, row["value"]
