"""Which provider a pass uses (JOBHARBOR_LLM_PROVIDER): gemini (default), openai (an
OpenAI-compatible server), rules (no model)."""

from __future__ import annotations

from pipeline.enrich.gemini import GeminiProvider
from pipeline.enrich.openai_compat import OpenAICompatProvider
from pipeline.enrich.provider import Provider
from pipeline.enrich.rules_provider import RulesProvider
from pipeline.enrich.settings import EnrichSettings
from pipeline.errors import ConfigError

PROVIDERS = ("gemini", "openai", "rules")


def make_provider(settings: EnrichSettings, name: str | None = None) -> Provider:
    chosen = name or settings.provider
    if chosen == "gemini":
        return GeminiProvider(settings)
    if chosen == "openai":
        return OpenAICompatProvider(settings)
    if chosen == "rules":
        return RulesProvider()
    raise ConfigError([f"JOBHARBOR_LLM_PROVIDER: {chosen!r} is not one of {', '.join(PROVIDERS)}"])
