"""How a page states a posting's date (web.present.date_shown) and its yearly or converted
salary, and what a cursor into the unknown-age tail of "newest first" carries. Pure: no
database."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from serving_sync import search
from serving_sync.dates import DateKind, date_kind
from serving_sync.search import Cursor, InvalidParameter
from web.present import (
    date_shown,
    posted_text,
    relative_age,
    salary_converted_text,
    salary_year_text,
)

NOW = datetime(2026, 12, 3, 15, 0, tzinfo=UTC)


def test_a_stated_date_wins_else_first_seen_when_the_age_is_known() -> None:
    assert date_kind(NOW, age_known=False) is DateKind.POSTED
    assert date_kind(None, age_known=True) is DateKind.FIRST_SEEN
    assert date_kind(None, age_known=False) is DateKind.LISTED_SINCE


@pytest.mark.parametrize(
    ("ago", "said"),
    [
        (timedelta(hours=3), "today"),
        (timedelta(hours=16), "yesterday"),  # the day before, in UTC
        (timedelta(days=3), "3 days ago"),
        (timedelta(days=13), "13 days ago"),
        (timedelta(days=14), "2 weeks ago"),
        (timedelta(days=59), "8 weeks ago"),
        (timedelta(days=60), "2 months ago"),
        (timedelta(days=400), "13 months ago"),
        (timedelta(days=800), "2 years ago"),
    ],
)
def test_relative_age_says_the_unit_a_reader_would(ago: timedelta, said: str) -> None:
    assert relative_age(NOW - ago, NOW) == said


def _job(**values: object) -> dict[str, object]:
    base = {"posted_at": None, "posted_precision": "unknown", "age_known": True}
    return {**base, "first_seen_at": NOW - timedelta(days=2), **values}


def test_each_kind_of_date_reads_as_what_it_is() -> None:
    posted = _job(posted_at=datetime(2026, 11, 30, 9, 30, tzinfo=UTC), posted_precision="day")
    assert posted_text(posted, NOW) == "posted 3 days ago (30 Nov 2026)"
    exact = _job(posted_at=datetime(2026, 11, 30, 9, 30, tzinfo=UTC), posted_precision="exact")
    assert posted_text(exact, NOW) == "posted 3 days ago (30 Nov 2026 09:30 UTC)"
    assert posted_text(_job(), NOW) == "first seen 2 days ago (1 Dec 2026)"
    unknown = _job(age_known=False)
    assert posted_text(unknown, NOW) == "listed since 1 Dec 2026"
    shown = date_shown(unknown, NOW)
    assert shown.relative == ""
    assert shown.iso.startswith("2026-12-01")


def test_a_cursor_after_a_posting_of_unknown_age_round_trips() -> None:
    cursor = Cursor("newest", 42, None)
    text = search.encode_cursor(cursor)
    assert search.decode_cursor(text) == cursor
    dated = Cursor("newest", 42, NOW)
    assert search.decode_cursor(search.encode_cursor(dated)) == dated


def test_a_newest_cursor_without_a_date_or_the_unknown_age_mark_is_malformed() -> None:
    bare = base64.urlsafe_b64encode(b'{"s":"newest","i":42}').decode().rstrip("=")
    with pytest.raises(InvalidParameter, match="cursor"):
        search.decode_cursor(bare)


def _paid(**values: object) -> dict[str, object]:
    base = {"salary_currency": "USD", "salary_period": "hour", "salary_year_basis": "stated"}
    return {
        **base,
        "salary_year_min": Decimal(93_600),
        "salary_year_max": Decimal(104_000),
        **values,
    }


def test_the_yearly_figure_is_shown_beside_a_rate_and_for_a_period_read_from_its_size() -> None:
    assert salary_year_text(_paid()) == "about 93,600–104,000 USD a year"
    assert salary_year_text(_paid(salary_period="year")) == ""  # it says so already
    inferred = _paid(salary_period=None, salary_year_basis="inferred")
    assert salary_year_text(inferred) == "no period stated: read as yearly from its size"
    assert salary_year_text(_paid(salary_year_min=None, salary_year_max=None)) == ""


def test_a_converted_salary_names_the_day_of_its_rates() -> None:
    job = {"salary_year_converted": {"currency": "GBP", "min": Decimal(72_394),
                                     "max": Decimal(82_843), "reference_rates_of": "2026-10-30"}}  # fmt: skip
    assert salary_converted_text(job) == (
        "≈ 72,394–82,843 GBP a year (ECB reference rates of 30 Oct 2026)"
    )
    assert salary_converted_text({"salary_year_converted": None}) == ""
