"""The task's own check of a DAG run's numeric Params against the bounds their schemas
declare. Airflow refuses a value outside them before a run starts; one that reaches a
task anyway (a run made by an older version of the DAG, a direct call) fails it with a
clear error instead of being clamped or used."""

from __future__ import annotations

from collections.abc import Mapping

from pipeline.errors import FatalError

Bounds = Mapping[str, tuple[int, int | None]]  # Param name -> (minimum, maximum or None)


class ParamOutOfRange(FatalError):
    """A Param's value is outside the bounds its DAG declares: nothing was done."""


def _shown_range(low: int, high: int | None) -> str:
    return f"{low:,}..{high:,}" if high is not None else f"at least {low:,}"


def out_of_range(params: Mapping[str, object], bounds: Bounds) -> list[str]:
    """Each given Param outside its bounds, as `limit=100000 (allowed: 1..50,000)`."""
    problems = []
    for name, (low, high) in bounds.items():
        value = params.get(name)
        if value is None:
            continue  # absent: the DAG's default or the task's own applies
        number = int(value)  # type: ignore[call-overload]
        if number < low or (high is not None and number > high):
            problems.append(f"{name}={number} (allowed: {_shown_range(low, high)})")
    return problems


def refuse_out_of_range(params: Mapping[str, object], bounds: Bounds) -> None:
    problems = out_of_range(params, bounds)
    if problems:
        raise ParamOutOfRange(
            "refused, nothing done: " + "; ".join(problems) + " (values are never clamped)"
        )
