"""The settings `make up` runs Airflow with: where its API server listens and where its
metadata lives. The names are Airflow's and the launcher's own (no JOBHARBOR_ prefix for
Airflow's), kept as they have always been documented."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class AirflowSettings(BaseSettings):
    model_config = SettingsConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    port: str = Field(default="8080", alias="AIRFLOW_PORT")
    # Loopback unless set: the local UI needs no login.
    host: str = Field(default="127.0.0.1", alias="JOBHARBOR_AIRFLOW_HOST")
    # Airflow's metadata database; the embedded cluster's `airflow` database when unset.
    # It can hold a password: a secret, never logged (only `make up`'s exports print it).
    metadata_url: SecretStr | None = Field(
        default=None, alias="AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"
    )
    # `make up EXECUTOR=celery`: Celery workers with Redis as the broker
    # (pipeline.airflow.workers); the LocalExecutor otherwise.
    executor: Literal["local", "celery"] = Field(
        default="local", alias="JOBHARBOR_AIRFLOW_EXECUTOR"
    )
    celery_concurrency: int = Field(default=2, ge=1, alias="JOBHARBOR_CELERY_CONCURRENCY")
    # Redis binds 127.0.0.1 on this port (a free one, kept in DATA_DIR/redis/port, when
    # unset) and requires this password (generated into DATA_DIR/redis/password when unset).
    redis_port: int | None = Field(default=None, alias="JOBHARBOR_REDIS_PORT")
    redis_password: SecretStr | None = Field(default=None, alias="JOBHARBOR_REDIS_PASSWORD")
    # The sources file the DAGs and tasks of `make up` use; sandbox/sources.yaml when unset
    # (`make up-check EXECUTOR=celery` sets one with a tighter budget).
    sources: Path | None = Field(default=None, alias="JOBHARBOR_AIRFLOW_SOURCES")
