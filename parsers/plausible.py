"""Is a stated salary a plausible pay for its period? A flag, never a correction.

"75–95 USD a year" is almost certainly thousands (or hourly) written loosely; the
figures stay as stated and the posting carries an `implausible_salary` issue, so a
reviewer or the web app can decide. Only figures with a known currency and period
are judged: without them there is nothing to compare.
"""

from __future__ import annotations

from parsers.types import Salary

# Rough units of each currency per US dollar: an order of magnitude is all the
# check needs (bounds below are wide), so these never need updating.
_PER_USD = {
    "USD": 1, "EUR": 1, "GBP": 1, "CHF": 1, "CAD": 1.4, "AUD": 1.5, "NZD": 1.7, "SGD": 1.3,
    "HKD": 7.8, "CNY": 7.2, "TWD": 32, "JPY": 150, "KRW": 1350, "INR": 84, "IDR": 16000,
    "VND": 25000, "PHP": 57, "THB": 35, "MYR": 4.5, "SEK": 10.5, "NOK": 10.5, "DKK": 7,
    "PLN": 4, "CZK": 23, "HUF": 360, "RON": 4.6, "TRY": 33, "ILS": 3.7, "AED": 3.7,
    "ZAR": 18, "BRL": 5, "MXN": 18,
}  # fmt: skip
# (lowest, highest) plausible pay per period, in US dollars.
_BOUNDS = {
    "hour": (1, 2_000),
    "day": (10, 20_000),
    "week": (50, 100_000),
    "month": (150, 500_000),
    "year": (1_000, 10_000_000),
}


def implausible_salary(salary: Salary | None) -> str | None:
    """Why the salary is implausible for its period, or None when it is plausible or
    cannot be judged (no figures, no known currency or period)."""
    if salary is None or salary.period not in _BOUNDS or salary.currency not in _PER_USD:
        return None
    figures = [v for v in (salary.min, salary.max) if v is not None]
    if not figures:
        return None
    low, high = _BOUNDS[salary.period]
    scale = _PER_USD[salary.currency]
    if max(figures) < low * scale:
        return f"{salary.raw!r} is below any plausible pay per {salary.period}"
    if min(figures) > high * scale:
        return f"{salary.raw!r} is above any plausible pay per {salary.period}"
    return None
