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
    # Loopback unless set.
    host: str = Field(default="127.0.0.1", alias="JOBHARBOR_AIRFLOW_HOST")
    # Airflow's metadata database; the embedded cluster's `airflow` database when unset.
    # It can hold a password: a secret, never logged (only `make up`'s exports print it).
    metadata_url: SecretStr | None = Field(
        default=None, alias="AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"
    )
    # The UI's passwords (pipeline.airflow.auth): for `operator` and `analyst`; each
    # one unset is generated once into DATA_DIR/airflow/passwords.json (0600).
    password: SecretStr | None = Field(default=None, alias="JOBHARBOR_AIRFLOW_PASSWORD")
    analyst_password: SecretStr | None = Field(
        default=None, alias="JOBHARBOR_AIRFLOW_ANALYST_PASSWORD"
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

    def given_passwords(self) -> dict[str, str | None]:
        """The passwords set in the environment, by user name (None: not set)."""
        given = {"operator": self.password, "analyst": self.analyst_password}
        return {name: s.get_secret_value() if s else None for name, s in given.items()}


class AlertSettings(BaseSettings):
    """Where a failed task or a missed deadline is reported (pipeline.airflow.alerts).
    Nothing set: alerts only go to the task log. The Airflow connections
    `jobharbor_alert_smtp` and `jobharbor_alert_webhook`, when defined, win over the
    URLs here (as `jobharbor_db` does for the database). URLs can hold passwords or
    tokens: secrets, never logged."""

    model_config = SettingsConfigDict(
        env_prefix="JOBHARBOR_ALERT_", extra="ignore", frozen=True, populate_by_name=True
    )

    # Comma-separated recipients; e-mail is sent only when this and an SMTP server are set.
    email_to: str = ""
    email_from: str = "jobharbor@localhost"
    # smtp://user:password@host:587 (STARTTLS when the server offers it), smtps:// for
    # TLS from the first byte; no user: no login.
    smtp_url: SecretStr | None = None
    # Receives a JSON POST: {"text": first line, "subject": ..., "detail": ...}; "text"
    # is what Slack- and Mattermost-style incoming webhooks show.
    webhook_url: SecretStr | None = None
    timeout_s: float = Field(default=10.0, gt=0)
    # A run still not finished this many minutes after it was queued raises a deadline
    # alert (source, sync, enrich and operations DAGs). Off (0) unless set: Airflow
    # 3.3.2's `airflow dags test` crashes at the end of a successful run of a DAG that
    # has a deadline (DagRun.update_state reads the deadline as a stored id), and the
    # tests, `make up-check` and operators run DAGs that way.
    deadline_minutes: int = Field(default=0, ge=0)
