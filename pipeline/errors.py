"""Every error the pipeline raises on purpose, and the one place that decides
whether a failure is worth retrying.

Retriable errors are conditions of the world (a host timed out, said "slow down",
answered 5xx): trying later can succeed. Fatal errors are our own or the input's
(a broken sources.yaml, a parser that cannot exist): retrying repeats them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class JobharborError(Exception):
    """Base of all deliberate errors; carries context for the operator."""

    def __init__(self, message: str, **context: object) -> None:
        super().__init__(message)
        self.message = message
        self.context = {k: v for k, v in context.items() if v is not None}

    def __str__(self) -> str:
        if not self.context:
            return self.message
        details = ", ".join(f"{k}={v}" for k, v in self.context.items())
        return f"{self.message} ({details})"


class FatalError(JobharborError):
    """Retrying cannot help: fix the input or the code."""


class RetriableError(JobharborError):
    """A transient condition: the same work may succeed later."""


class ConfigError(FatalError):
    """sources.yaml or settings are invalid. Lists every problem found."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


class RawIntegrityError(FatalError):
    """A stored raw object is missing or does not match its recorded length/SHA-256."""


class BlockedAddressError(FatalError):
    """A URL (or a redirect hop) resolves to an address the SSRF guard refuses."""


class EgressRefusedError(BlockedAddressError):
    """A destination outside the egress allowlist (settings.egress_allowlist): tests,
    the demo and benchmarks may reach only the sandbox and hosts they name."""


class LockNotAcquired(RetriableError):
    """Another run holds the advisory lock for this phase and source."""


class FetchError(RetriableError):
    """The network failed before we had a response (DNS, connect, timeout)."""


@dataclass(frozen=True)
class FailureClass:
    retriable: bool
    reason: str
    details: dict[str, object] = field(default_factory=dict)


RETRIABLE_HTTP_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})


def classify_http_status(status: int) -> FailureClass:
    """Whether a non-success HTTP status is worth retrying later."""
    if status in RETRIABLE_HTTP_STATUSES:
        return FailureClass(retriable=True, reason=f"http_{status}")
    return FailureClass(retriable=False, reason=f"http_{status}")


def classify_exception(exc: BaseException) -> FailureClass:
    if isinstance(exc, RetriableError):
        return FailureClass(retriable=True, reason=type(exc).__name__, details=exc.context)
    if isinstance(exc, JobharborError):
        return FailureClass(retriable=False, reason=type(exc).__name__, details=exc.context)
    # Unknown exceptions are bugs: not retriable, so they surface instead of looping.
    return FailureClass(retriable=False, reason=type(exc).__name__)
