"""Boards keep the evidence of their change rate, which sets their poll interval.

Revision ID: board_change_rate
Revises: enrichment
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "board_change_rate"
down_revision = "enrichment"
branch_labels = None
depends_on = None

COLUMNS = ("rate_polls", "rate_changes", "rate_seen_s")


def upgrade() -> None:
    # No evidence yet: every board starts from the schedule's prior.
    for column in COLUMNS:
        op.add_column(
            "boards",
            sa.Column(column, sa.Float(), server_default="0", nullable=False),
            schema="crawl",
        )


def downgrade() -> None:
    for column in COLUMNS:
        op.drop_column("boards", column, schema="crawl")
