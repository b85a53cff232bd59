"""salary_min compares yearly figures (docs/data-model.md, "Salary"), on the real serving
database as the web role: an hourly rate by its year, a salary in another currency
through the dated reference rates (and the item says which day's), a currency the rates
lack only with itself, and a salary that cannot be annualized with no amount."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import psycopg
import pytest

from serving_sync import search
from serving_sync.search import Filters, SearchRequest
from tests.serving.conftest import insert_jobs, job_row

PAID = {
    # 50 USD an hour: 104,000 USD a year.
    2001: {"salary_min": Decimal(45), "salary_max": Decimal(50), "salary_period": "hour",
           "salary_currency": "USD"},
    # 90,000 EUR a year: 100,548 USD at 1.1172 USD per euro.
    2002: {"salary_min": Decimal(80_000), "salary_max": Decimal(90_000),
           "salary_period": "year", "salary_currency": "EUR"},
    # 40,000,000 VND a month: no rate for VND, so only comparable in VND.
    2003: {"salary_min": Decimal(30_000_000), "salary_max": Decimal(40_000_000),
           "salary_period": "month", "salary_currency": "VND"},
    # No period, yearly-sized: read as 85,000 USD a year.
    2004: {"salary_min": Decimal(65_000), "salary_max": Decimal(85_000),
           "salary_period": None, "salary_currency": "USD"},
    # No period, monthly-sized: not annualized, so it reaches no amount.
    2005: {"salary_min": Decimal(3_000), "salary_max": Decimal(4_000),
           "salary_period": None, "salary_currency": "USD"},
}  # fmt: skip


@pytest.fixture
def paid(seeded: list[dict[str, Any]], serving) -> None:
    with psycopg.connect(serving.url) as owner:
        owner.execute("DELETE FROM serving.jobs")  # only the postings above
        insert_jobs(owner, [job_row(i - 1000, id=i, **values) for i, values in PAID.items()])


def _ids(conn: psycopg.Connection, amount: int, currency: str) -> set[int]:
    request = SearchRequest(Filters(salary_min=Decimal(amount), salary_currency=currency))
    return {item["id"] for item in search.search(conn, request).items}


@pytest.mark.parametrize(
    ("amount", "currency", "expected"),
    [
        (100_000, "USD", {2001, 2002}),  # the hourly rate by its year; euros converted
        (105_000, "USD", set()),  # 104,000 and 100,548 both fall short
        (85_000, "USD", {2001, 2002, 2004}),  # the inferred yearly figure counts
        (90_000, "EUR", {2001, 2002}),  # 104,000 USD is 93,090 EUR
        (400_000_000, "VND", {2003}),  # 480,000,000 a year, compared only in VND
        (1, "VND", {2003}),  # no rate for VND: nothing in another currency compares
        (1, "JPY", {2001, 2002, 2004}),  # a rated currency: every rated yearly salary
    ],
)
def test_salary_min_compares_yearly_figures_across_currencies_only_through_the_rates(
    paid, web_conn, amount, currency, expected
) -> None:
    assert _ids(web_conn, amount, currency) == expected


def test_an_item_in_another_currency_carries_the_converted_figure_and_the_rates_day(
    paid, web_conn
) -> None:
    request = SearchRequest(Filters(salary_min=Decimal(1), salary_currency="USD"))
    items = {item["id"]: item for item in search.search(web_conn, request).items}
    euro = items[2002]
    assert euro["salary_year_min"] == Decimal(80_000)
    assert euro["salary_year_converted"] == {
        "currency": "USD",
        "min": Decimal(89_376),
        "max": Decimal(100_548),
        "reference_rates_of": "2026-10-30",
    }
    assert items[2001]["salary_year_converted"] is None  # already in USD
    assert (items[2001]["salary_year_min"], items[2001]["salary_year_max"]) == (93_600, 104_000)
    assert items[2004]["salary_year_basis"] == "inferred"
