"""Enrichment settings, from the environment (JOBHARBOR_LLM_*). The API key is read
from GEMINI_API_KEY / GOOGLE_API_KEY or the Airflow connection `jobharbor_gemini`
and is held as a secret: it is never logged or printed."""

from __future__ import annotations

import os

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class EnrichSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JOBHARBOR_LLM_", extra="ignore", frozen=True)

    provider: str = "gemini"  # gemini | openai | rules
    model: str = "gemini-2.5-flash"
    base_url: str | None = None  # -> HttpOptions(base_url=...): tests and the sandbox
    api_key: SecretStr | None = Field(default=None, exclude=True)
    group_size: int = Field(default=1, ge=1, le=3)
    max_output_tokens: int = 2048
    temperature: float = 0.0
    timeout_s: float = 60.0
    # Budgets shared by every worker (PostgreSQL), per provider and model.
    rpm: int = 10
    tpm: int = 250_000
    rpd: int = 250
    window_s: float = 60.0
    budget_wait_s: float = 30.0  # how long a pass waits for budget before it stops
    # The queue.
    lease_s: float = 300.0
    max_attempts: int = 5
    backoff_base_s: float = 30.0
    backoff_cap_s: float = 3600.0


def api_key_from_environment() -> SecretStr | None:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        value = os.environ.get(name)
        if value:
            return SecretStr(value)
    return None


def openai_api_key_from_environment() -> SecretStr | None:
    """OPENAI_API_KEY, the name OpenAI-compatible servers' clients read."""
    value = os.environ.get("OPENAI_API_KEY")
    return SecretStr(value) if value else None


def load_enrich_settings(**overrides: object) -> EnrichSettings:
    settings = EnrichSettings(**overrides)  # type: ignore[arg-type]
    if settings.api_key is None:
        key = api_key_from_environment()
        if key is not None:
            settings = settings.model_copy(update={"api_key": key})
    return settings
