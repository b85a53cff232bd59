"""What a backfill run's plan previewed and what a human decided about it
(`crawl.backfill_approvals`), one row per Airflow run.

Plan writes the manifest's path and fingerprint here; the approval records who chose
Approve or Reject, when and why; apply reads the fingerprint from here, not from an
XCom (which the UI and API can edit), and refuses a manifest that differs
(docs/operations.md, "Backfills").

Revision ID: backfill_approvals
Revises: posting_age_known
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "backfill_approvals"
down_revision = "posting_age_known"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "backfill_approvals",
        sa.Column("dag_id", sa.Text(), nullable=False),
        sa.Column("run_id", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("manifest_path", sa.Text(), nullable=False),
        sa.Column("fingerprint", sa.Text(), nullable=False),
        sa.Column(
            "planned_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("decision", sa.Text(), nullable=True),
        sa.Column("decided_by", sa.Text(), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "decision IN ('approved', 'rejected')", name=op.f("ck_backfill_approvals_decision")
        ),
        sa.PrimaryKeyConstraint("dag_id", "run_id", name=op.f("pk_backfill_approvals")),
        schema="crawl",
    )


def downgrade() -> None:
    op.drop_table("backfill_approvals", schema="crawl")
