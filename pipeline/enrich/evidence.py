"""The evidence checker (pure): a value stands only on the posting's own words.

Every non-null value needs an excerpt found exactly in the normalised posting text
(after the same normalisation of the excerpt); its `[start, end)` offsets are where
it was found. The value must agree with its excerpt: years are read back from the
excerpt ("5+ years" -> min 5), an enum value needs a word of its lexicon, a skill
one of its key's aliases. Anything else is rejected with a reason, never repaired.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.enrich.catalog import SkillCatalog
from pipeline.enrich.lexicon import ENUMS, read_years, supports
from pipeline.enrich.schema import ENUM_FIELDS, SKILL_FIELDS, Extraction, SkillItem
from pipeline.enrich.text import normalize_excerpt

MAX_YEARS = 40
REASONS = (
    "no_evidence",
    "excerpt_not_found",
    "excerpt_does_not_support",
    "value_outside_schema",
    "out_of_range",
    "min_greater_than_max",
)


@dataclass(frozen=True)
class Value:
    value: Any
    evidence: str
    start: int
    end: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "evidence": self.evidence,
            "start": self.start,
            "end": self.end,
        }


@dataclass(frozen=True)
class SkillValue(Value):
    key: str | None = None  # None: unmapped (the catalogue lacks it)

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, **super().as_dict()}


@dataclass(frozen=True)
class Rejection:
    field: str
    value: Any
    evidence: str | None
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "value": self.value,
            "evidence": self.evidence,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Checked:
    """What survives the checker for one posting, and what it refused."""

    values: dict[str, Value] = field(default_factory=dict)
    skills: dict[str, tuple[SkillValue, ...]] = field(default_factory=dict)
    unmapped: tuple[SkillValue, ...] = ()
    rejected: tuple[Rejection, ...] = ()

    @property
    def any_rejected(self) -> bool:
        return bool(self.rejected)


def locate(flat_text: str, excerpt: str | None) -> tuple[int, int] | None:
    """The excerpt's offsets in the (flat) normalised text: exact, first occurrence."""
    if not excerpt:
        return None
    needle = normalize_excerpt(excerpt)
    if not needle:
        return None
    start = flat_text.find(needle)
    return None if start < 0 else (start, start + len(needle))


class Checker:
    def __init__(self, catalog: SkillCatalog) -> None:
        self.catalog = catalog

    def check(self, flat_text: str, answer: Extraction) -> Checked:
        values: dict[str, Value] = {}
        rejected: list[Rejection] = []
        for name in ("experience_min", "experience_max"):
            self._years(flat_text, name, getattr(answer, name), values, rejected)
        self._bounds(values, rejected)
        for name in ENUM_FIELDS:
            self._enum(flat_text, name, getattr(answer, name), values, rejected)
        skills: dict[str, tuple[SkillValue, ...]] = {}
        unmapped: list[SkillValue] = []
        for name in SKILL_FIELDS:
            skills[name] = self._skills(flat_text, name, getattr(answer, name), unmapped, rejected)
        return Checked(values, skills, tuple(unmapped), tuple(rejected))

    # ---- fields

    def _evidence(
        self, flat_text: str, name: str, value: Any, excerpt: str | None, rejected: list[Rejection]
    ) -> tuple[int, int] | None:
        if not excerpt or not excerpt.strip():
            rejected.append(Rejection(name, value, excerpt, "no_evidence"))
            return None
        span = locate(flat_text, excerpt)
        if span is None:
            rejected.append(Rejection(name, value, excerpt, "excerpt_not_found"))
        return span

    def _years(self, text: str, name: str, answer: Any, values: dict, rejected: list) -> None:
        value = answer.value
        if value is None:
            return
        if not 0 <= value <= MAX_YEARS:
            rejected.append(Rejection(name, value, answer.evidence, "out_of_range"))
            return
        span = self._evidence(text, name, value, answer.evidence, rejected)
        if span is None:
            return
        excerpt = text[span[0] : span[1]]
        read = read_years(excerpt)
        stated = (
            None if read is None else (read.minimum if name == "experience_min" else read.maximum)
        )
        if stated != value:
            rejected.append(Rejection(name, value, answer.evidence, "excerpt_does_not_support"))
            return
        values[name] = Value(value, excerpt, *span)

    @staticmethod
    def _bounds(values: dict[str, Value], rejected: list[Rejection]) -> None:
        low, high = values.get("experience_min"), values.get("experience_max")
        if low is not None and high is not None and low.value > high.value:
            for name, item in (("experience_min", low), ("experience_max", high)):
                rejected.append(Rejection(name, item.value, item.evidence, "min_greater_than_max"))
                del values[name]

    def _enum(self, text: str, name: str, answer: Any, values: dict, rejected: list) -> None:
        value = answer.value
        if value is None:
            return
        if value not in ENUMS[name]:
            rejected.append(Rejection(name, value, answer.evidence, "value_outside_schema"))
            return
        span = self._evidence(text, name, value, answer.evidence, rejected)
        if span is None:
            return
        excerpt = text[span[0] : span[1]]
        if not supports(name, value, excerpt):
            rejected.append(Rejection(name, value, answer.evidence, "excerpt_does_not_support"))
            return
        values[name] = Value(value, excerpt, *span)

    def _skills(
        self,
        text: str,
        name: str,
        items: list[SkillItem],
        unmapped: list[SkillValue],
        rejected: list[Rejection],
    ) -> tuple[SkillValue, ...]:
        kept: dict[str, SkillValue] = {}
        for item in items:
            label = (item.value or "").strip()
            if not label:
                continue
            span = self._evidence(text, name, label, item.evidence, rejected)
            if span is None:
                continue
            excerpt = text[span[0] : span[1]]
            key = self.catalog.key_for_label(label)
            if key is None:
                # Kept with its evidence and counted; never invented into a key.
                unmapped.append(SkillValue(label, excerpt, *span, key=None))
                continue
            if not self.catalog.excerpt_supports(key, excerpt):
                rejected.append(Rejection(name, label, item.evidence, "excerpt_does_not_support"))
                continue
            kept.setdefault(key, SkillValue(label, excerpt, *span, key=key))
        return tuple(kept.values())
