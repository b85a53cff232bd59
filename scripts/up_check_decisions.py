"""`make up-check`, after its first steps: the analyst's and the operator's decisions,
made and seen in the Airflow UI (headless Chromium) on the running `make up`.

1. forced poll: the sandbox world changes (every lever board advances), a source run
   with `force: true` polls every active board of the source (crawl.boards.last_polled_at);
2. approval: some lever results are made "older" (another parser version, other titles:
   what a parser upgrade leaves behind), a re-parse backfill that applies with approval
   waits on its Required Actions screen, which must show the counts by kind of change
   and sample diffs; the check (logged in as the analyst) fills the reason, clicks
   Approve, waits for success, and proves the run note and crawl.backfill_approvals
   name the analyst as the approver (approver_recorded);
3. rejection: the same again, rejected with a reason: the run must not be green;
4. empty preview: a re-parse of postings already up to date asks nobody (no HITL
   detail) and ends saying "nothing to apply";
5. over the cap: `limit` 100000 typed into the trigger form is refused in the form and
   creates no run;
6. alert: the freshness DAG with a tiny `max_lag_s` fails and its alert reaches the
   SMTP sink this check started (the JOBHARBOR_ALERT_* settings `make up` was given);
7. lineage: the Assets page and the serving asset's graph (sources -> serving/jobs ->
   freshness), drawn from Airflow's /ui/dependencies, which must answer 200 with that
   chain (lineage_drawn).
Each step sets its key in the final JSON line only when it was shown; a step that
fails prints why and leaves its key false, and the next steps still run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from pipeline.airflow.auth import ANALYST
from tests.airflow.sinks import Received

SOURCE = "lever"
REPARSE = "jobharbor_backfill_reparse"
FRESHNESS = "jobharbor_freshness"
KEYS = (
    "approval_shows_diffs",
    "approver_recorded",
    "rejected_not_success",
    "empty_preview_skips_approval",
    "over_cap_refused",
    "forced_poll",
    "alert_delivered",
    "lineage_drawn",
)
LIMIT_OVER_CAP = 100000
STALE = 4  # results made "older" for the approval runs
TIMEOUT_S = 600
REASON_APPROVE = "titles re-parsed with the current lever parser (up-check)"
REASON_REJECT = "not now: the sample needs a second look (up-check)"
ALERT_TO = "ops@example.org"
EXECUTOR_EVENT = "Received executor event with state success"
OLDER_RESULTS = """
UPDATE core.parse_results SET parser_version = %(version)s, title = 'old ' || title
WHERE is_current AND posting_id = ANY(%(ids)s)
"""
LEVER_POSTINGS = """
SELECT p.id FROM core.postings p
JOIN core.parse_results r ON r.posting_id = p.id AND r.is_current
WHERE p.source_id = %(source)s AND p.status = 'active' ORDER BY p.id LIMIT %(n)s
"""


class StepFailed(RuntimeError):
    pass


def approver_named(note: str, decided_by: str, user: str) -> bool:
    """The run note and the approvals table both name `user` as the approver (the
    recorded form is "<name> (id <id>)"): not "Anonymous", not someone else."""
    return f"approved by {user} (" in note and decided_by.startswith(f"{user} (")


def require(condition: object, message: str) -> None:
    if not condition:
        raise StepFailed(message)


@dataclass(frozen=True)
class Shown:
    """A step's outcome: the keys it proved and one line saying what was seen."""

    keys: tuple[str, ...]
    line: str


class Decisions:
    def __init__(self, api: Any, page: Any, base: str, shots: Path, inbox: Received) -> None:
        from pipeline.app import resolve_databases
        from pipeline.db.connect import Database
        from pipeline.settings import load_settings

        self.api, self.page, self.base, self.shots, self.inbox = api, page, base, shots, inbox
        settings = load_settings()
        self.db = Database(resolve_databases(settings).authoritative)
        self.scheduler_log = settings.data_dir / "airflow" / "scheduler.log"

    def run(self) -> tuple[list[str], dict[str, bool]]:
        shown = dict.fromkeys(KEYS, False)
        done: list[str] = []
        steps: list[Callable[[], Shown]] = [
            self.forced_poll,
            self.approve,
            self.reject,
            self.empty_preview,
            self.over_cap,
            self.alert,
            self.lineage,
        ]
        for step in steps:
            try:
                outcome = step()
            except Exception as error:  # a step not shown leaves its keys false, says why
                print(f"NOT SHOWN: {step.__name__}: {type(error).__name__}: {error}")
                self._shot(f"failed-{step.__name__}")
                continue
            shown.update(dict.fromkeys(outcome.keys, True))
            done.append(outcome.line)
        return done, shown

    # -- the world --------------------------------------------------------------

    def _sql(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        with self.db.connect() as conn:
            cursor = conn.execute(query, params or {})
            rows = cursor.fetchall() if cursor.description else []
            conn.commit()
            return rows

    def _postings(self, n: int) -> list[int]:
        return [r["id"] for r in self._sql(LEVER_POSTINGS, {"source": SOURCE, "n": n})]

    def _advance_world(self) -> int:
        """Every lever board of the sandbox changes (one posting closes, one changes,
        one opens), as between two real polls."""
        from pipeline.airflow.env import airflow_environment

        tokens = [
            r["board_key"]
            for r in self._sql(
                "SELECT board_key FROM crawl.boards WHERE source_id = %(s)s AND enabled",
                {"s": SOURCE},
            )
        ]
        sandbox = airflow_environment()["JOBHARBOR_SANDBOX_URL"]
        answer = httpx.post(
            f"{sandbox}/_sandbox/advance-many", json={"platform": SOURCE, "tokens": tokens}
        )
        answer.raise_for_status()
        return int(answer.json()["advanced"])

    # -- the browser ------------------------------------------------------------

    def _shot(self, name: str) -> None:
        try:
            self.page.screenshot(path=self.shots / f"{name}.png", full_page=True)
        except Exception as error:  # a missing screenshot must not hide the step's outcome
            print(f"screenshot {name} not taken: {error}")

    def _goto(self, path: str) -> None:
        self.page.goto(f"{self.base}{path}")
        self.page.wait_for_load_state("networkidle")

    # -- the steps --------------------------------------------------------------

    def forced_poll(self) -> Shown:
        since = self._sql("SELECT now() AS t")[0]["t"]
        advanced = self._advance_world()
        dag_id = f"jobharbor_{SOURCE}"
        run_id = self.api.trigger(dag_id, {"force": True})
        require(self.api.wait_for_run(dag_id, run_id) == "success", f"{run_id} failed")
        rows = self._sql(
            "SELECT count(*) FILTER (WHERE last_polled_at >= %(since)s) AS polled,"
            " count(*) AS boards FROM crawl.boards"
            " WHERE source_id = %(s)s AND enabled AND state = 'active'",
            {"s": SOURCE, "since": since},
        )[0]
        require(rows["boards"] > 0, "no active lever board")
        require(
            rows["polled"] == rows["boards"],
            f"the forced run polled {rows['polled']} of {rows['boards']} active boards",
        )
        self._goto(f"/dags/{dag_id}/runs/{run_id}")
        self._shot("4-forced-poll")
        return Shown(
            ("forced_poll",),
            f"the sandbox advanced {advanced} {SOURCE} boards; {dag_id} {run_id} with force:"
            f" true polled all {rows['boards']} active boards (crawl.boards.last_polled_at)",
        )

    def _waiting_approval(self, ids: list[int]) -> str:
        """Results made older for `ids`, then an approved re-parse of them, waiting."""
        # A version of its own each time: (posting, content, parser, version) is unique.
        version = f"0.{time.time_ns()}"
        self._sql(OLDER_RESULTS, {"ids": ids, "version": version})
        conf = {"source": SOURCE, "limit": 100, "posting_ids": ids, "dry_run": False}
        run_id = self.api.trigger(REPARSE, {**conf, "approve": True})
        deadline = time.monotonic() + TIMEOUT_S
        while not self.api.hitl_details(REPARSE, run_id, pending=True):
            state = self.api.run(REPARSE, run_id)["state"]
            require(state not in ("success", "failed"), f"{run_id} ended ({state}) unasked")
            require(time.monotonic() < deadline, f"{run_id}: no approval asked")
            time.sleep(2)
        self._paused_for_the_scheduler(run_id)
        return run_id

    def _paused_for_the_scheduler(self, run_id: str) -> None:
        """Wait until the scheduler has taken the approval task's pause (its worker's
        "success" event). An answer before that, seconds after the task paused, is lost
        to a race in Airflow 3.3.2's LocalExecutor: the scheduler then reads that event
        for the resumed, queued task and fails it ("finished with state success, but the
        task instance's state attribute is queued"). A person reading the screen is
        never that fast; a script is."""
        line = f"task_id='approval', run_id='{run_id}'"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            log = self.scheduler_log.read_text(errors="replace")
            if any(EXECUTOR_EVENT in seen and line in seen for seen in log.splitlines()):
                return
            time.sleep(1)
        print(f"warning: the scheduler's event for {run_id}'s pause not seen in 120 s")

    def _answer(self, run_id: str, option: str, reason: str, shot: str) -> str:
        """The run's approval screen: its text (checked by the caller), then the reason
        typed and `option` clicked, as a person does."""
        self._goto(f"/dags/{REPARSE}/runs/{run_id}/tasks/approval/required_actions")
        page = self.page
        page.get_by_text("kind of change").first.wait_for(timeout=60_000)
        text = page.locator("body").inner_text()
        self._shot(f"{shot}-screen")
        page.locator("#element_reason").fill(reason)
        button = page.get_by_test_id(f"hitl-option-{option}")
        button.scroll_into_view_if_needed()
        self._shot(f"{shot}-form")
        button.click()
        page.wait_for_timeout(1500)
        self._shot(f"{shot}-answered")
        return text

    def _finished(self, run_id: str, shot: str) -> tuple[str, dict[str, str], str]:
        """The re-parse run once it ended: its state, its tasks' states and its note,
        with its page in the UI."""
        state = self.api.wait_for_run(REPARSE, run_id)
        tasks = {t["task_id"]: t["state"] for t in self.api.tasks(REPARSE, run_id)}
        note = self.api.run(REPARSE, run_id).get("note") or ""
        self._goto(f"/dags/{REPARSE}/runs/{run_id}")
        self._shot(shot)
        return state, tasks, note

    def approve(self) -> Shown:
        ids = self._postings(STALE)
        require(len(ids) == STALE, f"only {len(ids)} {SOURCE} postings with results")
        run_id = self._waiting_approval(ids)
        text = self._answer(run_id, "Approve", REASON_APPROVE, "5-approval")
        counts = "| kind of change | count |" in text or "kind of change" in text
        diffs = "Sample (" in text and "old " in text
        keys = ["approval_shows_diffs"] if counts and diffs else []
        state, _, note = self._finished(run_id, "5-approved-run")
        require(keys, f"the screen lacks counts ({counts}) or sample diffs ({diffs})")
        require(state == "success", f"the approved run {run_id} is {state}")
        recorded = self._decided_by(run_id)
        require(
            approver_named(note, recorded, ANALYST) and REASON_APPROVE in note,
            f"the approval is not recorded as {ANALYST}'s, who clicked (note {note!r},"
            f" crawl.backfill_approvals.decided_by {recorded!r})",
        )
        return Shown(
            ("approval_shows_diffs", "approver_recorded"),
            f"{REPARSE} {run_id}: the screen showed counts by change and sample diffs;"
            f" approved in the UI by {ANALYST}; success; decided_by {recorded!r}; note: {note}",
        )

    def _decided_by(self, run_id: str) -> str:
        rows = self._sql(
            "SELECT decided_by FROM crawl.backfill_approvals WHERE dag_id = %(d)s AND run_id = %(r)s",
            {"d": REPARSE, "r": run_id},
        )
        return str(rows[0]["decided_by"] or "") if rows else ""

    def reject(self) -> Shown:
        ids = self._postings(STALE)
        run_id = self._waiting_approval(ids)
        self._answer(run_id, "Reject", REASON_REJECT, "6-rejection")
        state, tasks, note = self._finished(run_id, "6-rejected-run")
        require(
            state != "success" or tasks.get("decision") == "failed",
            f"the rejected run {run_id} is {state}, tasks {tasks}",
        )
        require(tasks.get("apply") != "success", f"apply ran after a rejection: {tasks}")
        return Shown(
            ("rejected_not_success",),
            f"{REPARSE} {run_id}: rejected in the UI; run {state}, decision"
            f" {tasks.get('decision')}, apply {tasks.get('apply')}; note: {note}",
        )

    def empty_preview(self) -> Shown:
        # Postings never made older (not the first STALE) are at the current parser.
        ids = self._postings(STALE * 3)[-STALE:]
        conf = {"source": SOURCE, "limit": 100, "posting_ids": ids, "dry_run": False}
        run_id = self.api.trigger(REPARSE, {**conf, "approve": True})
        state, tasks, _ = self._finished(run_id, "7-empty-preview")
        asked = self.api.hitl_details(REPARSE, run_id, pending=False)
        planned = self.api.xcom(REPARSE, run_id, "plan") or {}
        require(not asked, f"an empty preview asked for approval: {asked}")
        require(state == "success", f"the empty preview's run {run_id} is {state}")
        require(planned.get("nothing_to_apply"), f"plan does not say nothing to apply: {planned}")
        require(tasks.get("approval") != "success", f"approval ran: {tasks}")
        return Shown(
            ("empty_preview_skips_approval",),
            f"{REPARSE} {run_id}: nobody asked (no HITL detail), approval"
            f" {tasks.get('approval')}, apply {tasks.get('apply')}, success: {planned['summary']}",
        )

    def over_cap(self) -> Shown:
        before = self.api.run_count(REPARSE)
        page = self.page
        self._goto(f"/dags/{REPARSE}")
        page.get_by_test_id("trigger-dag-button").click()
        dialog = page.get_by_role("dialog")
        source = dialog.get_by_role("combobox").last  # the one select: source, required
        source.fill(SOURCE)
        source.press("Enter")
        limit = self._number_field("limit")
        limit.fill(str(LIMIT_OVER_CAP))
        limit.press("Tab")
        page.wait_for_timeout(1000)
        # Airflow 3.3.2's form checks types and required fields as you type, not a
        # number's maximum: that is the API's JSON-schema check when Trigger is pressed,
        # which the form shows as an error toast and keeps the value (no run made).
        page.get_by_test_id("trigger-dag-submit").click()
        toast = page.get_by_text("Failed to Trigger Dag").first
        toast.wait_for(timeout=30_000)
        page.wait_for_timeout(800)  # the toast fades in
        message = " ".join(page.locator("[data-scope=toast]").first.inner_text().split())
        self._shot("8-over-cap-refused")
        kept = limit.input_value()
        after = self.api.run_count(REPARSE)
        conf = {"source": SOURCE, "limit": LIMIT_OVER_CAP}
        detail = self.api.refused_trigger(REPARSE, conf).splitlines()[0]
        page.keyboard.press("Escape")
        require(after == before, f"a run was created: {before} -> {after} runs")
        require(kept == str(LIMIT_OVER_CAP), f"the form lost the value: {kept!r}")
        return Shown(
            ("over_cap_refused",),
            f"limit {LIMIT_OVER_CAP} in {REPARSE}'s trigger form: refused on Trigger"
            f" ({message!r}; the API says {detail!r}), the value kept,"
            f" no run created ({after} runs before and after)",
        )

    def _number_field(self, name: str) -> Any:
        """The input of a Param's number field in the trigger form (its +/- buttons
        name the param; the input itself only by a generated id)."""
        inc = self.page.locator(f'[id="number-input:element_{name}:inc"]')
        return self.page.locator(f'[id="{inc.get_attribute("aria-controls")}"]')

    def alert(self) -> Shown:
        run_id = self.api.trigger(FRESHNESS, {"max_lag_s": 0.001})
        state = self.api.wait_for_run(FRESHNESS, run_id)
        require(state == "failed", f"{FRESHNESS} {run_id} is {state} with max_lag_s 0.001")
        deadline = time.monotonic() + 60
        while not self._alerts() and time.monotonic() < deadline:
            time.sleep(1)
        got = self._alerts()
        self._goto(f"/dags/{FRESHNESS}/runs/{run_id}")
        self._shot("9-freshness-failed")
        require(got, f"no alert for {FRESHNESS} reached the SMTP sink")
        return Shown(
            ("alert_delivered",),
            f"{FRESHNESS} {run_id} failed (max_lag_s 0.001); the e-mail reached the sink:"
            f" {got[0]!r}",
        )

    def _alerts(self) -> list[str]:
        return [str(m["Subject"]) for m in self.inbox.messages if FRESHNESS in str(m["Subject"])]

    def lineage(self) -> Shown:
        """The Assets page, and the serving asset's page with its graph. The chain is
        read from the API (every source DAG -> postings/<source> -> the sync ->
        serving/jobs -> freshness) and from the graph Airflow's UI draws
        (/ui/dependencies: 200, with the source -> sync -> freshness path)."""
        assets = {a["uri"]: a for a in self.api.assets()}
        serving = assets["jobharbor://serving/jobs"]
        sources = [u for u in assets if u.startswith("jobharbor://postings/")]
        feeds_sync = all(
            [d["dag_id"] for d in assets[u]["scheduled_dags"]] == ["jobharbor_serving_sync"]
            for u in sources
        )
        chain = (
            f"{len(sources)} source DAGs -> jobharbor://postings/<source> ->"
            f" {[t['dag_id'] for t in serving['producing_tasks']]} -> jobharbor://serving/jobs"
            f" -> {[d['dag_id'] for d in serving['scheduled_dags']]}"
        )
        status, graph = self.api.dependencies()
        self._goto("/assets")
        self.page.get_by_text("jobharbor://serving/jobs").first.wait_for(timeout=30_000)
        self._shot("10-assets")
        self.page.get_by_text("jobharbor://serving/jobs").first.click()
        self.page.wait_for_load_state("networkidle")
        nodes = self.page.locator(".react-flow__node")
        nodes.first.wait_for(timeout=30_000)
        drawn = len(nodes.all())
        self._shot("10-lineage")
        require(feeds_sync and serving["scheduled_dags"], f"the asset chain is broken: {chain}")
        require(status == 200, f"/ui/dependencies answered {status}: {str(graph)[:300]}")
        path = (f"dag:jobharbor_{SOURCE}", "dag:jobharbor_serving_sync", f"dag:{FRESHNESS}")
        require(
            reaches(graph, path[0], path[1]) and reaches(graph, path[1], path[2]),
            f"/ui/dependencies lacks {' -> '.join(path)}: {graph.get('edges')}",
        )
        return Shown(
            ("lineage_drawn",),
            f"the Assets page; the lineage {chain}; /ui/dependencies 200 with"
            f" {' -> '.join(path)} (through the assets); the graph drawn, {drawn} nodes",
        )


def reaches(graph: dict[str, Any], start: str, goal: str) -> bool:
    """Whether `goal` is downstream of `start` in a /ui/dependencies graph."""
    edges: dict[str, set[str]] = {}
    for edge in graph.get("edges") or []:
        edges.setdefault(edge["source_id"], set()).add(edge["target_id"])
    seen, todo = {start}, [start]
    while todo:
        for after in edges.get(todo.pop(), set()) - seen:
            seen.add(after)
            todo.append(after)
    return goal in seen - {start}


# The decisions' screenshots kept in docs/ (the others stay in DATA_DIR/up-check/).
PUBLISHED = (
    "4-forced-poll",
    "5-approval-screen",
    "5-approval-form",
    "5-approved-run",
    "6-rejected-run",
    "7-empty-preview",
    "8-over-cap-refused",
    "9-freshness-failed",
    "10-assets",
    "10-lineage",
)
PUBLISHED_WIDTH = 1100
PUBLISHED_COLOURS = 64  # UI screenshots are flat colours: a small palette reads the same


def publish(shots: Path, docs: Path) -> str:
    """A small copy of the decisions' screenshots in `docs` (palette PNGs, narrower):
    what the docs show stays current and a few hundred kB."""
    from PIL import Image

    docs.mkdir(parents=True, exist_ok=True)
    total = 0
    for name in PUBLISHED:
        source = shots / f"{name}.png"
        if not source.exists():
            continue
        target = docs / source.name
        with Image.open(source) as image:
            image = image.convert("RGB")
            if image.width > PUBLISHED_WIDTH:
                height = round(image.height * PUBLISHED_WIDTH / image.width)
                image = image.resize((PUBLISHED_WIDTH, height), Image.Resampling.LANCZOS)
            image.quantize(PUBLISHED_COLOURS).save(target, optimize=True)
        total += target.stat().st_size
    return f"{docs} ({total // 1024} kB)"
