"""Which provider a pass uses (JOBHARBOR_LLM_PROVIDER): gemini (default), openai (an
OpenAI-compatible server), rules (no model)."""

from __future__ import annotations

from pipeline.enrich.provider import Provider
from pipeline.enrich.settings import EnrichSettings
from pipeline.errors import ConfigError

PROVIDERS = ("gemini", "openai", "rules")


def make_provider(settings: EnrichSettings, name: str | None = None) -> Provider:
    chosen = name or settings.provider
    if chosen == "gemini":
        from pipeline.enrich.gemini import GeminiProvider

        return GeminiProvider(settings)
    if chosen == "openai":
        from pipeline.enrich.openai_compat import OpenAICompatProvider

        return OpenAICompatProvider(settings)
    if chosen == "rules":
        from pipeline.enrich.rules_provider import RulesProvider

        return RulesProvider()
    raise ConfigError([f"JOBHARBOR_LLM_PROVIDER: {chosen!r} is not one of {', '.join(PROVIDERS)}"])
