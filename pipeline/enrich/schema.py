"""What the model is asked for and how its answer is read.

Each field is `{evidence, value|null}` with evidence first, so a model writes the
words before it commits to a value. A grouped request answers `{"postings": [...]}`
whose `posting_id` is an enum of exactly the ids sent. The answer is read from
`response.text` with pydantic (never the SDK's `.parsed`): structural problems
(invalid JSON, wrong types) fail the member, values the schema forbids but that
are well-typed (an enum outside the list, 55 years) reach the checker, which
rejects them with a stored reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from pipeline.enrich.lexicon import ENUMS

SCHEMA_VERSION = "1"
PROMPT_VERSION = "1"
YEAR_FIELDS = ("experience_min", "experience_max")
ENUM_FIELDS = tuple(ENUMS)
SKILL_FIELDS = ("skills_required", "skills_preferred")
FIELDS = (*YEAR_FIELDS, *ENUM_FIELDS)


class Evidenced(BaseModel):
    model_config = ConfigDict(extra="ignore")
    evidence: str | None = None


class YearsField(Evidenced):
    value: StrictInt | None = None


class EnumField(Evidenced):
    value: str | None = None


class SkillItem(Evidenced):
    value: str | None = None


class Extraction(BaseModel):
    """One posting's answer, as the model wrote it (not yet checked)."""

    model_config = ConfigDict(extra="ignore")
    posting_id: str | None = None
    experience_min: YearsField = Field(default_factory=YearsField)
    experience_max: YearsField = Field(default_factory=YearsField)
    seniority: EnumField = Field(default_factory=EnumField)
    work_mode: EnumField = Field(default_factory=EnumField)
    employment_type: EnumField = Field(default_factory=EnumField)
    education: EnumField = Field(default_factory=EnumField)
    skills_required: list[SkillItem] = Field(default_factory=list)
    skills_preferred: list[SkillItem] = Field(default_factory=list)


class Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    postings: list[Any]


def _field(value_schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "evidence": {
                "type": ["string", "null"],
                "description": "the exact words of the posting that state the value, copied verbatim",
            },
            "value": value_schema,
        },
        "required": ["evidence", "value"],
    }


def _skills() -> dict[str, Any]:
    item = _field({"type": ["string", "null"], "description": "the skill's name"})
    return {"type": "array", "items": item}


def response_schema(posting_ids: Sequence[str]) -> dict[str, Any]:
    """The response_json_schema for one request of these postings."""
    years = {"type": ["integer", "null"], "minimum": 0, "maximum": 40}
    properties: dict[str, Any] = {"posting_id": {"type": "string", "enum": list(posting_ids)}}
    for name in YEAR_FIELDS:
        properties[name] = _field(years)
    for name, values in ENUMS.items():
        properties[name] = _field({"type": ["string", "null"], "enum": [*values, None]})
    for name in SKILL_FIELDS:
        properties[name] = _skills()
    posting = {"type": "object", "properties": properties, "required": list(properties)}
    return {
        "type": "object",
        "properties": {
            "postings": {
                "type": "array",
                "items": posting,
                "minItems": len(posting_ids),
                "maxItems": len(posting_ids),
            }
        },
        "required": ["postings"],
    }


class AnswerError(ValueError):
    """The answer as a whole cannot be read (invalid JSON, no `postings` list)."""


def parse_answer(
    text: str | None, posting_ids: Sequence[str]
) -> tuple[dict[str, Extraction], dict[str, str], int]:
    """(valid members by id, structural errors by id, entries with an id not sent)."""
    if not text or not text.strip():
        raise AnswerError("empty answer: no candidate text")
    try:
        answer = Answer.model_validate(json.loads(text))
    except (json.JSONDecodeError, ValidationError) as exc:
        raise AnswerError(f"the answer is not the requested JSON: {_short(exc)}") from exc
    wanted = set(posting_ids)
    members: dict[str, Extraction] = {}
    errors: dict[str, str] = {}
    stray = 0
    for entry in answer.postings:
        pid = str(entry.get("posting_id")) if isinstance(entry, dict) else None
        if pid not in wanted or pid in members:
            stray += 1
            continue
        try:
            members[pid] = Extraction.model_validate(entry)
            errors.pop(pid, None)
        except ValidationError as exc:
            errors[pid] = f"posting {pid}: {_short(exc)}"
    return members, errors, stray


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:400]
