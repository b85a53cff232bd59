"""Runtime settings, read from the environment only (secrets never live in files).

Every setting has a `JOBHARBOR_` environment variable. Unset database URLs mean the
embedded default: a private PostgreSQL cluster under the data directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_core import PydanticUseDefault
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
# Hosts (`host` or `host:port`) the guarded fetcher may reach; the settings parse it, the
# guard enforces it (pipeline.crawl.http.guard).
Allowlist = frozenset[str]


def parse_allowlist(entries: str | Iterable[str] | None) -> Allowlist | None:
    """`host` or `host:port` entries (comma-separated in a string); None: no allowlist."""
    if entries is None:
        return None
    items = entries.split(",") if isinstance(entries, str) else entries
    return frozenset(e.strip().lower().rstrip(".") for e in items if e.strip())


def _default_data_dir() -> Path:
    return REPO_ROOT / ".data"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="JOBHARBOR_", extra="ignore", frozen=True, populate_by_name=True
    )

    data_dir: Path = Field(default_factory=_default_data_dir)
    sources_file: Path = Field(default=REPO_ROOT / "sources.yaml", alias="JOBHARBOR_SOURCES")

    # None -> embedded cluster under data_dir/pg (databases below are created on demand).
    database_url: SecretStr | None = None
    serving_database_url: SecretStr | None = None
    embedded_pg_port: int | None = None
    # Without a serving URL: `shared` keeps the serving database in the authoritative
    # database's embedded cluster; `separate` starts a second private cluster for it
    # under data_dir/pg-serving (`make demo SERVING=separate`), so the web role and
    # every search run on another server than the pipeline's.
    serving_cluster: Literal["shared", "separate"] = "shared"

    raw_store_url: str | None = None  # file:///abs/path or s3://bucket/prefix
    s3_endpoint: str | None = None  # host:port of MinIO / S3
    s3_access_key: SecretStr | None = None
    s3_secret_key: SecretStr | None = None
    s3_secure: bool = True
    s3_region: str | None = None

    # The crawler refuses private, loopback and link-local targets unless this is set;
    # only the sandbox, the demo and the tests set it.
    allow_private_networks: bool = False
    # Exceptions to the SSRF guard when it is on, as CIDRs (e.g. one internal board).
    allowed_networks: tuple[str, ...] = ()
    # Egress allowlist: when set, the crawler may reach only these hosts (`host` or
    # `host:port`, comma-separated), and any other destination fails loudly before a
    # byte is sent. Tests, the demo and benchmarks set it to the sandbox's address, so
    # a URL built on a real public host can never reach the internet from them.
    egress_allowlist: str | None = None
    contact_url: str = "https://github.com/jobharbor/jobharbor"
    user_agent: str | None = None
    http_timeout_s: float = 20.0
    # Requests in flight per worker (one keep-alive connection each). More is not
    # faster on a fast network: httpx's pool checks every connection per request.
    http_connections: int = 16
    # The largest body (decoded) read from any response, listing or detail: reading is
    # streamed and stops here, so a decompression bomb costs at most this much memory.
    http_max_body_bytes: int = 50 * 1024 * 1024
    # The longest a body may take to arrive: http_timeout_s bounds each read, so a body
    # dripped a byte at a time would otherwise never end.
    http_total_timeout_s: float = 120.0
    # Crawl engine: how long a request may wait for its host's rate budget before the
    # board goes back in the queue; the browser for `transport: browser` sources.
    pacing_max_wait_s: float = 30.0
    # How long a board claim lasts unless its live worker renews it (a third of this):
    # a killed worker's boards are claimed again this long after its last renewal.
    lease_s: float = Field(default=600.0, gt=0)
    # Count-probed platforms (Workday): a full read of a multi-page board at least this
    # often. A removal that an addition balances keeps the count, so this bounds how long
    # it can hide (bench/freshness.py measures it as fresh_close_max_h_count_probe).
    count_probe_full_pass_h: float = Field(default=4.0, gt=0)
    browser_executable: str = "/usr/bin/chromium"
    browser_pages: int = 2

    sandbox_url: str = "http://127.0.0.1:8765"

    # Locations: derived, rebuildable artifacts (the place-name index) live in the cache
    # dir, <data dir>/cache unless set, so throwaway data dirs can share one built index;
    # how many resolved strings are memoized (0: none).
    cache_dir: Path | None = None
    locate_cache: int = Field(default=65536, ge=0)
    # The shared real captures the evaluations and conformance tests read
    # (../shared/fixtures/real beside the checkout unless set).
    real_fixtures: Path | None = None
    # The web role's password, set on the role by `jobharbor db up` (never by hand).
    web_db_password: SecretStr | None = None

    # Serving sync: incremental by default; a full reconcile at least this often (hours,
    # 0 = only when asked or when the last base is in doubt), and how long a closed
    # posting keeps answering "closed on ..." (serving.closed_jobs).
    serving_full_sync_hours: float = Field(default=24.0, ge=0)
    serving_closed_retention_days: int = Field(default=90, ge=1)
    # An asset-triggered or timed sync skips when the last applied sync finished less than
    # this many seconds ago (pipeline/airflow/sync_gate.py); a manual trigger always runs.
    sync_min_interval_s: float = Field(default=300.0, ge=0)

    # Raw cleanup never deletes an object fetched less than this many days ago.
    raw_retention_days: float = Field(default=30.0, ge=0)
    # jobharbor_freshness fails when a source's p95 lag (raw object -> searchable row) or
    # its oldest unpublished posting passes this many seconds.
    freshness_max_lag_s: float = Field(default=6 * 3600.0, gt=0)

    @field_validator("data_dir", "cache_dir", "real_fixtures", mode="before")
    @classmethod
    def _empty_path_is_unset(cls, value: object) -> object:
        # JOBHARBOR_DATA_DIR= means the default, not the current directory.
        if value == "":
            raise PydanticUseDefault
        return value

    @field_validator("locate_cache", mode="before")
    @classmethod
    def _empty_is_off(cls, value: object) -> object:
        return 0 if value == "" else value  # JOBHARBOR_LOCATE_CACHE= turns the memo off

    @property
    def effective_cache_dir(self) -> Path:
        return self.cache_dir or self.data_dir / "cache"

    @property
    def effective_real_fixtures(self) -> Path:
        return self.real_fixtures or (REPO_ROOT.parent / "shared" / "fixtures" / "real")

    @cached_property
    def egress_hosts(self) -> frozenset[str] | None:
        """The parsed allowlist; None when egress is not restricted (production)."""
        return parse_allowlist(self.egress_allowlist)

    @cached_property
    def effective_user_agent(self) -> str:
        return self.user_agent or f"jobharbor/0.1 (+{self.contact_url})"

    @cached_property
    def effective_raw_store_url(self) -> str:
        return self.raw_store_url or (self.data_dir / "raw").resolve().as_uri()

    @property
    def uses_embedded_postgres(self) -> bool:
        return self.database_url is None


def load_settings(**overrides: object) -> Settings:
    return Settings(**overrides)  # type: ignore[arg-type]


def interpolation_environment(settings: Settings | None = None) -> dict[str, str]:
    """What `${VAR}` in sources.yaml is filled from: the process environment, with the
    sandbox's address as these settings give it (the demo's sandbox may run on a port
    the environment does not name)."""
    env = dict(os.environ)
    if settings is not None and "sandbox_url" in settings.model_fields_set:
        env["JOBHARBOR_SANDBOX_URL"] = settings.sandbox_url
    return env
