"""Salaries made comparable (pipeline.normalize.salary): annualizing by the written
factors, a period read from a figure's size only when it is unmistakably yearly, and
conversion only through the shipped, dated reference rates."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest

from pipeline.normalize import salary
from pipeline.normalize.salary import (
    PERIODS_PER_YEAR,
    ReferenceRates,
    annualized,
    converted,
    reference_rates,
)

RATES = ReferenceRates(date(2026, 10, 30), {"USD": Decimal("1.25"), "GBP": Decimal("0.8")})


@pytest.mark.parametrize(
    ("period", "factor"), [("hour", 2080), ("day", 260), ("week", 52), ("month", 12), ("year", 1)]
)
def test_each_period_is_multiplied_by_its_written_factor(period: str, factor: int) -> None:
    yearly = annualized(Decimal(10), Decimal(20), period, "USD", RATES)
    assert yearly is not None
    assert yearly.basis == "stated"
    assert (yearly.low, yearly.high) == (Decimal(10 * factor), Decimal(20 * factor))
    assert PERIODS_PER_YEAR[period] == factor


def test_the_top_in_euros_uses_the_higher_figure() -> None:
    yearly = annualized(Decimal(50), Decimal(60), "hour", "USD", RATES)
    assert yearly is not None
    assert yearly.top_eur == Decimal(60 * 2080) / Decimal("1.25")
    single = annualized(Decimal(80_000), None, "year", "GBP", RATES)
    assert single is not None
    assert single.high is None
    assert single.top_eur == Decimal(100_000)


def test_a_figure_without_a_period_is_yearly_only_when_yearly_sized() -> None:
    big = annualized(Decimal(65_000), Decimal(85_000), None, "USD", RATES)
    assert big is not None
    assert big.basis == "inferred"
    assert big.high == Decimal(85_000)
    monthly_sized = annualized(Decimal(3_000), Decimal(4_000), None, "USD", RATES)
    assert monthly_sized is None
    # No rate to judge the size by: not annualized, however large the number.
    assert annualized(Decimal(20_000_000), None, None, "VND", RATES) is None


def test_a_salary_with_no_figure_or_an_unknown_period_has_no_yearly_figure() -> None:
    assert annualized(None, None, "year", "USD", RATES) is None
    assert annualized(Decimal(5), None, "shift", "USD", RATES) is None


def test_a_currency_the_rates_lack_keeps_its_yearly_figures_without_euros() -> None:
    yearly = annualized(Decimal(20_000_000), None, "month", "VND", RATES)
    assert yearly is not None
    assert yearly.low == Decimal(240_000_000)
    assert yearly.top_eur is None


def test_conversion_goes_through_the_euro_and_names_the_day() -> None:
    moved = converted(Decimal(100_000), Decimal(125_000), "USD", "GBP", RATES)
    assert moved is not None
    assert (moved.low, moved.high) == (Decimal(64_000), Decimal(80_000))
    assert moved.rates_day == date(2026, 10, 30)
    assert moved.currency == "GBP"


def test_no_conversion_into_the_same_currency_or_without_both_rates() -> None:
    assert converted(Decimal(1), Decimal(2), "USD", "USD", RATES) is None
    assert converted(Decimal(1), Decimal(2), "VND", "USD", RATES) is None
    assert converted(Decimal(1), Decimal(2), "USD", "VND", RATES) is None
    assert converted(None, None, "USD", "GBP", RATES) is None


def test_the_shipped_table_is_one_dated_day_of_ecb_euro_rates() -> None:
    shipped = reference_rates()
    assert shipped.day == date(2026, 10, 30)
    assert shipped.rate("EUR") == 1
    assert shipped.rate("USD") == Decimal("1.1172")
    assert {"USD", "GBP", "CHF", "JPY"} <= set(shipped.per_eur)
    assert all(rate > 0 for rate in shipped.per_eur.values())


def test_a_table_with_another_base_or_a_bad_rate_is_refused(tmp_path, monkeypatch) -> None:
    for body, problem in (
        ({"base": "USD", "date": "2026-10-30", "rates": {}}, "base must be EUR"),
        ({"base": "EUR", "date": "2026-10-30", "rates": {"USD": 0}}, "must be positive"),
    ):
        path = tmp_path / "rates.json"
        path.write_text(json.dumps(body))
        monkeypatch.setattr(salary, "_RATES_FILE", path)
        salary.reference_rates.cache_clear()
        with pytest.raises(ValueError, match=problem):
            salary.reference_rates()
    salary.reference_rates.cache_clear()
