"""How a jobharbor error becomes an Airflow task outcome: a FatalError (bad input, bad
code, a refused backfill) fails the task without retry; everything else keeps the
task's retries (a timeout, a 5xx, a lock held elsewhere may pass on its own).

The failure's message is its first line, cut short (what the UI, the alert and the
log's error line show); a longer message is logged whole in a log group first."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from pipeline.airflow.alerts import headline, log_group, task_failure
from pipeline.errors import FatalError

log = logging.getLogger("jobharbor.airflow")
P = ParamSpec("P")
T = TypeVar("T")


def fatal_without_retry(func: Callable[P, T]) -> Callable[P, T]:
    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return func(*args, **kwargs)
        except FatalError as exc:
            message = f"{type(exc).__name__}: {exc}"
            short = headline(message)
            if short == message:
                raise task_failure(short) from exc
            log_group(log, "the whole error", message.splitlines())
            raise task_failure(short, [message]) from exc

    return wrapper
