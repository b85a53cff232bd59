"""Authoritative schema: ref (source identities), crawl (queue, raw objects, scans),
core (postings, versioned parse results, status events).

Revision ID: authoritative_schema
Revises:
Create Date: 2026-11-30 04:04:22.252686
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "authoritative_schema"
down_revision = None
branch_labels = None
depends_on = None


SCHEMAS = ("ref", "crawl", "core")


def upgrade() -> None:
    for schema in SCHEMAS:
        op.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    op.create_table(
        "hosts",
        sa.Column("host", sa.Text(), nullable=False),
        sa.Column("rate_per_s", sa.Float(), nullable=False),
        sa.Column("burst", sa.Integer(), nullable=False),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column(
            "tokens_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.Column("cooldown_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cooldown_reason", sa.Text(), nullable=True),
        sa.Column("cooldown_streak", sa.Integer(), server_default="0", nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("host", name=op.f("pk_hosts")),
        schema="crawl",
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("phase", sa.Text(), nullable=False),
        sa.Column("source_id", sa.Text(), nullable=True),
        sa.Column("worker", sa.Text(), nullable=False),
        sa.Column("status", sa.Text(), server_default="running", nullable=False),
        sa.Column(
            "stats",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column(
            "started_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('running', 'succeeded', 'failed', 'skipped')", name=op.f("ck_runs_status")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
        schema="crawl",
    )
    op.create_index(
        "ix_runs_phase_source_started",
        "runs",
        ["phase", "source_id", "started_at"],
        unique=False,
        schema="crawl",
    )
    op.create_table(
        "sources",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("platform", sa.Text(), nullable=False),
        sa.Column("display_name", sa.Text(), nullable=False),
        sa.Column("parser", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), server_default=sa.text("true"), nullable=False),
        sa.Column("config", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("config_hash", sa.Text(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sources")),
        schema="ref",
    )
    op.create_table(
        "boards",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("source_id", sa.Text(), nullable=False),
        sa.Column("board_key", sa.Text(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("lane", sa.Text(), nullable=False),
        sa.Column("host", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), server_default="active", nullable=False),
        sa.Column("state_reason", sa.Text(), nullable=True),
        sa.Column("enabled", sa.Boolean(), server_default=sa.text("true"), nullable=False),
        sa.Column("origin", sa.Text(), server_default="config", nullable=False),
        sa.Column(
            "due_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.Column("interval_s", sa.Integer(), server_default="3600", nullable=False),
        sa.Column("quiet_passes", sa.Integer(), server_default="0", nullable=False),
        sa.Column("lease_owner", sa.Text(), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("etag", sa.Text(), nullable=True),
        sa.Column("last_modified", sa.Text(), nullable=True),
        sa.Column("body_hash", sa.Text(), nullable=True),
        sa.Column("item_count", sa.Integer(), nullable=True),
        sa.Column("scope_hash", sa.Text(), nullable=True),
        sa.Column("consecutive_failures", sa.Integer(), server_default="0", nullable=False),
        sa.Column("consecutive_404s", sa.Integer(), server_default="0", nullable=False),
        sa.Column("last_polled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_changed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_full_pass_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "state IN ('active', 'backoff', 'retired')", name=op.f("ck_boards_state")
        ),
        sa.ForeignKeyConstraint(
            ["source_id"], ["ref.sources.id"], name=op.f("fk_boards_source_id_sources")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_boards")),
        sa.UniqueConstraint("source_id", "board_key", name=op.f("uq_boards_source_id_board_key")),
        schema="crawl",
    )
    op.create_index(
        "ix_boards_lane_due",
        "boards",
        ["lane", "due_at"],
        unique=False,
        schema="crawl",
        postgresql_where=sa.text("state <> 'retired'"),
    )
    op.create_table(
        "fetch_attempts",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("run_id", sa.BigInteger(), nullable=True),
        sa.Column("board_id", sa.BigInteger(), nullable=True),
        sa.Column("posting_id", sa.BigInteger(), nullable=True),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("host", sa.Text(), nullable=False),
        sa.Column("method", sa.Text(), server_default="GET", nullable=False),
        sa.Column("transport", sa.Text(), server_default="http", nullable=False),
        sa.Column("http_status", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.Text(), nullable=False),
        sa.Column("byte_length", sa.BigInteger(), nullable=True),
        sa.Column("elapsed_ms", sa.Integer(), nullable=True),
        sa.Column("raw_sha256", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column(
            "attempted_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["crawl.runs.id"], name=op.f("fk_fetch_attempts_run_id_runs")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fetch_attempts")),
        schema="crawl",
    )
    op.create_index(
        "ix_fetch_attempts_host_attempted",
        "fetch_attempts",
        ["host", "attempted_at"],
        unique=False,
        schema="crawl",
    )
    op.create_table(
        "raw_objects",
        sa.Column("sha256", sa.Text(), nullable=False),
        sa.Column("object_key", sa.Text(), nullable=False),
        sa.Column("byte_length", sa.BigInteger(), nullable=False),
        sa.Column("content_type", sa.Text(), nullable=True),
        sa.Column("source_id", sa.Text(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("http_status", sa.Integer(), nullable=True),
        sa.Column("state", sa.Text(), server_default="pending", nullable=False),
        sa.Column("state_reason", sa.Text(), nullable=True),
        sa.Column(
            "fetched_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "state IN ('pending', 'ready', 'lost', 'deleted')", name=op.f("ck_raw_objects_state")
        ),
        sa.ForeignKeyConstraint(
            ["source_id"], ["ref.sources.id"], name=op.f("fk_raw_objects_source_id_sources")
        ),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_raw_objects")),
        sa.UniqueConstraint("object_key", name=op.f("uq_raw_objects_object_key")),
        schema="crawl",
    )
    op.create_index(
        "ix_raw_objects_pending",
        "raw_objects",
        ["created_at"],
        unique=False,
        schema="crawl",
        postgresql_where=sa.text("state = 'pending'"),
    )
    op.create_table(
        "postings",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("source_id", sa.Text(), nullable=False),
        sa.Column("external_id", sa.Text(), nullable=False),
        sa.Column("board_id", sa.BigInteger(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column(
            "first_seen_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "last_seen_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("last_seen_scan_id", sa.BigInteger(), nullable=True),
        sa.Column("row_hash", sa.Text(), nullable=True),
        sa.Column("listing_raw_sha256", sa.Text(), nullable=True),
        sa.Column("content_raw_sha256", sa.Text(), nullable=True),
        sa.Column("detail_url", sa.Text(), nullable=True),
        sa.Column("detail_state", sa.Text(), server_default="not_needed", nullable=False),
        sa.Column("detail_attempts", sa.Integer(), server_default="0", nullable=False),
        sa.Column("status", sa.Text(), server_default="active", nullable=False),
        sa.Column("missing_count", sa.Integer(), server_default="0", nullable=False),
        sa.Column(
            "status_changed_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("close_reason", sa.Text(), nullable=True),
        sa.Column("close_evidence", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("repost_key", sa.Text(), nullable=True),
        sa.Column("duplicate_group", sa.BigInteger(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "detail_state IN ('not_needed', 'needed', 'fetched', 'failed', 'blocked')",
            name=op.f("ck_postings_detail_state"),
        ),
        sa.CheckConstraint(
            "status IN ('active', 'missing', 'expired', 'not_found', 'filtered')",
            name=op.f("ck_postings_status"),
        ),
        sa.ForeignKeyConstraint(
            ["board_id"], ["crawl.boards.id"], name=op.f("fk_postings_board_id_boards")
        ),
        sa.ForeignKeyConstraint(
            ["content_raw_sha256"],
            ["crawl.raw_objects.sha256"],
            name=op.f("fk_postings_content_raw_sha256_raw_objects"),
        ),
        sa.ForeignKeyConstraint(
            ["listing_raw_sha256"],
            ["crawl.raw_objects.sha256"],
            name=op.f("fk_postings_listing_raw_sha256_raw_objects"),
        ),
        sa.ForeignKeyConstraint(
            ["source_id"], ["ref.sources.id"], name=op.f("fk_postings_source_id_sources")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_postings")),
        sa.UniqueConstraint(
            "source_id", "external_id", name=op.f("uq_postings_source_id_external_id")
        ),
        schema="core",
    )
    op.create_index(
        "ix_postings_board_status", "postings", ["board_id", "status"], unique=False, schema="core"
    )
    op.create_index(
        "ix_postings_detail_needed",
        "postings",
        ["source_id"],
        unique=False,
        schema="core",
        postgresql_where=sa.text("detail_state = 'needed'"),
    )
    op.create_table(
        "scans",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("run_id", sa.BigInteger(), nullable=True),
        sa.Column("board_id", sa.BigInteger(), nullable=False),
        sa.Column("outcome", sa.Text(), nullable=False),
        sa.Column("complete", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("truncated", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("pages", sa.Integer(), server_default="0", nullable=False),
        sa.Column("items_seen", sa.Integer(), server_default="0", nullable=False),
        sa.Column("total_reported", sa.Integer(), nullable=True),
        sa.Column("new_items", sa.Integer(), server_default="0", nullable=False),
        sa.Column("changed_items", sa.Integer(), server_default="0", nullable=False),
        sa.Column("http_status", sa.Integer(), nullable=True),
        sa.Column("raw_sha256", sa.Text(), nullable=True),
        sa.Column("scope_hash", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column(
            "issues",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
        sa.Column(
            "started_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "outcome IN ('not_modified', 'unchanged', 'changed', 'failed', 'rate_limited', 'deferred', 'blocked', 'empty', 'rejected')",
            name=op.f("ck_scans_outcome"),
        ),
        sa.ForeignKeyConstraint(
            ["board_id"], ["crawl.boards.id"], name=op.f("fk_scans_board_id_boards")
        ),
        sa.ForeignKeyConstraint(
            ["raw_sha256"],
            ["crawl.raw_objects.sha256"],
            name=op.f("fk_scans_raw_sha256_raw_objects"),
        ),
        sa.ForeignKeyConstraint(["run_id"], ["crawl.runs.id"], name=op.f("fk_scans_run_id_runs")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_scans")),
        schema="crawl",
    )
    op.create_index(
        "ix_scans_board_started", "scans", ["board_id", "started_at"], unique=False, schema="crawl"
    )
    op.create_table(
        "parse_results",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("posting_id", sa.BigInteger(), nullable=False),
        sa.Column("raw_sha256", sa.Text(), nullable=False),
        sa.Column("parser_name", sa.Text(), nullable=False),
        sa.Column("parser_version", sa.Text(), nullable=False),
        sa.Column("quality", sa.Text(), nullable=False),
        sa.Column(
            "issues",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
        sa.Column("is_current", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("content_hash", sa.Text(), nullable=True),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("company", sa.Text(), nullable=True),
        sa.Column("department", sa.Text(), nullable=True),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("apply_url", sa.Text(), nullable=True),
        sa.Column("location_text", sa.Text(), nullable=True),
        sa.Column("offices", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("location", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("remote", sa.Text(), nullable=True),
        sa.Column("employment_type", sa.Text(), nullable=True),
        sa.Column("job_type", sa.Text(), nullable=True),
        sa.Column("posted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("posted_precision", sa.Text(), nullable=True),
        sa.Column("salary_raw", sa.Text(), nullable=True),
        sa.Column("salary_min", sa.Numeric(), nullable=True),
        sa.Column("salary_max", sa.Numeric(), nullable=True),
        sa.Column("salary_currency", sa.Text(), nullable=True),
        sa.Column("salary_period", sa.Text(), nullable=True),
        sa.Column("description_html", sa.Text(), nullable=True),
        sa.Column("description_text", sa.Text(), nullable=True),
        sa.Column("payload", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column(
            "parsed_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.CheckConstraint(
            "NOT is_current OR quality <> 'rejected'",
            name=op.f("ck_parse_results_current_not_rejected"),
        ),
        sa.CheckConstraint(
            "quality IN ('accepted', 'partial', 'rejected')", name=op.f("ck_parse_results_quality")
        ),
        sa.ForeignKeyConstraint(
            ["posting_id"], ["core.postings.id"], name=op.f("fk_parse_results_posting_id_postings")
        ),
        sa.ForeignKeyConstraint(
            ["raw_sha256"],
            ["crawl.raw_objects.sha256"],
            name=op.f("fk_parse_results_raw_sha256_raw_objects"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_parse_results")),
        sa.UniqueConstraint(
            "posting_id",
            "raw_sha256",
            "parser_name",
            "parser_version",
            name=op.f("uq_parse_results_posting_id_raw_sha256_parser_name_parser_version"),
        ),
        schema="core",
    )
    op.create_index(
        "uq_parse_results_one_current",
        "parse_results",
        ["posting_id"],
        unique=True,
        schema="core",
        postgresql_where=sa.text("is_current"),
    )
    op.create_table(
        "posting_events",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("posting_id", sa.BigInteger(), nullable=False),
        sa.Column("from_status", sa.Text(), nullable=True),
        sa.Column("to_status", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column(
            "evidence",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column("run_id", sa.BigInteger(), nullable=True),
        sa.Column("scan_id", sa.BigInteger(), nullable=True),
        sa.Column(
            "at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["posting_id"], ["core.postings.id"], name=op.f("fk_posting_events_posting_id_postings")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_posting_events")),
        schema="core",
    )
    op.create_index(
        "ix_posting_events_posting_at",
        "posting_events",
        ["posting_id", "at"],
        unique=False,
        schema="core",
    )


def downgrade() -> None:
    op.drop_index("ix_posting_events_posting_at", table_name="posting_events", schema="core")
    op.drop_table("posting_events", schema="core")
    op.drop_index(
        "uq_parse_results_one_current",
        table_name="parse_results",
        schema="core",
        postgresql_where=sa.text("is_current"),
    )
    op.drop_table("parse_results", schema="core")
    op.drop_index("ix_scans_board_started", table_name="scans", schema="crawl")
    op.drop_table("scans", schema="crawl")
    op.drop_index(
        "ix_postings_detail_needed",
        table_name="postings",
        schema="core",
        postgresql_where=sa.text("detail_state = 'needed'"),
    )
    op.drop_index("ix_postings_board_status", table_name="postings", schema="core")
    op.drop_table("postings", schema="core")
    op.drop_index(
        "ix_raw_objects_pending",
        table_name="raw_objects",
        schema="crawl",
        postgresql_where=sa.text("state = 'pending'"),
    )
    op.drop_table("raw_objects", schema="crawl")
    op.drop_index("ix_fetch_attempts_host_attempted", table_name="fetch_attempts", schema="crawl")
    op.drop_table("fetch_attempts", schema="crawl")
    op.drop_index(
        "ix_boards_lane_due",
        table_name="boards",
        schema="crawl",
        postgresql_where=sa.text("state <> 'retired'"),
    )
    op.drop_table("boards", schema="crawl")
    op.drop_table("sources", schema="ref")
    op.drop_index("ix_runs_phase_source_started", table_name="runs", schema="crawl")
    op.drop_table("runs", schema="crawl")
    op.drop_table("hosts", schema="crawl")
    for schema in reversed(SCHEMAS):
        op.execute(f"DROP SCHEMA IF EXISTS {schema}")
