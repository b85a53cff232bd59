"""The authoritative schema as SQLAlchemy Core tables.

Migrations (migrations/versions) create it; this module is the model that
`alembic check` compares the migrated database with, so the two cannot drift.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
metadata = sa.MetaData(naming_convention=NAMING)

SCHEMAS = ("ref", "crawl", "core", "enrich")

BOARD_STATES = ("active", "backoff", "retired")
SCAN_OUTCOMES = (
    "not_modified",
    "unchanged",
    "changed",
    "failed",
    "rate_limited",
    "deferred",
    "blocked",
    "empty",
    "rejected",
    "disallowed",  # robots.txt forbids the listing: our policy, not the host's answer
)
RAW_STATES = ("pending", "ready", "lost", "deleted")
POSTING_STATUSES = ("active", "missing", "expired", "not_found", "filtered")
DETAIL_STATES = ("not_needed", "needed", "fetched", "failed", "blocked", "disallowed")
ROBOTS_VERDICTS = ("rules", "allow_all", "disallow_all")
QUALITIES = ("accepted", "partial", "rejected")
COMPANY_SOURCES = ("config", "board", "derived")  # pipeline.normalize.company.BOARD_SOURCES
RUN_STATUSES = ("running", "succeeded", "failed", "skipped")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _now() -> sa.TextClause:
    return sa.text("now()")


def _ts(name: str, nullable: bool = True, default_now: bool = False) -> sa.Column:
    return sa.Column(
        name,
        sa.DateTime(timezone=True),
        nullable=nullable,
        server_default=_now() if default_now else None,
    )


sources = sa.Table(
    "sources",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("platform", sa.Text, nullable=False),
    sa.Column("display_name", sa.Text, nullable=False),
    sa.Column("parser", sa.Text, nullable=False),
    sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("config", JSONB, nullable=False),
    sa.Column("config_hash", sa.Text, nullable=False),
    _ts("created_at", False, True),
    _ts("updated_at", False, True),
    schema="ref",
)

boards = sa.Table(
    "boards",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("source_id", sa.Text, sa.ForeignKey("ref.sources.id"), nullable=False),
    sa.Column("board_key", sa.Text, nullable=False),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("lane", sa.Text, nullable=False),
    sa.Column("host", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=False, server_default="active"),
    sa.Column("state_reason", sa.Text),
    sa.Column("enabled", sa.Boolean, nullable=False, server_default=sa.true()),
    # "config" boards follow sources.yaml; "import" boards came from `boards import`.
    sa.Column("origin", sa.Text, nullable=False, server_default="config"),
    _ts("due_at", False, True),
    sa.Column("interval_s", sa.Integer, nullable=False, server_default="3600"),
    sa.Column("quiet_passes", sa.Integer, nullable=False, server_default="0"),
    sa.Column("lease_owner", sa.Text),
    _ts("lease_expires_at"),
    sa.Column("etag", sa.Text),
    sa.Column("last_modified", sa.Text),
    # body_hash: SHA-256 of the listing pages after stripping volatile fields (nonces,
    # clocks, relative dates); listing_hash: membership + row hashes, order-free.
    sa.Column("body_hash", sa.Text),
    sa.Column("listing_hash", sa.Text),
    sa.Column("item_count", sa.Integer),
    sa.Column("scope_hash", sa.Text),
    sa.Column("consecutive_failures", sa.Integer, nullable=False, server_default="0"),
    sa.Column("consecutive_404s", sa.Integer, nullable=False, server_default="0"),
    # Complete scans in a row that found the listing empty; repeated ones flag the
    # board for the operator (still retiring nothing).
    sa.Column("empty_streak", sa.Integer, nullable=False, server_default="0"),
    _ts("suspect_since"),
    # Active postings absent from the last complete scan (see lifecycle.refresh_pending_absences).
    sa.Column("pending_absences", sa.Integer, nullable=False, server_default="0"),
    # The change-rate evidence the schedule sets the interval from (pipeline.crawl.schedule):
    # polls that read the listing, how many found it changed, the seconds they covered.
    sa.Column("rate_polls", sa.Float, nullable=False, server_default="0"),
    sa.Column("rate_changes", sa.Float, nullable=False, server_default="0"),
    sa.Column("rate_seen_s", sa.Float, nullable=False, server_default="0"),
    # Who employs on this board, for postings that do not say (migration board_company):
    # sources.yaml's `company:`, the listing envelope's name, or a name read from the token.
    sa.Column("company", sa.Text),
    sa.Column("company_source", sa.Text),
    # The listing format the board is read in (migration board_format): NULL where the
    # platform has one; else the catalog's, the import's or the last fallback's choice.
    sa.Column("format", sa.Text),
    # When that format was last chosen over the better ones (migration format_return): a
    # board read in a fallback asks its best format again a week after it.
    _ts("format_chosen_at", False, True),
    _ts("last_polled_at"),
    _ts("last_changed_at"),
    _ts("last_full_pass_at"),
    _ts("created_at", False, True),
    _ts("updated_at", False, True),
    sa.UniqueConstraint("source_id", "board_key"),
    sa.CheckConstraint(_in("state", BOARD_STATES), name="state"),
    sa.CheckConstraint(_in("company_source", COMPANY_SOURCES), name="company_source"),
    sa.CheckConstraint("(company IS NULL) = (company_source IS NULL)", name="company_named"),
    sa.Index(
        "ix_boards_lane_due", "lane", "due_at", postgresql_where=sa.text("state <> 'retired'")
    ),
    sa.Index(
        "ix_boards_source_id_due",
        "source_id",
        "due_at",
        postgresql_where=sa.text("state <> 'retired'"),
    ),
    schema="crawl",
)

hosts = sa.Table(
    "hosts",
    metadata,
    sa.Column("host", sa.Text, primary_key=True),
    sa.Column("rate_per_s", sa.Float, nullable=False),
    sa.Column("burst", sa.Integer, nullable=False),
    sa.Column("tokens", sa.Float, nullable=False),
    _ts("tokens_at", False, True),
    _ts("cooldown_until"),
    sa.Column("cooldown_reason", sa.Text),
    sa.Column("cooldown_streak", sa.Integer, nullable=False, server_default="0"),
    _ts("updated_at", False, True),
    schema="crawl",
)

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("phase", sa.Text, nullable=False),
    sa.Column("source_id", sa.Text),
    sa.Column("worker", sa.Text, nullable=False),
    sa.Column("status", sa.Text, nullable=False, server_default="running"),
    sa.Column("stats", JSONB, nullable=False, server_default=sa.text("'{}'::jsonb")),
    sa.Column("error", sa.Text),
    _ts("started_at", False, True),
    _ts("finished_at"),
    sa.CheckConstraint(_in("status", RUN_STATUSES), name="status"),
    sa.Index("ix_runs_phase_source_started", "phase", "source_id", "started_at"),
    schema="crawl",
)

# A backfill run's plan (manifest path and fingerprint) and the human decision on it;
# apply checks the manifest it is given against this row (pipeline.backfill.approval).
backfill_approvals = sa.Table(
    "backfill_approvals",
    metadata,
    sa.Column("dag_id", sa.Text, primary_key=True),
    sa.Column("run_id", sa.Text, primary_key=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("manifest_path", sa.Text, nullable=False),
    sa.Column("fingerprint", sa.Text, nullable=False),
    _ts("planned_at", False, True),
    sa.Column("decision", sa.Text),
    sa.Column("decided_by", sa.Text),
    _ts("decided_at"),
    sa.Column("reason", sa.Text),
    sa.CheckConstraint(_in("decision", ("approved", "rejected")), name="decision"),
    schema="crawl",
)

raw_objects = sa.Table(
    "raw_objects",
    metadata,
    sa.Column("sha256", sa.Text, primary_key=True),
    sa.Column("object_key", sa.Text, nullable=False, unique=True),
    sa.Column("byte_length", sa.BigInteger, nullable=False),
    sa.Column("content_type", sa.Text),
    sa.Column("source_id", sa.Text, sa.ForeignKey("ref.sources.id"), nullable=False),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("http_status", sa.Integer),
    sa.Column("state", sa.Text, nullable=False, server_default="pending"),
    sa.Column("state_reason", sa.Text),
    _ts("fetched_at", False, True),
    _ts("created_at", False, True),
    _ts("updated_at", False, True),
    sa.CheckConstraint(_in("state", RAW_STATES), name="state"),
    sa.Index("ix_raw_objects_pending", "created_at", postgresql_where=sa.text("state = 'pending'")),
    schema="crawl",
)

scans = sa.Table(
    "scans",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("run_id", sa.BigInteger, sa.ForeignKey("crawl.runs.id")),
    sa.Column("board_id", sa.BigInteger, sa.ForeignKey("crawl.boards.id"), nullable=False),
    sa.Column("outcome", sa.Text, nullable=False),
    sa.Column("complete", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("truncated", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("pages", sa.Integer, nullable=False, server_default="0"),
    sa.Column("items_seen", sa.Integer, nullable=False, server_default="0"),
    sa.Column("total_reported", sa.Integer),
    sa.Column("new_items", sa.Integer, nullable=False, server_default="0"),
    sa.Column("changed_items", sa.Integer, nullable=False, server_default="0"),
    sa.Column("http_status", sa.Integer),
    sa.Column("raw_sha256", sa.Text, sa.ForeignKey("crawl.raw_objects.sha256")),
    sa.Column("scope_hash", sa.Text),
    # True when a count probe ended the poll after the first page (count unchanged).
    sa.Column("probe", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("error", sa.Text),
    sa.Column("issues", JSONB, nullable=False, server_default=sa.text("'[]'::jsonb")),
    _ts("started_at", False, True),
    _ts("finished_at"),
    sa.CheckConstraint(_in("outcome", SCAN_OUTCOMES), name="outcome"),
    sa.Index("ix_scans_board_started", "board_id", "started_at"),
    schema="crawl",
)

fetch_attempts = sa.Table(
    "fetch_attempts",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("run_id", sa.BigInteger, sa.ForeignKey("crawl.runs.id")),
    sa.Column("board_id", sa.BigInteger),
    sa.Column("posting_id", sa.BigInteger),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("host", sa.Text, nullable=False),
    sa.Column("method", sa.Text, nullable=False, server_default="GET"),
    sa.Column("transport", sa.Text, nullable=False, server_default="http"),
    sa.Column("http_status", sa.Integer),
    sa.Column("outcome", sa.Text, nullable=False),
    sa.Column("byte_length", sa.BigInteger),
    sa.Column("elapsed_ms", sa.Integer),
    sa.Column("raw_sha256", sa.Text),
    sa.Column("error", sa.Text),
    _ts("attempted_at", False, True),
    sa.Index("ix_fetch_attempts_host_attempted", "host", "attempted_at"),
    sa.Index("ix_fetch_attempts_board_id", "board_id"),
    schema="crawl",
)

robots = sa.Table(
    "robots",
    metadata,
    # One robots.txt per origin (scheme://host:port), cached across runs and workers.
    sa.Column("origin", sa.Text, primary_key=True),
    sa.Column("verdict", sa.Text, nullable=False),
    sa.Column("http_status", sa.Integer),
    sa.Column("body", sa.Text),
    sa.Column("error", sa.Text),
    _ts("fetched_at", False, True),
    _ts("expires_at", False),
    sa.CheckConstraint(_in("verdict", ROBOTS_VERDICTS), name="verdict"),
    schema="crawl",
)

_XACT = sa.text("(pg_current_xact_id()::text)::bigint")

postings = sa.Table(
    "postings",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("source_id", sa.Text, sa.ForeignKey("ref.sources.id"), nullable=False),
    sa.Column("external_id", sa.Text, nullable=False),
    sa.Column("board_id", sa.BigInteger, sa.ForeignKey("crawl.boards.id"), nullable=False),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("title", sa.Text),
    _ts("first_seen_at", False, True),
    # True when a complete scan of the board came before the posting was first seen:
    # first_seen_at then estimates its age (migration posting_age_known).
    sa.Column("age_known", sa.Boolean, nullable=False, server_default=sa.false()),
    _ts("last_seen_at", False, True),
    sa.Column("last_seen_scan_id", sa.BigInteger),
    sa.Column("row_hash", sa.Text),
    sa.Column("listing_raw_sha256", sa.Text, sa.ForeignKey("crawl.raw_objects.sha256")),
    sa.Column("content_raw_sha256", sa.Text, sa.ForeignKey("crawl.raw_objects.sha256")),
    sa.Column("detail_url", sa.Text),
    sa.Column("detail_state", sa.Text, nullable=False, server_default="not_needed"),
    sa.Column("detail_attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("status", sa.Text, nullable=False, server_default="active"),
    sa.Column("missing_count", sa.Integer, nullable=False, server_default="0"),
    _ts("status_changed_at", False, True),
    _ts("closed_at"),
    sa.Column("close_reason", sa.Text),
    sa.Column("close_evidence", JSONB),
    _ts("last_checked_at"),
    sa.Column("check_outcome", sa.Text),
    sa.Column("check_count", sa.Integer, nullable=False, server_default="0"),
    # The role (employer, title, first office) shared by reposts, and the opening
    # (the role plus its publication date) that tells a repost from a duplicate.
    sa.Column("repost_key", sa.Text),
    sa.Column("opening_key", sa.Text),
    sa.Column("duplicate_group", sa.BigInteger),
    sa.Column("grouped_content_hash", sa.Text),
    _ts("created_at", False, True),
    _ts("updated_at", False, True),
    # Serving sync change stamps (migration serving_change_stamps, kept by triggers): the
    # transaction that last changed what this posting publishes, or the day it was last seen.
    sa.Column("publish_xid", sa.BigInteger, nullable=False, server_default=_XACT),
    sa.Column("liveness_xid", sa.BigInteger, nullable=False, server_default=_XACT),
    sa.Column("publish_md5", sa.Text),
    sa.UniqueConstraint("source_id", "external_id"),
    sa.CheckConstraint(_in("status", POSTING_STATUSES), name="status"),
    sa.CheckConstraint(_in("detail_state", DETAIL_STATES), name="detail_state"),
    sa.Index("ix_postings_board_status", "board_id", "status"),
    sa.Index("ix_postings_source_status", "source_id", "status"),
    sa.Index("ix_postings_repost_key", "repost_key"),
    sa.Index("ix_postings_duplicate_group", "duplicate_group"),
    sa.Index("ix_postings_publish_xid", "publish_xid"),
    sa.Index("ix_postings_liveness_xid", "liveness_xid"),
    sa.Index(
        "ix_postings_detail_needed",
        "source_id",
        postgresql_where=sa.text("detail_state = 'needed'"),
    ),
    schema="core",
)

parse_results = sa.Table(
    "parse_results",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("posting_id", sa.BigInteger, sa.ForeignKey("core.postings.id"), nullable=False),
    sa.Column("raw_sha256", sa.Text, sa.ForeignKey("crawl.raw_objects.sha256"), nullable=False),
    sa.Column("parser_name", sa.Text, nullable=False),
    sa.Column("parser_version", sa.Text, nullable=False),
    sa.Column("quality", sa.Text, nullable=False),
    sa.Column("issues", JSONB, nullable=False, server_default=sa.text("'[]'::jsonb")),
    sa.Column("is_current", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("content_hash", sa.Text),
    sa.Column("title", sa.Text),
    sa.Column("company", sa.Text),  # the posting's own stated company only
    sa.Column("legal_entity", sa.Text),  # migration parse_legal_entity
    sa.Column("department", sa.Text),
    sa.Column("url", sa.Text),
    sa.Column("apply_url", sa.Text),
    sa.Column("location_text", sa.Text),
    sa.Column("offices", JSONB),
    sa.Column("location", JSONB),
    sa.Column("remote", sa.Text),
    sa.Column("employment_type", sa.Text),
    sa.Column("job_type", sa.Text),
    sa.Column("posted_at", sa.DateTime(timezone=True)),
    sa.Column("posted_precision", sa.Text),
    sa.Column("salary_raw", sa.Text),
    sa.Column("salary_min", sa.Numeric),
    sa.Column("salary_max", sa.Numeric),
    sa.Column("salary_currency", sa.Text),
    sa.Column("salary_period", sa.Text),
    sa.Column("description_html", sa.Text),
    sa.Column("description_text", sa.Text),
    sa.Column("payload", JSONB),
    _ts("parsed_at", False, True),
    sa.UniqueConstraint("posting_id", "raw_sha256", "parser_name", "parser_version"),
    sa.CheckConstraint(_in("quality", QUALITIES), name="quality"),
    sa.CheckConstraint("NOT is_current OR quality <> 'rejected'", name="current_not_rejected"),
    sa.Index(
        "uq_parse_results_one_current",
        "posting_id",
        unique=True,
        postgresql_where=sa.text("is_current"),
    ),
    schema="core",
)

posting_events = sa.Table(
    "posting_events",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("posting_id", sa.BigInteger, sa.ForeignKey("core.postings.id"), nullable=False),
    sa.Column("from_status", sa.Text),
    sa.Column("to_status", sa.Text, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("evidence", JSONB, nullable=False, server_default=sa.text("'{}'::jsonb")),
    sa.Column("run_id", sa.BigInteger),
    sa.Column("scan_id", sa.BigInteger),
    _ts("at", False, True),
    sa.Index("ix_posting_events_posting_at", "posting_id", "at"),
    schema="core",
)

# ---------------------------------------------------------------- enrich (migration enrichment)
ENRICH_QUEUE_STATES = ("queued", "leased", "done", "failed")


def _jsonb(name: str, default: str = "'[]'::jsonb") -> sa.Column:
    return sa.Column(name, JSONB, nullable=False, server_default=sa.text(default))


enrich_queue = sa.Table(
    "queue",
    metadata,
    sa.Column("posting_id", sa.BigInteger, sa.ForeignKey("core.postings.id"), primary_key=True),
    sa.Column("source_id", sa.Text, nullable=False),
    sa.Column("parse_result_id", sa.BigInteger, nullable=False),
    sa.Column("text_hash", sa.Text, nullable=False),
    sa.Column("result_key", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=False, server_default="queued"),
    sa.Column("alone", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("reasks", sa.Integer, nullable=False, server_default="0"),
    sa.Column("reask_error", sa.Text),
    _ts("next_try_at", False, True),
    sa.Column("lease_owner", sa.Text),
    _ts("lease_expires_at"),
    sa.Column("last_error_class", sa.Text),
    sa.Column("last_error", sa.Text),
    _ts("enqueued_at", False, True),
    _ts("updated_at", False, True),
    sa.CheckConstraint(_in("state", ENRICH_QUEUE_STATES), name="state"),
    sa.Index("ix_queue_state_next_try_at", "state", "next_try_at"),
    schema="enrich",
)

enrich_results = sa.Table(
    "results",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("posting_id", sa.BigInteger, sa.ForeignKey("core.postings.id"), nullable=False),
    sa.Column("result_key", sa.Text, nullable=False),
    sa.Column("text_hash", sa.Text, nullable=False),
    sa.Column("provider", sa.Text, nullable=False),
    sa.Column("model", sa.Text, nullable=False),
    sa.Column("prompt_version", sa.Text, nullable=False),
    sa.Column("schema_version", sa.Text, nullable=False),
    _jsonb("settings", "'{}'::jsonb"),
    _jsonb("fields", "'{}'::jsonb"),
    _jsonb("skills_required"),
    _jsonb("skills_preferred"),
    _jsonb("unmapped"),
    _jsonb("rejected"),
    _jsonb("usage", "'{}'::jsonb"),
    sa.Column("is_current", sa.Boolean, nullable=False, server_default=sa.false()),
    _ts("created_at", False, True),
    sa.UniqueConstraint("posting_id", "result_key"),
    sa.Index(
        "uq_results_one_current", "posting_id", unique=True, postgresql_where=sa.text("is_current")
    ),
    schema="enrich",
)

enrich_budgets = sa.Table(
    "budgets",
    metadata,
    sa.Column("provider", sa.Text, primary_key=True),
    sa.Column("model", sa.Text, primary_key=True),
    sa.Column("rpm", sa.Integer, nullable=False),
    sa.Column("tpm", sa.Integer, nullable=False),
    sa.Column("rpd", sa.Integer, nullable=False),
    sa.Column("window_s", sa.Float, nullable=False, server_default="60"),
    _ts("cooldown_until"),
    sa.Column("cooldown_reason", sa.Text),
    _ts("updated_at", False, True),
    schema="enrich",
)

enrich_spend = sa.Table(
    "spend",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("provider", sa.Text, nullable=False),
    sa.Column("model", sa.Text, nullable=False),
    _ts("at", False, True),
    sa.Column("requests", sa.Integer, nullable=False, server_default="1"),
    sa.Column("tokens_reserved", sa.Integer, nullable=False),
    sa.Column("tokens_used", sa.Integer),
    sa.Column("worker", sa.Text),
    _ts("reconciled_at"),
    sa.Index("ix_spend_provider_model_at", "provider", "model", "at"),
    schema="enrich",
)
