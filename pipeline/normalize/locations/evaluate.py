"""Measuring `locate` against real location strings (used by the tests and the bench).

The answer key is the Ashby export in the shared real fixtures: each row is an
Ashby `location` string with the postal address the ATS itself stored for the
job. The project never copies those files; they are read from
``<repo>/../shared/fixtures/real`` or ``$JOBHARBOR_REAL_FIXTURES``.

Definitions (docs/locations.md repeats them):
- coverage: share of rows whose result names at least one country;
- country agreement: of the rows where the key names a country and the result
  names at least one, the share whose countries include the key's country;
  `country_exact` is the stricter share whose countries are exactly the key's;
- US recall: of the rows whose key country is the US, the share the result
  still allows in the US (`could_be_in("US")`);
- recall: the same for every key country (the job is not hidden from its own
  country).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.settings import load_settings

from .gazetteer import get_index
from .index import KIND_COUNTRY, KIND_MASK
from .model import LocationResult
from .text import fold

ASHBY_KEY = "locations/ashby-location-vs-postaladdress.csv"


def real_fixtures_dir() -> Path:
    return load_settings().effective_real_fixtures.resolve()


@dataclass(frozen=True)
class KeyRow:
    location: str
    key_country: str | None  # ISO2, or None when the key names no single country
    remote_hint: str | None


def key_country(value: str) -> str | None:
    """The ISO2 code of the answer key's country text; None for "European Union", "Remote", ""."""
    if not value or not value.strip():
        return None
    index = get_index()
    text = value.strip()
    code = index.codes.get(text) if text.isupper() else None
    refs = code.refs if code is not None else index.refs(fold(text))
    codes = {index.countries[r >> 3].code for r in refs if r & KIND_MASK == KIND_COUNTRY}
    return codes.pop() if len(codes) == 1 else None


def read_ashby_key(path: Path | None = None) -> list[KeyRow]:
    path = path or real_fixtures_dir() / ASHBY_KEY
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            KeyRow(
                location=row["location"],
                key_country=key_country(row.get("addressCountry") or ""),
                remote_hint="yes" if row.get("isRemote") == "True" else None,
            )
            for row in csv.DictReader(handle)
        ]


@dataclass
class Scores:
    rows: int = 0
    covered: int = 0
    compared: int = 0
    agreed: int = 0
    exact: int = 0
    us_rows: int = 0
    us_kept: int = 0
    keyed_rows: int = 0
    kept: int = 0
    misses: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)

    def add(self, row: KeyRow, result: LocationResult) -> None:
        self.rows += 1
        self.covered += bool(result.countries)
        key = row.key_country
        if key is None:
            return
        self.keyed_rows += 1
        if result.could_be_in(key):
            self.kept += 1
        else:
            self.misses.append((row.location, key, result.countries))
        if key == "US":
            self.us_rows += 1
            self.us_kept += result.could_be_in("US")
        if result.countries:
            self.compared += 1
            self.agreed += key in result.countries
            self.exact += result.countries == (key,)

    @staticmethod
    def _share(part: int, whole: int) -> float:
        return round(part / whole, 4) if whole else 0.0

    def summary(self) -> dict[str, float | int]:
        return {
            "rows": self.rows,
            "coverage": self._share(self.covered, self.rows),
            "country_agreement": self._share(self.agreed, self.compared),
            "country_exact": self._share(self.exact, self.compared),
            "compared_rows": self.compared,
            "us_recall": self._share(self.us_kept, self.us_rows),
            "us_rows": self.us_rows,
            "recall": self._share(self.kept, self.keyed_rows),
        }


def score_ashby(
    rows: Iterable[KeyRow],
    locate_fn: Callable[..., LocationResult],
) -> Scores:
    scores = Scores()
    for row in rows:
        scores.add(row, locate_fn(row.location, remote_hint=row.remote_hint))
    return scores


def read_column(
    path: Path, column: str, where: Callable[[dict[str, str]], bool] | None = None
) -> list[str]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            row[column]
            for row in csv.DictReader(handle)
            if row.get(column) is not None and (where is None or where(row))
        ]


def other_location_sets(base: Path | None = None) -> dict[str, list[str]]:
    """The other real location strings: Greenhouse/Ashby/Lever mixes, Workday, Vietnamese sites."""
    base = (base or real_fixtures_dir()) / "locations"
    vn = base / "vn-topcv-vietnamworks-careerviet-location-salary-values.csv"
    return {
        "stapply-ats-mix": read_column(
            base / "stapply-ats-location-strings-geocoded.csv", "location"
        ),
        "workday-autodesk": read_column(base / "workday-autodesk-jsonld-locations.csv", "location"),
        "itviec": read_column(
            base / "itviec-scraped-location-workmode-postedtime-values.csv",
            "value",
            lambda row: row["field"] == "location",
        ),
        "vn-sites": read_column(
            vn, "value", lambda row: row["field"] in ("Nơi làm việc", "Địa chỉ cụ thể")
        ),
    }


def resolve_counts(
    strings: Iterable[str], locate_fn: Callable[..., LocationResult]
) -> dict[str, int]:
    """How many strings name a country, and how many are fully resolved (nothing unresolved)."""
    total = named = full = 0
    for text in strings:
        result = locate_fn(text)
        total += 1
        named += bool(result.countries)
        full += bool(result.countries) and not result.unresolved
    return {"strings": total, "name_a_country": named, "fully_resolved": full}
