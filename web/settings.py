"""Web app settings, from `JOBHARBOR_*` environment variables like the rest."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class WebSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JOBHARBOR_", extra="ignore", frozen=True)

    # How the app logs in: a full reader URL, or the serving URL with the web role's
    # password (JOBHARBOR_WEB_DB_PASSWORD); for the embedded cluster, a generated one.
    serving_reader_url: SecretStr | None = None
    web_db_password: SecretStr | None = None
    # Bounded pool: at most this many connections (the role allows 20 in all).
    web_pool_size: int = Field(default=4, ge=1, le=20)
    web_pool_timeout_s: float = 3.0
    # Requests per minute per client IP on the data routes; 0 turns the limit off.
    web_rate_limit_per_minute: int = Field(default=120, ge=0)
    # Typeahead asks once per pause in typing: a budget of its own, per client IP.
    web_suggest_rate_limit_per_minute: int = Field(default=600, ge=0)
    # One facet or stats request gets this budget, shared by its passes; a pass that
    # would run past it says "unavailable" (never a partial count).
    web_facet_budget_ms: int = Field(default=1000, ge=1)
    # Seconds a facet/stats result is reused for the same filters (0 = never).
    web_counts_cache_s: float = Field(default=30.0, ge=0)
    # A facet shows its first values; "Show all" opens the rest, up to web_facet_all.
    web_facet_top: int = Field(default=12, ge=1, le=100)
    web_facet_all: int = Field(default=100, ge=1, le=500)
    web_stats_top: int = Field(default=20, ge=1, le=100)
    # URLs in one sitemap file (the protocol's most); more open jobs make an index of parts.
    web_sitemap_urls: int = Field(default=50_000, ge=2, le=50_000)
