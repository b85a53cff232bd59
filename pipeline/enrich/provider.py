"""The provider interface: anything that turns a prompt and a JSON schema into text.

Gemini (google-genai), an OpenAI-compatible server or the rules baseline sit behind
it; the same parsing and evidence checks follow every one of them. A provider does no
retries: it raises ProviderError with the classified failure and the queue decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from pipeline.enrich.policy import Failure


@dataclass(frozen=True)
class Usage:
    prompt: int = 0
    candidates: int = 0
    thoughts: int = 0

    @property
    def total(self) -> int:
        return self.prompt + self.candidates + self.thoughts

    def as_dict(self) -> dict[str, int]:
        return {"prompt": self.prompt, "candidates": self.candidates, "thoughts": self.thoughts}


@dataclass(frozen=True)
class Reply:
    text: str | None
    finish_reason: str | None
    usage: Usage


@dataclass(frozen=True)
class Call:
    system: str
    prompt: str
    schema: dict[str, Any]
    max_output_tokens: int
    temperature: float = 0.0
    postings: tuple[tuple[str, str], ...] = ()  # (posting_id, text): what the prompt holds


class ProviderError(Exception):
    def __init__(self, failure: Failure, usage: Usage | None = None) -> None:
        super().__init__(f"{failure.error_class}: {failure.message}")
        self.failure = failure
        self.usage = usage or Usage()


class Provider(Protocol):
    name: str
    model: str

    def generate(self, call: Call) -> Reply: ...

    def settings(self) -> dict[str, Any]:
        """Generation settings that, with the model, decide the result's content key."""
        ...
