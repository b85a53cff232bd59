"""Enrichment: the enrich queue, results tied to the content hash, provider budgets
and their spend ledger, and the `enrich.current_values` view the serving sync joins.

Revision ID: enrichment
Revises: lifecycle_identity
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "enrichment"
down_revision = "lifecycle_identity"
branch_labels = None
depends_on = None

QUEUE_STATES = "state IN ('queued', 'leased', 'done', 'failed')"

CURRENT_VALUES = """
CREATE VIEW enrich.current_values AS
SELECT r.posting_id,
       (r.fields -> 'experience_min' ->> 'value')::int AS experience_min,
       (r.fields -> 'experience_max' ->> 'value')::int AS experience_max,
       r.fields -> 'seniority' ->> 'value' AS seniority,
       r.fields -> 'work_mode' ->> 'value' AS work_mode,
       r.fields -> 'employment_type' ->> 'value' AS employment_type,
       r.fields -> 'education' ->> 'value' AS education,
       ARRAY(SELECT DISTINCT s ->> 'key' FROM jsonb_array_elements(r.skills_required) s
             WHERE s ->> 'key' IS NOT NULL ORDER BY 1) AS skills_required,
       ARRAY(SELECT DISTINCT s ->> 'key' FROM jsonb_array_elements(r.skills_preferred) s
             WHERE s ->> 'key' IS NOT NULL ORDER BY 1) AS skills_preferred,
       r.fields AS evidence,
       r.skills_required AS skills_required_evidence,
       r.skills_preferred AS skills_preferred_evidence,
       r.text_hash, r.provider, r.model, r.created_at AS enriched_at
FROM enrich.results r
WHERE r.is_current
"""


def _ts(name: str, nullable: bool = True, default_now: bool = False) -> sa.Column:
    return sa.Column(
        name,
        sa.DateTime(timezone=True),
        nullable=nullable,
        server_default=sa.text("now()") if default_now else None,
    )


def _jsonb(name: str, default: str = "'[]'::jsonb") -> sa.Column:
    return sa.Column(name, postgresql.JSONB(), server_default=sa.text(default), nullable=False)


def upgrade() -> None:
    op.execute("CREATE SCHEMA IF NOT EXISTS enrich")
    op.create_table(
        "queue",
        sa.Column("posting_id", sa.BigInteger(), nullable=False),
        sa.Column("source_id", sa.Text(), nullable=False),
        sa.Column("parse_result_id", sa.BigInteger(), nullable=False),
        sa.Column("text_hash", sa.Text(), nullable=False),
        sa.Column("result_key", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), server_default="queued", nullable=False),
        sa.Column("alone", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        sa.Column("reasks", sa.Integer(), server_default="0", nullable=False),
        sa.Column("reask_error", sa.Text(), nullable=True),
        _ts("next_try_at", False, True),
        sa.Column("lease_owner", sa.Text(), nullable=True),
        _ts("lease_expires_at"),
        sa.Column("last_error_class", sa.Text(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        _ts("enqueued_at", False, True),
        _ts("updated_at", False, True),
        sa.CheckConstraint(QUEUE_STATES, name=op.f("ck_queue_state")),
        sa.ForeignKeyConstraint(
            ["posting_id"], ["core.postings.id"], name=op.f("fk_queue_posting_id_postings")
        ),
        sa.PrimaryKeyConstraint("posting_id", name=op.f("pk_queue")),
        schema="enrich",
    )
    op.create_index(
        "ix_queue_state_next_try_at", "queue", ["state", "next_try_at"], schema="enrich"
    )
    op.create_table(
        "results",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("posting_id", sa.BigInteger(), nullable=False),
        sa.Column("result_key", sa.Text(), nullable=False),
        sa.Column("text_hash", sa.Text(), nullable=False),
        sa.Column("provider", sa.Text(), nullable=False),
        sa.Column("model", sa.Text(), nullable=False),
        sa.Column("prompt_version", sa.Text(), nullable=False),
        sa.Column("schema_version", sa.Text(), nullable=False),
        _jsonb("settings", "'{}'::jsonb"),
        _jsonb("fields", "'{}'::jsonb"),
        _jsonb("skills_required"),
        _jsonb("skills_preferred"),
        _jsonb("unmapped"),
        _jsonb("rejected"),
        _jsonb("usage", "'{}'::jsonb"),
        sa.Column("is_current", sa.Boolean(), server_default=sa.false(), nullable=False),
        _ts("created_at", False, True),
        sa.ForeignKeyConstraint(
            ["posting_id"], ["core.postings.id"], name=op.f("fk_results_posting_id_postings")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_results")),
        sa.UniqueConstraint(
            "posting_id", "result_key", name=op.f("uq_results_posting_id_result_key")
        ),
        schema="enrich",
    )
    op.create_index(
        "uq_results_one_current",
        "results",
        ["posting_id"],
        unique=True,
        schema="enrich",
        postgresql_where=sa.text("is_current"),
    )
    op.create_table(
        "budgets",
        sa.Column("provider", sa.Text(), nullable=False),
        sa.Column("model", sa.Text(), nullable=False),
        sa.Column("rpm", sa.Integer(), nullable=False),
        sa.Column("tpm", sa.Integer(), nullable=False),
        sa.Column("rpd", sa.Integer(), nullable=False),
        sa.Column("window_s", sa.Float(), server_default="60", nullable=False),
        _ts("cooldown_until"),
        sa.Column("cooldown_reason", sa.Text(), nullable=True),
        _ts("updated_at", False, True),
        sa.PrimaryKeyConstraint("provider", "model", name=op.f("pk_budgets")),
        schema="enrich",
    )
    op.create_table(
        "spend",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("provider", sa.Text(), nullable=False),
        sa.Column("model", sa.Text(), nullable=False),
        _ts("at", False, True),
        sa.Column("requests", sa.Integer(), server_default="1", nullable=False),
        sa.Column("tokens_reserved", sa.Integer(), nullable=False),
        sa.Column("tokens_used", sa.Integer(), nullable=True),
        sa.Column("worker", sa.Text(), nullable=True),
        _ts("reconciled_at"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_spend")),
        schema="enrich",
    )
    op.create_index(
        "ix_spend_provider_model_at", "spend", ["provider", "model", "at"], schema="enrich"
    )
    op.execute(CURRENT_VALUES)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS enrich.current_values")
    op.drop_index("ix_spend_provider_model_at", table_name="spend", schema="enrich")
    op.drop_table("spend", schema="enrich")
    op.drop_table("budgets", schema="enrich")
    op.drop_index("uq_results_one_current", table_name="results", schema="enrich")
    op.drop_table("results", schema="enrich")
    op.drop_index("ix_queue_state_next_try_at", table_name="queue", schema="enrich")
    op.drop_table("queue", schema="enrich")
    op.execute("DROP SCHEMA IF EXISTS enrich")
