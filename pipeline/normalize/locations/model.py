"""The result of normalizing one posting's location text."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

REMOTE_VALUES = ("yes", "hybrid", "unknown")


@dataclass(frozen=True, slots=True)
class Office:
    city: str | None
    region: str | None
    country: str | None  # ISO 3166-1 alpha-2
    geonameid: int | None
    # True when the text fits several places (a bare "Paris", a building named
    # like a town): the fields show the likeliest reading, `countries` keeps all.
    ambiguous: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "city": self.city,
            "region": self.region,
            "country": self.country,
            "geonameid": self.geonameid,
            "ambiguous": self.ambiguous,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Office:
        gid = data.get("geonameid")
        return cls(
            city=data.get("city"),
            region=data.get("region"),
            country=data.get("country"),
            geonameid=int(gid) if gid is not None else None,
            ambiguous=bool(data.get("ambiguous", False)),
        )


@dataclass(frozen=True)
class LocationResult:
    input: str
    offices: tuple[Office, ...]
    countries: tuple[str, ...]  # sorted ISO2: every country the posting could be in on the evidence
    remote: str  # "yes" | "hybrid" | "unknown"
    unresolved: tuple[str, ...]  # parts whose place is unknown: the posting could be anywhere
    more_offices: int  # offices the text only counts ("2 Locations"); the detail page names them

    def to_dict(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "offices": [office.to_dict() for office in self.offices],
            "countries": list(self.countries),
            "remote": self.remote,
            "unresolved": list(self.unresolved),
            "more_offices": self.more_offices,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LocationResult:
        remote = data.get("remote") or "unknown"
        return cls(
            input=str(data.get("input") or ""),
            offices=tuple(Office.from_dict(o) for o in data.get("offices") or ()),
            countries=tuple(sorted({str(c) for c in data.get("countries") or ()})),
            remote=remote if remote in REMOTE_VALUES else "unknown",
            unresolved=tuple(str(u) for u in data.get("unresolved") or ()),
            more_offices=int(data.get("more_offices") or 0),
        )

    def could_be_in(self, country: str) -> bool:
        """Could this posting be in `country` (ISO2)? When in doubt, yes.

        Unresolved parts or no country at all mean the evidence is incomplete,
        and an incomplete location never hides a job.
        """
        return bool(self.unresolved) or not self.countries or country.upper() in self.countries
