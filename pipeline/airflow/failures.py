"""How a jobharbor error becomes an Airflow task outcome: a FatalError (bad input, bad
code, a refused backfill) fails the task without retry; everything else keeps the
task's retries (a timeout, a 5xx, a lock held elsewhere may pass on its own)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from pipeline.errors import FatalError

P = ParamSpec("P")
T = TypeVar("T")


def fatal_without_retry(func: Callable[P, T]) -> Callable[P, T]:
    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return func(*args, **kwargs)
        except FatalError as exc:
            from airflow.exceptions import AirflowFailException

            raise AirflowFailException(f"{type(exc).__name__}: {exc}") from exc

    return wrapper
