"""What a visitor would find in the published postings, measured.

`jobharbor quality` reads every row of serving.jobs once (a server-side cursor) and
feeds it here: per source and overall, the share of postings with each field a job
seeker looks for known, description lengths, the raw vocabulary values that reach the
facets unmapped, offices listed twice under two spellings, extracted values whose
evidence a reader could not check, and salaries nobody would believe. The figures are
the ones the demo prints at its end; their JSON keys are a contract. The rules are pure
over one row; `read_quality` at the end is the only SQL.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pipeline.db.connect import DictConnection
from pipeline.normalize.employment import VOCABULARY, is_mapped
from pipeline.normalize.salary import PERIODS_PER_YEAR
from serving_sync.evidence import holds, place, served_fields
from serving_sync.text import fold

KNOWN_FIELDS = ("company", "location", "work_mode", "employment_type", "salary", "posted_date")
ENRICHED = ("experience_min", "experience_max", "seniority", "work_mode", "employment_type",
            "education")  # fmt: skip
SKILLS = ("skills_required", "skills_preferred")
# Yearly salaries above these, in these currencies, are not believable for a posting.
YEARLY_CEILING = {"USD": 1_500_000, "EUR": 1_500_000, "GBP": 1_200_000, "CHF": 1_500_000}
INTERN_YEARLY_CEILING = {"USD": 100_000, "EUR": 90_000, "GBP": 80_000, "CHF": 100_000}
_PLACE_KEY = re.compile(r"[\s\-'.]+")


def place_key(name: str) -> str:
    """One spelling of a place name: "Ha Noi", "Hà Nội" and "Hanoi" are one key."""
    return _PLACE_KEY.sub("", fold(name))


def duplicated_places(names: Iterable[str]) -> int:
    """How many of a posting's office names repeat one already listed (by its key)."""
    keys = [place_key(n) for n in names if n]
    return len(keys) - len(set(keys))


def is_known(row: Mapping[str, Any], name: str) -> bool:
    if name == "company":
        return bool((row.get("company") or "").strip())
    if name == "location":
        return bool(row.get("countries"))
    if name == "work_mode":
        return _work_mode(row) != "unknown"
    if name == "employment_type":
        return bool(_employment_types(row))
    if name == "salary":
        return row.get("salary_min") is not None or row.get("salary_max") is not None
    return row.get("posted_at") is not None  # posted_date


def _work_mode(row: Mapping[str, Any]) -> str:
    return str(row.get("work_mode") or "unknown")  # one published value (migration 0015)


def _employment_types(row: Mapping[str, Any]) -> list[str]:
    value = row.get("employment_type")
    if value is None:
        return []
    values = value if isinstance(value, list | tuple) else [value]
    return [str(v) for v in values if v]


def salary_anomaly(row: Mapping[str, Any]) -> str | None:
    """Why a salary is not believable, or None: min above max, nothing or less, a yearly
    figure beyond any posting's, an intern paid like a director."""
    low, high = row.get("salary_min"), row.get("salary_max")
    if low is None and high is None:
        return None
    if low is not None and high is not None and low > high:
        return "salary_min_above_max"
    if min(v for v in (low, high) if v is not None) <= 0:
        return "salary_not_positive"
    currency, period = row.get("salary_currency"), row.get("salary_period")
    per_year = PERIODS_PER_YEAR.get(period or "")
    if currency not in YEARLY_CEILING or per_year is None:
        return None
    yearly = float(max(v for v in (low, high) if v is not None)) * per_year
    if yearly > YEARLY_CEILING[currency]:
        return "salary_beyond_any_posting"
    if row.get("job_type") == "intern" and yearly > INTERN_YEARLY_CEILING[currency]:
        return "intern_salary_of_a_senior"
    return None


def evidence_checks(row: Mapping[str, Any]) -> tuple[int, int]:
    """(values, values a reader can check at their served offsets) of one posting."""
    stored = row.get("enrichment")
    if not isinstance(stored, Mapping):
        return 0, 0
    items = [stored.get(n) for n in ENRICHED] + [i for n in SKILLS for i in stored.get(n) or []]
    items = [i for i in items if isinstance(i, Mapping) and i.get("value") is not None]
    if not items:
        return 0, 0
    fields = served_fields(row)
    valid = sum(1 for item in items if holds(row, place(fields, item).as_dict()))
    return len(items), valid


@dataclass
class _Tally:
    """Counts for one source (or all of them) while the rows stream by."""

    published: int = 0
    known: Counter[str] = field(default_factory=Counter)
    lengths: list[int] = field(default_factory=list)

    def add(self, row: Mapping[str, Any]) -> None:
        self.published += 1
        self.known.update(name for name in KNOWN_FIELDS if is_known(row, name))
        self.lengths.append(len(row.get("description") or ""))

    def summary(self) -> dict[str, Any]:
        shares = {
            f"{name}_known_share": round(self.known[name] / self.published, 4)
            if self.published
            else None
            for name in KNOWN_FIELDS
        }
        return {
            "published": self.published,
            **shares,
            "description_length": _percentiles(self.lengths),
        }


def _percentiles(values: list[int]) -> dict[str, int | None]:
    ordered = sorted(values)
    if not ordered:
        return {"p10": None, "p50": None, "p90": None}
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"p10": pick(0.1), "p50": pick(0.5), "p90": pick(0.9)}


@dataclass
class QualityTally:
    """Feed every published row to `add`, then read `report()`."""

    overall: _Tally = field(default_factory=_Tally)
    sources: dict[str, _Tally] = field(default_factory=dict)
    employment_values: Counter[str] = field(default_factory=Counter)
    unmapped: Counter[str] = field(default_factory=Counter)
    place_duplicates: int = 0
    anomalies: Counter[str] = field(default_factory=Counter)
    anomaly_examples: dict[str, list[int]] = field(default_factory=dict)
    evidence_values: int = 0
    evidence_valid: int = 0

    def add(self, row: Mapping[str, Any]) -> None:
        self.overall.add(row)
        self.sources.setdefault(str(row.get("source")), _Tally()).add(row)
        for value in _employment_types(row):
            self.employment_values[value] += 1
            if value not in VOCABULARY:  # anything else in the facet is a raw spelling
                self.unmapped[f"employment_type: {value}"] += 1
            elif value == "other" and not is_mapped(row.get("employment_type_raw")):
                # A stated value nobody mapped (schema.org's OTHER is stated, and known).
                self.unmapped[f"employment_type: {row['employment_type_raw']}"] += 1
        self.place_duplicates += duplicated_places(row.get("cities") or ())
        self.place_duplicates += duplicated_places(row.get("regions") or ())
        anomaly = salary_anomaly(row)
        if anomaly:
            self.anomalies[anomaly] += 1
            examples = self.anomaly_examples.setdefault(anomaly, [])
            if len(examples) < 5:
                examples.append(int(row.get("id") or 0))
        values, valid = evidence_checks(row)
        self.evidence_values += values
        self.evidence_valid += valid

    def report(self) -> dict[str, Any]:
        overall = self.overall.summary()
        undated = 1 - overall["posted_date_known_share"] if self.overall.published else None
        return {
            "published": self.overall.published,
            "company_known_share": overall["company_known_share"],
            "employment_type_values": len(self.employment_values),
            "unmapped_values": dict(self.unmapped.most_common()),
            "place_duplicates": self.place_duplicates,
            "evidence_offsets_valid_share": round(self.evidence_valid / self.evidence_values, 4)
            if self.evidence_values
            else None,
            "evidence_values": self.evidence_values,
            "undated_share": None if undated is None else round(undated, 4),
            "anomalies": {
                kind: {"count": n, "examples": self.anomaly_examples[kind]}
                for kind, n in self.anomalies.most_common()
            },
            "overall": overall,
            "sources": {name: t.summary() for name, t in sorted(self.sources.items())},
        }


def measure(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    tally = QualityTally()
    for row in rows:
        tally.add(row)
    return tally.report()


def one_line(report: Mapping[str, Any]) -> str:
    """The demo's last line: the figures a visitor's trust rests on."""

    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    overall = report["overall"]
    anomalies = sum(a["count"] for a in report["anomalies"].values())
    return (
        f"quality: {report['published']} published; known: company "
        f"{share(report['company_known_share'])}, location {share(overall['location_known_share'])}, "
        f"work mode {share(overall['work_mode_known_share'])}, employment type "
        f"{share(overall['employment_type_known_share'])}, salary "
        f"{share(overall['salary_known_share'])}, posted date "
        f"{share(overall['posted_date_known_share'])}; {report['employment_type_values']} "
        f"employment types, {sum(report['unmapped_values'].values())} unmapped values, "
        f"{report['place_duplicates']} duplicated places, evidence checkable "
        f"{share(report['evidence_offsets_valid_share'])}, {anomalies} salary anomalies"
    )


_PUBLISHED = """SELECT id, source, company, countries, regions, cities, work_mode,
                       employment_type, employment_type_raw, job_type, salary_min, salary_max, salary_currency,
                       salary_period, posted_at, title, location_text, description, enrichment
                FROM serving.jobs"""
READ_BATCH = 2000  # rows per server-side cursor fetch: the report's memory stays flat


def read_quality(conn: DictConnection) -> dict[str, Any]:
    """The report over every published posting, read once through a server-side cursor."""
    tally = QualityTally()
    with conn.transaction(), conn.cursor(name="quality_published") as cursor:
        cursor.itersize = READ_BATCH
        cursor.execute(_PUBLISHED)
        for row in cursor:
            tally.add(row)
    return tally.report()
