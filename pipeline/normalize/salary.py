"""Salaries a reader can compare (docs/data-model.md, "Salary"): the stated figures
annualized in their own currency, and, across currencies, only through one dated table
of reference rates shipped with the code (reference_rates.json: the European Central
Bank's euro reference rates of one stated day). Pure, apart from reading that file once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cache
from pathlib import Path

# Working time a year, written down: 40 h x 52 weeks; 5 days x 52 weeks.
PERIODS_PER_YEAR: dict[str, int] = {"year": 1, "month": 12, "week": 52, "day": 260, "hour": 2080}
# A figure with no period reads as yearly only when it is at least this much in euros:
# no monthly pay in the table's currencies comes near it, and every yearly pay does.
# Below it (or in a currency the table lacks) the period stays unknown: not annualized.
YEARLY_FLOOR_EUR = Decimal(12_000)
_RATES_FILE = Path(__file__).with_name("reference_rates.json")


@dataclass(frozen=True)
class ReferenceRates:
    """Units of each currency per 1 EUR on `day`."""

    day: date
    per_eur: dict[str, Decimal]

    def to_eur(self, amount: Decimal, currency: str | None) -> Decimal | None:
        rate = self.rate(currency)
        return None if rate is None else amount / rate

    def convert(self, amount: Decimal, source: str | None, target: str | None) -> Decimal | None:
        """`amount` of `source` in `target`, or None when the table lacks either."""
        in_eur = self.to_eur(amount, source)
        rate = self.rate(target)
        return None if in_eur is None or rate is None else in_eur * rate

    def rate(self, currency: str | None) -> Decimal | None:
        if currency == "EUR":
            return Decimal(1)
        return self.per_eur.get(currency or "")


@cache
def reference_rates() -> ReferenceRates:
    raw = json.loads(_RATES_FILE.read_text(encoding="utf-8"))
    if raw.get("base") != "EUR":
        raise ValueError(f"{_RATES_FILE}: base must be EUR, not {raw.get('base')!r}")
    rates = {code: Decimal(str(value)) for code, value in raw["rates"].items()}
    if any(value <= 0 for value in rates.values()):
        raise ValueError(f"{_RATES_FILE}: every rate must be positive")
    return ReferenceRates(date.fromisoformat(raw["date"]), rates)


@dataclass(frozen=True)
class YearlySalary:
    """A salary as yearly figures in its stated currency, and how its period was known."""

    low: Decimal | None
    high: Decimal | None
    basis: str  # "stated": the posting's own period; "inferred": no period, yearly-sized
    top_eur: Decimal | None  # the higher figure in euros (None: no rate for the currency)


def annualized(
    low: Decimal | None,
    high: Decimal | None,
    period: str | None,
    currency: str | None,
    rates: ReferenceRates | None = None,
) -> YearlySalary | None:
    """The yearly range, or None: no figure, a period we cannot count, or no period on a
    figure too small (or in a currency too unknown) to be sure it is yearly."""
    if low is None and high is None:
        return None
    rates = rates or reference_rates()
    top = high if high is not None else low
    assert top is not None
    if period in PERIODS_PER_YEAR:
        factor, basis = PERIODS_PER_YEAR[period], "stated"
    elif period is None and _yearly_sized(top, currency, rates):
        factor, basis = 1, "inferred"
    else:
        return None
    scale = Decimal(factor)
    year_top = top * scale
    in_eur = rates.to_eur(year_top, currency)
    return YearlySalary(
        low=None if low is None else low * scale,
        high=None if high is None else high * scale,
        basis=basis,
        top_eur=None if in_eur is None else in_eur.quantize(Decimal(1)),
    )


def _yearly_sized(amount: Decimal, currency: str | None, rates: ReferenceRates) -> bool:
    in_eur = rates.to_eur(amount, currency)
    return in_eur is not None and in_eur >= YEARLY_FLOOR_EUR


@dataclass(frozen=True)
class ConvertedSalary:
    """Yearly figures in another currency, at the reference rates of `rates_day`."""

    currency: str
    low: Decimal | None
    high: Decimal | None
    rates_day: date


def converted(
    low: Decimal | None,
    high: Decimal | None,
    source: str | None,
    target: str,
    rates: ReferenceRates | None = None,
) -> ConvertedSalary | None:
    """Yearly figures of `source` in `target`, rounded to whole units; None when they
    are already in it, or the table lacks either currency (never a silent guess)."""
    rates = rates or reference_rates()
    if source == target or (low is None and high is None):
        return None
    if rates.rate(source) is None or rates.rate(target) is None:
        return None

    def move(value: Decimal | None) -> Decimal | None:
        if value is None:
            return None
        result = rates.convert(value, source, target)
        return None if result is None else result.quantize(Decimal(1))

    return ConvertedSalary(target, move(low), move(high), rates.day)
