"""Publish open postings into the serving schema as one transactional diff.

1. Under the serving sync lock, read the sync history: build on the last applied
   sync (incremental) or reconcile everything (full: asked for, periodic, or the
   base is in doubt). See serving_sync.mode.
2. Open a repeatable-read snapshot of the source and stream, through server-side
   cursors, the postings to publish (all, or those changed since the base
   snapshot), the ones to remove, recent closures and liveness, COPYing each
   batch into temporary staging tables in the serving database.
3. Diff by fingerprint, refuse mass removals unless asked, write only what
   differs, refresh liveness in its own narrow table, record closures.
4. Verify what serving.jobs now holds against the snapshot, then commit with the
   snapshot recorded as the next base. Any failure rolls back and is recorded.
   A dry run stops after the diff: it returns the plan and writes no serving row.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from pipeline.db.connect import Database, DictConnection
from pipeline.errors import FatalError
from pipeline.normalize.company import resolve_company
from pipeline.normalize.employment import coherent, employment_types
from pipeline.normalize.salary import annualized
from pipeline.normalize.work_mode import work_mode
from pipeline.progress import Progress
from pipeline.testhooks import kill_point
from serving_sync import facet_totals, freshness, lexicon, schema, stage, typeahead
from serving_sync.language import detected_language
from serving_sync.layout import description_layout
from serving_sync.mode import History, Mode, choose_mode
from serving_sync.source import (
    PUBLISHED_STATUSES,
    Base,
    SourceRead,
    open_snapshot,
    snapshot_xmin,
)
from serving_sync.text import unaccent
from serving_sync.verify import Expected, VerificationFailed, verify

__all__ = ["PUBLISHED_STATUSES", "SyncReport", "check_removal", "reconcile", "serving_row"]

log = logging.getLogger("jobharbor")

_SYNC_LOCK = "jobharbor:serving:sync"
BATCH_ROWS = 2000  # rows per server-side cursor fetch; bounds the sync's memory
SAMPLE_ROWS = 5
DEFAULT_RETENTION_DAYS = 90
DEFAULT_MAX_LAG_S = 6 * 3600.0  # as the setting freshness_max_lag_s


@dataclass(frozen=True)
class SyncReport:
    dry_run: bool
    source_rows: int  # published postings in the source snapshot
    inserted: int
    updated: int
    removed: int
    unchanged: int
    elapsed_s: float
    mode: str = "full"
    mode_reason: str | None = None
    staged: int = 0  # rows read and staged (all of them, or only the changed ones)
    retained: int = 0  # staged rows publishing their last good content
    liveness: int = 0  # last_seen_on refreshed (or to refresh, in a dry run)
    closed: int = 0  # closures written to serving.closed_jobs
    pruned: int = 0  # closures past retention removed
    sample: Mapping[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def changed(self) -> int:
        return self.inserted + self.updated + self.removed

    def as_dict(self) -> dict[str, Any]:
        values = {
            "dry_run": self.dry_run,
            "mode": self.mode,
            "mode_reason": self.mode_reason,
            "source_rows": self.source_rows,
            "staged": self.staged,
            "inserted": self.inserted,
            "updated": self.updated,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "retained": self.retained,
            "liveness": self.liveness,
            "closed": self.closed,
            "pruned": self.pruned,
        }
        if self.dry_run:
            values["sample"] = {k: [dict(r) for r in v] for k, v in self.sample.items()}
        return values


def _location_columns(location: Mapping[str, Any] | None) -> dict[str, Any]:
    if not location:
        return {"countries": [], "regions": [], "cities": [], "location_unresolved": True}
    offices = location.get("offices") or []
    return {
        "countries": sorted(set(location.get("countries") or [])),
        "regions": sorted({o["region"] for o in offices if o.get("region")}),
        "cities": sorted({o["city"] for o in offices if o.get("city")}),
        # Unknown stays unknown: unresolved parts (or nothing resolved) mean "could be anywhere".
        "location_unresolved": bool(location.get("unresolved")) or not location.get("countries"),
    }


def yearly_salary_columns(row: Mapping[str, Any]) -> dict[str, Any]:
    """The salary annualized in its currency, and its top in euros (docs/data-model.md,
    "Salary"); all None when it cannot be annualized."""
    yearly = annualized(
        row.get("salary_min"), row.get("salary_max"), row.get("salary_period"),
        row.get("salary_currency"),
    )  # fmt: skip
    return {
        "salary_year_min": yearly.low if yearly else None,
        "salary_year_max": yearly.high if yearly else None,
        "salary_year_basis": yearly.basis if yearly else None,
        "salary_year_top_eur": yearly.top_eur if yearly else None,
    }


def serving_row(record: Mapping[str, Any]) -> dict[str, Any]:
    """A source record as the serving.jobs content columns (plus `retained`)."""
    row = {k: v for k, v in record.items() if k not in ("location", "description_html")}
    row["description_layout"] = description_layout(
        record.get("description_html"), record.get("description")
    )
    row.update(_location_columns(record.get("location")))
    # One vocabulary per field, decided here so the core keeps what was parsed
    # (docs/data-model.md, "Employment type" and "Work mode").
    stated = employment_types(record.get("employment_type"), record.get("platform"))
    settled = coherent(
        stated,
        job_type=record.get("job_type"),
        seniority=record.get("seniority"),
        extracted=record.get("extracted_employment_type"),
    )
    row["employment_type"] = list(settled.employment_type)
    row["employment_type_raw"] = record.get("employment_type")
    row["job_type"], row["seniority"] = settled.job_type, settled.seniority
    mode = work_mode(
        record.get("remote"), (record.get("location") or {}).get("remote"), record.get("work_mode")
    )
    row["work_mode"], row["work_mode_source"] = mode.value, mode.source
    company = resolve_company(
        record.get("company"), record.get("board_company"), record.get("board_company_source")
    )
    row["company"], row["company_source"] = company.name, company.source
    row["posted_precision"] = row.get("posted_precision") or "unknown"
    row.update(yearly_salary_columns(row))
    row["retained"] = bool(row.get("retained"))
    for column in ("title", "company", "location_text"):
        row[f"u_{column}"] = unaccent(row.get(column))
    # search_tsv reads the first 20,000 characters, as fold(left(description, 20000)) did.
    row["u_description"] = unaccent((row.get("description") or "")[:20000])
    row["language"] = detected_language(row.get("title"), row.get("description"))
    return {column: row.get(column) for column in stage.STAGED}


# Removing more than this share of what is published (and more than a handful of rows),
# or everything, is far likelier a misconfiguration (the wrong source database, an
# empty cluster) than the market: refused unless asked for explicitly.
MASS_REMOVAL_SHARE = 0.5
MASS_REMOVAL_MIN_ROWS = 50


def check_removal(counts: Mapping[str, int], source_rows: int) -> str | None:
    """Why this diff removes too much to apply unasked, or None."""
    removed = counts["removed"]
    published = removed + counts["updated"] + counts["unchanged"]
    if not removed:
        return None
    if source_rows == 0:
        return (
            f"the source has no open postings: the sync would remove all {removed} published rows"
        )
    if removed > MASS_REMOVAL_MIN_ROWS and removed / published > MASS_REMOVAL_SHARE:
        return f"the sync would remove {removed} of {published} published rows ({removed / published:.0%})"
    return None


@dataclass(frozen=True)
class Options:
    dry_run: bool = False
    allow_mass_removal: bool = False
    full: bool = False
    full_every: timedelta | None = None
    retention_days: int = DEFAULT_RETENTION_DAYS
    batch: int = BATCH_ROWS
    sample_size: int = SAMPLE_ROWS
    freshness_max_lag_s: float = DEFAULT_MAX_LAG_S


def reconcile(
    source_db: Database,
    serving_db: Database,
    *,
    dry_run: bool = False,
    allow_mass_removal: bool = False,
    full: bool = False,
    full_every_hours: float | None = None,
    retention_days: int = DEFAULT_RETENTION_DAYS,
    batch: int = BATCH_ROWS,
    freshness_max_lag_s: float = DEFAULT_MAX_LAG_S,
) -> SyncReport:
    """One sync. `full` reconciles everything; `full_every_hours` makes a run full when
    the last full reconcile is older than that (None or 0: only when asked or needed).
    An applied sync also publishes the freshness summary (serving.freshness), judged
    against `freshness_max_lag_s`."""
    options = Options(
        dry_run=dry_run,
        allow_mass_removal=allow_mass_removal,
        full=full,
        full_every=timedelta(hours=full_every_hours) if full_every_hours else None,
        retention_days=retention_days,
        batch=batch,
        freshness_max_lag_s=freshness_max_lag_s,
    )
    schema.upgrade(serving_db)
    started = time.monotonic()
    with serving_db.connect() as conn, source_db.connect() as source:
        # One consistent view of every table read.
        source.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        try:
            with conn.transaction(force_rollback=dry_run):
                conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (_SYNC_LOCK,))
                # The commit waits for its WAL flush whatever the server's default: the
                # VACUUM after it (vacuum_jobs) can mark a page all-visible only once its
                # rows' commit is flushed (until then their hint bits cannot be set).
                conn.execute("SET LOCAL synchronous_commit = on")
                report, snapshot, identity = _sync(conn, source, options)
                report = replace(report, elapsed_s=time.monotonic() - started)
                if not dry_run:
                    _record(conn, report, "applied", snapshot, identity)
        except Exception as exc:
            _record_failure(conn, dry_run, exc)
            raise
        if dry_run:
            with conn.transaction():
                _record(conn, report, "previewed", None, None)
        elif vacuum_due(report):
            vacuum_jobs(conn)
    return report


def vacuum_due(report: SyncReport) -> bool:
    """Whether the applied sync left old row versions in serving.jobs: any row it
    inserted, updated or removed (liveness goes to serving.job_liveness)."""
    return report.changed > 0


def vacuum_jobs(conn: DictConnection) -> None:
    """VACUUM serving.jobs after the sync's commit. Each row the sync rewrote clears
    its page's all-visible bit, and a page not all-visible is read from the heap by
    every index-only scan and every bitmap scan's row check; a 1% sync stays far below
    autovacuum's thresholds, so until then filtered searches read those pages: at
    200,000 rows a term with 3 filters went from p95 12 ms to 21 ms after a 1% sync,
    and back to 12 ms after a VACUUM of 2 s. SKIP_LOCKED: a VACUUM already running
    (autovacuum, another sync's) does the same work, so this one does not wait."""
    conn.autocommit = True  # VACUUM cannot run inside a transaction block
    try:
        started = time.monotonic()
        conn.execute("VACUUM (SKIP_LOCKED) serving.jobs")
        log.info("serving.jobs vacuumed after the sync in %.1fs", time.monotonic() - started)
    finally:
        conn.autocommit = False


def _sync(
    conn: DictConnection, source: DictConnection, options: Options
) -> tuple[SyncReport, str, str]:
    # The source transaction lasts as long as the read, not the writes and checks.
    with source.transaction():
        snapshot, identity = open_snapshot(source)
        mode = choose_mode(
            read_history(conn),
            identity=identity,
            now=datetime.now(UTC),
            full_requested=options.full,
            full_every=options.full_every,
        )
        base = None if mode.full else _base(conn)
        read = SourceRead(source, snapshot, identity, base, options.retention_days, options.batch)
        staged = _stage_all(conn, read)
        total = read.published_total()
        fresh = None if options.dry_run else _freshness_read(conn, source, mode, options)
    stage.classify(conn)
    counts = stage.diff_counts(conn, mode.full)
    too_much = check_removal(counts, total)
    if too_much and not options.allow_mass_removal and not options.dry_run:
        raise FatalError(
            f"{too_much}; refusing (check which databases this run uses, or pass "
            "--allow-mass-removal if this is intended)"
        )
    if options.dry_run:
        return _report(options, mode, total, staged, counts, _preview(conn, mode, options)), "", ""
    backfill_suggestions = mode.full and typeahead.missing(conn)
    stage.apply_content(conn, mode.full)
    liveness = stage.apply_liveness(conn)
    closed, pruned = stage.apply_closures(conn, mode.full, options.retention_days)
    kill_point("sync:before_verify")  # test-only: crash drill boundaries
    verify(conn, Expected(published_total=total, full=mode.full))
    if facet_totals.refresh_needed(
        conn, counts["inserted"] + counts["updated"] + counts["removed"]
    ):
        facet_totals.refresh(conn)
    if lexicon.rebuild_needed(mode.full, counts):
        lexicon.rebuild(conn)
    if counts["inserted"] + counts["updated"]:
        # What the sync wrote into the GIN indexes' pending lists, moved into the
        # indexes once here rather than read again by every search (flush_gin_pending).
        conn.execute("SELECT serving.flush_gin_pending()")
    lexicon.keep_shares(conn)
    if backfill_suggestions:
        typeahead.rebuild(conn)
    assert fresh is not None
    freshness.publish(conn, fresh, options.freshness_max_lag_s)
    kill_point("sync:after_verify")
    applied = {"liveness": liveness, "closed": closed, "pruned": pruned}
    return _report(options, mode, total, staged, counts, applied), snapshot, identity


def _freshness_read(
    conn: DictConnection, source: DictConnection, mode: Mode, options: Options
) -> freshness.FreshnessRead:
    return freshness.read_for_sync(
        source, conn, full=mode.full, max_lag_s=options.freshness_max_lag_s
    )


def _stage_all(conn: DictConnection, read: SourceRead) -> int:
    stage.create_staging(conn)
    with Progress("sync: rows staged", None) as progress:
        rows = _content_rows(read.content(), progress)
        staged = stage.copy_rows(conn, "staging", stage.STAGED, rows)
    stage.copy_rows(conn, "staging_gone", ("id",), ((r["id"],) for r in read.gone()))
    stage.copy_rows(
        conn,
        "staging_live",
        ("id", "last_seen_on"),
        ((r["id"], r["last_seen_on"]) for r in read.liveness()),
    )
    stage.copy_rows(
        conn,
        "staging_closed",
        stage.CLOSED,
        ([r[c] for c in stage.CLOSED] for r in read.closures()),
    )
    duplicates = stage.duplicate_ids(conn)
    if duplicates:
        raise VerificationFailed(f"the snapshot has duplicate ids: {duplicates}")
    stage.index_staging(conn)
    return staged


def _content_rows(records: Iterator[dict[str, Any]], progress: Progress) -> Iterator[list[Any]]:
    for record in records:
        row = serving_row(record)
        yield [row[c] for c in stage.STAGED]
        progress.advance()


def _preview(conn: DictConnection, mode: Mode, options: Options) -> dict[str, Any]:
    return {
        "liveness": stage.liveness_pending(conn),
        "sample": stage.sample(conn, mode.full, options.sample_size),
    }


def _report(
    options: Options,
    mode: Mode,
    total: int,
    staged: int,
    counts: Mapping[str, int],
    extra: Mapping[str, Any],
) -> SyncReport:
    return SyncReport(
        dry_run=options.dry_run,
        source_rows=total,
        inserted=counts["inserted"],
        updated=counts["updated"],
        removed=counts["removed"],
        unchanged=counts["unchanged"],
        elapsed_s=0.0,
        mode=mode.name,
        mode_reason=mode.reason,
        staged=staged,
        retained=counts["retained"],
        liveness=extra.get("liveness", 0),
        closed=extra.get("closed", 0),
        pruned=extra.get("pruned", 0),
        sample=extra.get("sample", {}),
    )


_HISTORY = """
WITH base AS (
    SELECT id, started_at, source_snapshot, source_identity FROM serving.sync_runs
    WHERE status = 'applied' ORDER BY id DESC LIMIT 1
)
SELECT b.source_snapshot, b.source_identity,
       (SELECT max(finished_at) FROM serving.sync_runs
         WHERE status = 'applied' AND mode = 'full') AS last_full_at,
       EXISTS (SELECT 1 FROM serving.sync_runs AS r
                WHERE r.status = 'failed' AND NOT r.dry_run AND r.id > b.id) AS failed_since_base,
       EXISTS (SELECT 1 FROM serving.schema_versions AS v
                WHERE v.applied_at > b.started_at) AS migrated_since_base
FROM base AS b
"""


def read_history(conn: DictConnection) -> History:
    row = conn.execute(_HISTORY).fetchone()
    if row is None:
        return History(None, None, None, False)
    return History(
        row["source_snapshot"],
        row["source_identity"],
        row["last_full_at"],
        row["failed_since_base"],
        row["migrated_since_base"],
    )


def _base(conn: DictConnection) -> Base:
    history = read_history(conn)
    assert history.base_snapshot is not None
    return Base(history.base_snapshot, snapshot_xmin(history.base_snapshot))


_RECORD = """
INSERT INTO serving.sync_runs (dry_run, status, source_rows, inserted, updated, removed, unchanged,
                               mode, mode_reason, source_identity, source_snapshot, retained,
                               liveness, closed, pruned, error, finished_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, NULL, now())
"""


def _record(
    conn: DictConnection,
    report: SyncReport,
    status: str,
    snapshot: str | None,
    identity: str | None,
) -> None:
    conn.execute(
        _RECORD,
        (
            report.dry_run,
            status,
            report.source_rows,
            report.inserted,
            report.updated,
            report.removed,
            report.unchanged,
            report.mode,
            report.mode_reason,
            identity,
            snapshot,
            report.retained,
            report.liveness,
            report.closed,
            report.pruned,
        ),
    )


def _record_failure(conn: DictConnection, dry_run: bool, exc: Exception) -> None:
    if conn.closed:
        return
    with conn.transaction():
        conn.execute(
            "INSERT INTO serving.sync_runs (dry_run, status, error, finished_at) "
            "VALUES (%s, 'failed', %s, now())",
            (dry_run, f"{type(exc).__name__}: {exc}"),
        )


def search(serving_db: Database, query: str, limit: int = 5) -> Iterator[dict[str, Any]]:
    with serving_db.connect() as conn:
        yield from conn.execute(
            "SELECT * FROM serving.search_jobs(%s, %s)", (query, limit)
        ).fetchall()
