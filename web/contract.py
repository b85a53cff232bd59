"""The OpenAPI document as the API's contract. FastAPI writes what the route signatures
declare; this adds what they cannot say, from the same rules the server applies
(serving_sync.value_rules), so that every request the document allows is answered and
every one it refuses is refused:

- each repeated parameter's values: enumerated, patterned or free text, their count and
  length; q and the currency as the server checks them; the opaque cursor's alphabet;
- the one cross-parameter rule (salary_min needs salary_currency), written as the
  exploded object the two parameters are on the wire, with the rule as JSON Schema;
- a query parameter is present or absent, never JSON null: no `anyOf [..., null]`;
- every status each route answers: 404, 410, 422 and 429 with their bodies.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, Field

from serving_sync import search
from serving_sync.value_rules import (
    CONTROL_PATTERN,
    CURRENCY_PATTERN,
    MAX_VALUE_CHARS,
    ValueRule,
    rules,
)

_FREE = {"type": "string", "pattern": CONTROL_PATTERN, "maxLength": MAX_VALUE_CHARS}
REPEATED = ("region", "city", "source", "company", "employment_type", *rules())
SALARY_AMOUNT = {"type": "number", "minimum": 0, "maximum": 10**12}


class Problem(BaseModel):
    detail: str = Field(description="What is missing, e.g. 'no such job'.")


class ClosedJob(BaseModel):
    """A posting that closed recently: when, and why."""

    detail: str = Field(description="'closed'")
    id: int
    source: str
    title: str | None
    company: str | None
    closed_at: str = Field(description="ISO 8601")
    reason: str | None


class TooManyRequests(BaseModel):
    detail: str
    retry_after_s: int = Field(description="Seconds to wait; also the Retry-After header.")


_TOO_MANY = {
    "model": TooManyRequests,
    "description": "Too many requests from this address (also a Retry-After header).",
    "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds."}},
}
# Every API route may answer 429 and 503; the routes name their own 404 and 410.
API_RESPONSES: dict[int | str, dict[str, Any]] = {
    429: _TOO_MANY,
    503: {"model": Problem, "description": "The search database cannot be reached now."},
}
JOB_RESPONSES: dict[int | str, dict[str, Any]] = {
    404: {"model": Problem, "description": "No such posting (never published, or long gone)."},
    410: {"model": ClosedJob, "description": "The posting closed recently."},
}
COMPANY_RESPONSES: dict[int | str, dict[str, Any]] = {
    404: {"model": Problem, "description": "No published company has this slug."},
}


def install(app: FastAPI) -> None:
    app.openapi = lambda: document(app)  # type: ignore[method-assign]


def document(app: FastAPI) -> dict[str, Any]:
    if app.openapi_schema is None:
        doc = get_openapi(
            title=app.title, version=app.version, summary=app.summary, routes=app.routes
        )
        for operation in (op for ops in doc["paths"].values() for op in ops.values()):
            operation["parameters"] = _parameters(operation.get("parameters", []))
        app.openapi_schema = doc
    return app.openapi_schema


def _parameters(parameters: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for parameter in parameters:
        schema = _present_or_absent(parameter["schema"])
        if parameter["in"] == "query":
            schema = {**schema, **_value_schema(parameter["name"], schema)}
        out.append({**parameter, "schema": schema})
    return _salary_object(out)


def _present_or_absent(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf [X, null]` -> X: a query parameter is given or not, never null."""
    options = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
    if len(options) != 1:
        return schema
    kept = {k: v for k, v in schema.items() if k != "anyOf"}
    return {**kept, **options[0]}


def _value_schema(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    if name in REPEATED:
        allowed = rules().get(name, ValueRule())
        return {"type": "array", "items": _item(allowed), "maxItems": allowed.max_items}
    if name == "q":
        # The list's q holds 200 characters, the typeahead's fewer (its own maxLength).
        return {
            "maxLength": schema.get("maxLength", search.MAX_Q_CHARS),
            "pattern": CONTROL_PATTERN,
        }
    if name == "cursor":
        return {
            "maxLength": search.MAX_CURSOR_CHARS,
            "pattern": "^[A-Za-z0-9_-]*$",
            "description": "Opaque: only a next_cursor or previous_cursor the API gave, "
            "with the same sort; any other value is a 422.",
        }
    return {}


def _item(allowed: ValueRule) -> dict[str, Any]:
    """One value: the rule's, or empty (ignored, as forms send them)."""
    if allowed.values is not None:
        return {"type": "string", "enum": ["", *allowed.values]}
    if allowed.pattern is not None:
        return {"type": "string", "pattern": f"^(|{allowed.pattern[1:-1]})$"}
    return _FREE


def _salary_object(parameters: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """salary_min and salary_currency as the one exploded object they are on the wire
    (?salary_min=50000&salary_currency=EUR), so the schema can say that an amount needs
    its currency; a currency alone only shows salaries in it."""
    names = {p["name"] for p in parameters}
    if not {"salary_min", "salary_currency"} <= names:
        return parameters
    currency = {"type": "string", "pattern": f"^({CURRENCY_PATTERN[1:-1]})?$"}
    salary = {
        "name": "salary",
        "in": "query",
        "required": False,
        "style": "form",
        "explode": True,
        "description": "salary_min (in salary_currency, compared with the yearly "
        "salary) needs salary_currency (ISO 4217, e.g. EUR); salary_currency alone "
        "converts the shown salaries.",
        "example": {"salary_currency": "EUR"},
        "schema": {
            "type": "object",
            "properties": {"salary_min": SALARY_AMOUNT, "salary_currency": currency},
            "additionalProperties": False,
            "anyOf": [
                {
                    "required": ["salary_min", "salary_currency"],
                    "properties": {"salary_currency": {"pattern": CURRENCY_PATTERN}},
                },
                {"properties": {"salary_min": False}},
            ],
        },
    }
    kept = [p for p in parameters if p["name"] not in ("salary_min", "salary_currency")]
    return [*kept, salary]
