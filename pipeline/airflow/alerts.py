"""Failures that read well and reach someone.

A failed task or a missed deadline becomes an `Alert`: one short line saying what and
where (`jobharbor_freshness.freshness failed: freshness: 2 sources stale ...`), then the
detail. It always goes to the task log; it is also e-mailed and/or posted to a webhook
when AlertSettings (JOBHARBOR_ALERT_*, or the Airflow connections `jobharbor_alert_smtp`
and `jobharbor_alert_webhook`) say where. A delivery that fails is logged and never
raised: the callback must not hide the failure it reports. Secrets (SMTP password,
webhook token) are never logged, not even inside an error message.

Long detail goes in a log group (`::group::` ... `::endgroup::`), which the Airflow UI
shows folded under its title, so a failed task's log reads as its first line.
"""

from __future__ import annotations

import json
import logging
import smtplib
import ssl
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from email.message import EmailMessage
from typing import Any
from urllib.parse import unquote, urlsplit

from pipeline.airflow.connections import airflow_connection
from pipeline.airflow.settings import AlertSettings

log = logging.getLogger("jobharbor.alerts")
HEADLINE_MAX = 300  # one sentence, whole; a dump of every problem is not one
SMTP_CONN_ID = "jobharbor_alert_smtp"
WEBHOOK_CONN_ID = "jobharbor_alert_webhook"


@dataclass(frozen=True)
class Alert:
    subject: str  # one line: what failed, where, and why in short
    detail: str = ""


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    user: str | None = None
    password: str | None = None
    tls: bool = False  # TLS from the first byte (smtps); else STARTTLS when offered


@dataclass(frozen=True)
class Channels:
    """Where alerts go, resolved from settings and connections at the time of sending."""

    smtp: SmtpServer | None = None
    email_to: tuple[str, ...] = ()
    email_from: str = "jobharbor@localhost"
    webhook_url: str | None = None
    timeout_s: float = 10.0

    def secrets(self) -> tuple[str, ...]:
        """What must never appear in a log line."""
        found = [self.smtp.password if self.smtp else None, self.webhook_url]
        if self.webhook_url:
            parts = urlsplit(self.webhook_url)
            found += [parts.password, parts.path, parts.query]
        return tuple(s for s in found if s and len(s) > 3)


# ---------------------------------------------------------------- messages


def headline(text: str, limit: int = HEADLINE_MAX) -> str:
    """The first line of `text`, at most `limit` characters (an ellipsis says more)."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def log_group(logger: logging.Logger, title: str, lines: Iterable[str]) -> None:
    """Detail the Airflow UI folds under `title`; in a plain log, marked lines around it."""
    logger.info("::group::%s", title)
    for line in lines:
        logger.info("%s", line)
    logger.info("::endgroup::")


def task_failure(short: str, detail: Iterable[str] = ()) -> Exception:
    """An AirflowFailException (fail, no retry) whose message is `short` and which
    carries `detail` for the alert (the log has it in a group already)."""
    from airflow.exceptions import AirflowFailException

    failure = AirflowFailException(short)
    failure.jobharbor_detail = "\n".join(detail)  # type: ignore[attr-defined]
    return failure


def failure_alert(context: Mapping[str, Any]) -> Alert:
    """A task failure, from the context Airflow passes to on_failure_callback."""
    ti = context["ti"]
    exception = context.get("exception")
    reason = headline(str(exception)) if exception is not None else "no exception recorded"
    where = f"{ti.dag_id}.{ti.task_id}"
    detail = [
        f"run: {ti.run_id}",
        f"try: {getattr(ti, 'try_number', '?')}",
        f"log: {_log_url(ti)}",
    ]
    if exception is not None:
        detail += ["", f"{type(exception).__name__}: {exception}"]
        more = getattr(exception, "jobharbor_detail", "")
        if more:
            detail += ["", more]
    return Alert(f"{where} failed: {reason}", "\n".join(detail))


def deadline_alert(context: Mapping[str, Any], minutes: int) -> Alert:
    """A missed deadline, from the context Airflow gives a deadline callback."""
    run = context.get("dag_run") or {}
    dag_id = run.get("dag_id", "?")
    run_id = run.get("dag_run_id") or run.get("run_id") or "?"
    state = run.get("state", "?")
    deadline = (context.get("deadline") or {}).get("deadline_time")
    subject = f"{dag_id}: run {run_id} not finished {minutes} min after it was queued ({state})"
    detail = [f"queued at: {run.get('queued_at', '?')}", f"deadline: {deadline or '?'}"]
    return Alert(headline(subject), "\n".join(detail))


def _log_url(ti: Any) -> str:
    try:
        return str(ti.log_url)
    except Exception:  # the URL is a convenience: an alert without it still goes out
        return "(see the task log in the Airflow UI)"


# ---------------------------------------------------------------- delivery


def deliver(alert: Alert, channels: Channels) -> list[str]:
    """Send `alert` on every configured channel; the names of those that took it."""
    sent = []
    for name, configured, send in (
        ("email", channels.smtp is not None and bool(channels.email_to), send_email),
        ("webhook", channels.webhook_url is not None, post_webhook),
    ):
        if not configured:
            continue
        try:
            send(alert, channels)
        except Exception as exc:  # reported, never raised: see the module docstring
            log.warning("alert not sent by %s: %s", name, redact(_describe(exc), channels))
        else:
            sent.append(name)
    return sent


def send_email(alert: Alert, channels: Channels) -> None:
    server = channels.smtp
    assert server is not None
    message = EmailMessage()
    message["Subject"] = alert.subject
    message["From"] = channels.email_from
    message["To"] = ", ".join(channels.email_to)
    message.set_content(alert.detail or alert.subject)
    context = ssl.create_default_context()
    smtp: smtplib.SMTP
    if server.tls:
        smtp = smtplib.SMTP_SSL(
            server.host, server.port, timeout=channels.timeout_s, context=context
        )
    else:
        smtp = smtplib.SMTP(server.host, server.port, timeout=channels.timeout_s)
    with smtp:
        smtp.ehlo()
        if not server.tls and smtp.has_extn("starttls"):
            smtp.starttls(context=context)
            smtp.ehlo()
        if server.user:
            smtp.login(server.user, server.password or "")
        smtp.send_message(message)


def post_webhook(alert: Alert, channels: Channels) -> None:
    assert channels.webhook_url is not None
    body = json.dumps(
        {"text": alert.subject, "subject": alert.subject, "detail": alert.detail}
    ).encode()
    request = urllib.request.Request(
        channels.webhook_url,
        data=body,
        headers={"Content-Type": "application/json", "User-Agent": "jobharbor-alerts"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=channels.timeout_s) as response:
        response.read()  # a status >= 400 has raised HTTPError already


def _describe(exc: Exception) -> str:
    code = getattr(exc, "code", None)  # an HTTP status: its message is the server's
    return f"{type(exc).__name__}" + (f" {code}" if code else f": {exc}")


def redact(text: str, channels: Channels) -> str:
    for secret in channels.secrets():
        text = text.replace(secret, "***")
    return text


# ---------------------------------------------------------------- configuration


def smtp_server(url: str) -> SmtpServer:
    """smtp://user:password@host:port or smtps://... (user and password URL-encoded)."""
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ValueError("an SMTP URL is smtp://[user:password@]host[:port] or smtps://...")
    tls = parts.scheme == "smtps"
    return SmtpServer(
        host=parts.hostname,
        port=parts.port or (465 if tls else 587),
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        tls=tls,
    )


def channels_from(
    settings: AlertSettings, *, smtp: SmtpServer | None = None, webhook_url: str | None = None
) -> Channels:
    """Channels from settings; a connection (when defined) wins over the setting."""
    if smtp is None and settings.smtp_url is not None:
        smtp = smtp_server(settings.smtp_url.get_secret_value())
    if webhook_url is None and settings.webhook_url is not None:
        webhook_url = settings.webhook_url.get_secret_value()
    return Channels(
        smtp=smtp,
        email_to=tuple(a.strip() for a in settings.email_to.split(",") if a.strip()),
        email_from=settings.email_from,
        webhook_url=webhook_url,
        timeout_s=settings.timeout_s,
    )


def smtp_from_connection(connection: Any) -> SmtpServer:
    """An SMTP connection: host, port, login, password; extra {"tls": true} for smtps."""
    tls = bool(connection.extra_dejson.get("tls", False))
    return SmtpServer(
        host=connection.host,
        port=connection.port or (465 if tls else 587),
        user=connection.login or None,
        password=connection.password or None,
        tls=tls,
    )


def configured_channels() -> Channels:
    smtp = _connection(SMTP_CONN_ID)
    webhook = _connection(WEBHOOK_CONN_ID)
    return channels_from(
        AlertSettings(),
        smtp=smtp_from_connection(smtp) if smtp is not None else None,
        # The webhook connection's host is the whole URL (https://...), token included.
        webhook_url=webhook.host if webhook is not None else None,
    )


def _connection(conn_id: str) -> Any | None:
    """The connection, or None. Unlike a task's database, an alert falls back to the
    settings when connections cannot be read (a deadline callback may run where the task
    API is not there): an alert on the configured channels beats no alert at all."""
    try:
        return airflow_connection(conn_id)
    except Exception as exc:
        log.warning(
            "connection %s not read (%s): alerts use the settings", conn_id, type(exc).__name__
        )
        return None


# ---------------------------------------------------------------- the callbacks


def on_task_failure(context: Mapping[str, Any]) -> None:
    """Every jobharbor task's on_failure_callback (default_args of every DAG)."""
    alert = failure_alert(context)
    _report(alert)


def on_deadline_missed(context: Mapping[str, Any], minutes: int = 0) -> None:
    """The DAGs' deadline callback (SyncCallback: the executor runs it)."""
    _report(deadline_alert(context, minutes))


def _report(alert: Alert) -> None:
    log.error("%s", alert.subject)
    try:
        channels = configured_channels()
    except Exception as exc:  # a bad setting: say so, the failure itself is logged above
        log.warning("alerts not configured correctly: %s", type(exc).__name__)
        return
    sent = deliver(alert, channels)
    log.info("alert sent by: %s", ", ".join(sent) if sent else "nothing (no channel set)")


def dag_deadline(minutes: int | None = None) -> list[Any]:
    """The DAG's deadline alert: a run not finished `minutes` after it was queued
    (default: AlertSettings.deadline_minutes; 0: none). For a DAG's `deadline=`."""
    minutes = AlertSettings().deadline_minutes if minutes is None else minutes
    if minutes <= 0:
        return []
    from airflow.sdk.definitions.callback import SyncCallback
    from airflow.sdk.definitions.deadline import DeadlineAlert, DeadlineReference

    return [
        DeadlineAlert(
            reference=DeadlineReference.DAGRUN_QUEUED_AT,
            interval=timedelta(minutes=minutes),
            callback=SyncCallback(f"{__name__}.on_deadline_missed", kwargs={"minutes": minutes}),
            name=f"not finished {minutes} min after queued",
        )
    ]
