"""Alerts (pipeline.airflow.alerts): a failure reads as one short line, and reaches a
real SMTP server and a real webhook on loopback; a delivery that fails is logged
without its secrets and never raises."""

from __future__ import annotations

import json
import logging
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipeline.airflow.alerts import (
    HEADLINE_MAX,
    Alert,
    Channels,
    channels_from,
    dag_deadline,
    deadline_alert,
    deliver,
    failure_alert,
    headline,
    log_group,
    smtp_server,
)
from pipeline.airflow.settings import AlertSettings
from tests.airflow.harness import airflow_env, run
from tests.airflow.sinks import smtp_sink, webhook_sink


@dataclass(frozen=True)
class TaskInstance:
    """What a failure callback reads of Airflow's task instance."""

    dag_id: str = "jobharbor_freshness"
    task_id: str = "freshness"
    run_id: str = "manual__2026-12-06T03:00:00+00:00"
    try_number: int = 1
    log_url: str = "http://127.0.0.1:8080/dags/jobharbor_freshness/runs/x/tasks/freshness"


LONG_FAILURE = "freshness: 12 sources stale over 6 h (greenhouse 26 h, lever 9 h, +10 more)\n" + (
    "greenhouse: oldest_unpublished_s = 93600s > 21600s; " * 40
)


def test_a_failure_alert_is_one_short_line_then_the_detail() -> None:
    alert = failure_alert({"ti": TaskInstance(), "exception": RuntimeError(LONG_FAILURE)})
    assert alert.subject == (
        "jobharbor_freshness.freshness failed: freshness: 12 sources stale over 6 h"
        " (greenhouse 26 h, lever 9 h, +10 more)"
    )
    assert "\n" not in alert.subject
    assert "run: manual__2026-12-06T03:00:00+00:00" in alert.detail
    assert "log: http://127.0.0.1:8080/dags/jobharbor_freshness" in alert.detail
    assert LONG_FAILURE in alert.detail  # nothing lost: the whole message is in the detail


def test_a_headline_is_cut_to_its_limit() -> None:
    line = headline("x" * 1000)
    assert len(line) == HEADLINE_MAX
    assert line.endswith("…")
    assert headline("\n\n  first  \nsecond") == "first"


def test_a_deadline_alert_names_the_run_and_the_minutes() -> None:
    context = {
        "dag_run": {"dag_id": "jobharbor_lever", "dag_run_id": "manual__1", "state": "running"},
        "deadline": {"deadline_time": "2026-12-06T05:00:00+00:00"},
    }
    alert = deadline_alert(context, 120)
    assert alert.subject == (
        "jobharbor_lever: run manual__1 not finished 120 min after it was queued (running)"
    )
    assert "deadline: 2026-12-06T05:00:00+00:00" in alert.detail


def test_detail_goes_in_a_log_group(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("jobharbor.test")
    with caplog.at_level(logging.INFO, logger="jobharbor.test"):
        log_group(logger, "status by source", ["lever ok", "greenhouse stale"])
    assert caplog.messages == [
        "::group::status by source",
        "lever ok",
        "greenhouse stale",
        "::endgroup::",
    ]


def test_a_failure_is_mailed_through_a_real_smtp_server() -> None:
    with smtp_sink(password="s3cret-pass") as (port, inbox):
        settings = AlertSettings(
            email_to="ops@example.org, oncall@example.org",
            email_from="jobharbor@example.org",
            smtp_url=f"smtp://alerts:s3cret-pass@127.0.0.1:{port}",
        )
        sent = deliver(
            Alert("jobharbor_lever.fetch failed: timeout", "detail"), channels_from(settings)
        )
    assert sent == ["email"]
    (message,) = inbox.messages
    assert message["Subject"] == "jobharbor_lever.fetch failed: timeout"
    assert message["From"] == "jobharbor@example.org"
    assert message.get_content().strip() == "detail"
    assert inbox.recipients == [["ops@example.org", "oncall@example.org"]]
    assert inbox.logins == [("alerts", "s3cret-pass")]


def test_a_failure_is_posted_to_a_real_webhook() -> None:
    with webhook_sink() as (port, hooks):
        settings = AlertSettings(webhook_url=f"http://127.0.0.1:{port}/hooks/tok3n")
        sent = deliver(
            Alert("jobharbor_lever.fetch failed: timeout", "detail"), channels_from(settings)
        )
    assert sent == ["webhook"]
    assert hooks.posts == [
        (
            "/hooks/tok3n",
            {
                "text": "jobharbor_lever.fetch failed: timeout",
                "subject": "jobharbor_lever.fetch failed: timeout",
                "detail": "detail",
            },
        )
    ]


def test_failed_deliveries_are_logged_without_secrets_and_never_raise(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with (
        smtp_sink(password="the-right-one") as (smtp_port, inbox),
        webhook_sink(status=500) as (hook_port, hooks),
        caplog.at_level(logging.WARNING, logger="jobharbor.alerts"),
    ):
        settings = AlertSettings(
            email_to="ops@example.org",
            smtp_url=f"smtp://alerts:s3cret-pass@127.0.0.1:{smtp_port}",
            webhook_url=f"http://127.0.0.1:{hook_port}/hooks/tok3n-secret",
        )
        sent = deliver(Alert("x failed: y"), channels_from(settings))
    assert sent == []
    assert inbox.messages == []  # refused at login
    assert len(hooks.posts) == 1  # reached, answered 500
    assert "alert not sent by email: SMTPAuthenticationError" in caplog.text
    assert "alert not sent by webhook: HTTPError 500" in caplog.text
    assert "s3cret-pass" not in caplog.text
    assert "tok3n-secret" not in caplog.text


def test_an_unreachable_webhook_is_logged_without_its_token(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with webhook_sink() as (port, _):
        pass  # closed: nothing listens on the port now
    channels = Channels(webhook_url=f"http://127.0.0.1:{port}/hooks/tok3n-secret", timeout_s=2)
    with caplog.at_level(logging.WARNING, logger="jobharbor.alerts"):
        assert deliver(Alert("x failed: y"), channels) == []
    assert "alert not sent by webhook: URLError" in caplog.text
    assert "tok3n-secret" not in caplog.text


def test_nothing_configured_sends_nothing() -> None:
    assert deliver(Alert("x failed: y"), channels_from(AlertSettings())) == []
    # Recipients without a server (or a server without recipients) send no e-mail.
    assert channels_from(AlertSettings(email_to="ops@example.org")).smtp is None


def test_smtp_urls() -> None:
    assert smtp_server("smtps://a%40b:p%3Aw@mail.example.org") == smtp_server(
        "smtps://a%40b:p%3Aw@mail.example.org:465"
    )
    tls = smtp_server("smtps://a%40b:p%3Aw@mail.example.org")
    assert (tls.user, tls.password, tls.port, tls.tls) == ("a@b", "p:w", 465, True)
    plain = smtp_server("smtp://mail.example.org")
    assert (plain.user, plain.port, plain.tls) == (None, 587, False)
    with pytest.raises(ValueError, match="smtp://"):
        smtp_server("http://mail.example.org")


def test_an_error_quoting_the_webhook_url_is_logged_redacted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # urllib quotes a URL without a scheme whole in its error: the token must not follow.
    channels = channels_from(AlertSettings(webhook_url="hooks.example.org/hooks/tok3n-secret"))
    with caplog.at_level(logging.WARNING, logger="jobharbor.alerts"):
        assert deliver(Alert("x failed: y"), channels) == []
    assert "alert not sent by webhook: ValueError: unknown url type: '***'" in (caplog.text)
    assert "tok3n-secret" not in caplog.text


FATAL_PROBE = """
import json, logging, sys
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")
from pipeline.airflow.failures import fatal_without_retry
from pipeline.errors import FatalError

@fatal_without_retry
def task():
    raise FatalError("refused: the selection changed since the preview\\n" + "id 1 changed\\n" * 300)

try:
    task()
except Exception as exc:
    print(json.dumps({"type": type(exc).__name__, "message": str(exc),
                      "detail": exc.jobharbor_detail}))
"""


def test_a_long_fatal_error_fails_with_its_first_line_and_logs_the_rest_in_a_group(
    tmp_path: Path,
) -> None:
    # In a subprocess: importing Airflow configures it process-wide.
    result = run([sys.executable, "-c", FATAL_PROBE], airflow_env(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    failed = json.loads(result.stdout.strip().splitlines()[-1])
    assert failed["type"] == "AirflowFailException"  # no retry
    assert failed["message"] == "FatalError: refused: the selection changed since the preview"
    assert failed["detail"].count("id 1 changed") == 300  # for the alert's body
    log = result.stderr
    group = log[log.index("::group::the whole error") : log.index("::endgroup::")]
    assert group.count("id 1 changed") == 300


DEADLINE_PROBE = """
import logging, sys
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(name)s %(message)s")
from pipeline.airflow.alerts import on_deadline_missed

on_deadline_missed(
    context={
        "dag_run": {"dag_id": "jobharbor_lever", "dag_run_id": "manual__1", "state": "running"},
        "deadline": {"id": "d1", "deadline_time": "2026-12-06T05:00:00+00:00"},
    },
    minutes=120,
)
"""


def test_a_missed_deadline_outside_any_task_still_reaches_the_webhook(tmp_path: Path) -> None:
    # As the executor runs a deadline callback: no task around it, in its own process.
    with webhook_sink() as (port, hooks):
        env = airflow_env(
            tmp_path, {"JOBHARBOR_ALERT_WEBHOOK_URL": f"http://127.0.0.1:{port}/hooks/tok3n"}
        )
        result = run([sys.executable, "-c", DEADLINE_PROBE], env)
    assert result.returncode == 0, result.stderr[-3000:]
    ((_, posted),) = hooks.posts
    assert posted["text"] == (
        "jobharbor_lever: run manual__1 not finished 120 min after it was queued (running)"
    )
    assert "tok3n" not in result.stderr


def test_deadlines_are_off_unless_set() -> None:
    # Airflow 3.3.2's `dags test` crashes at the end of a successful run with a deadline.
    assert AlertSettings().deadline_minutes == 0
    assert dag_deadline() == []
