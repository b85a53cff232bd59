"""Lifecycle and identity: direct-check state, repost and opening keys, duplicate
groups, empty-listing streaks and pending absences on boards.

Revision ID: lifecycle_identity
Revises: crawl_engine
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "lifecycle_identity"
down_revision = "crawl_engine"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "boards",
        sa.Column("empty_streak", sa.Integer(), server_default="0", nullable=False),
        schema="crawl",
    )
    op.add_column(
        "boards",
        sa.Column("suspect_since", sa.DateTime(timezone=True), nullable=True),
        schema="crawl",
    )
    op.add_column(
        "boards",
        sa.Column("pending_absences", sa.Integer(), server_default="0", nullable=False),
        schema="crawl",
    )
    op.add_column(
        "postings",
        sa.Column("last_checked_at", sa.DateTime(timezone=True), nullable=True),
        schema="core",
    )
    op.add_column("postings", sa.Column("check_outcome", sa.Text(), nullable=True), schema="core")
    op.add_column(
        "postings",
        sa.Column("check_count", sa.Integer(), server_default="0", nullable=False),
        schema="core",
    )
    op.add_column("postings", sa.Column("opening_key", sa.Text(), nullable=True), schema="core")
    op.add_column(
        "postings", sa.Column("grouped_content_hash", sa.Text(), nullable=True), schema="core"
    )
    op.create_index("ix_postings_source_status", "postings", ["source_id", "status"], schema="core")
    op.create_index("ix_postings_repost_key", "postings", ["repost_key"], schema="core")
    op.create_index("ix_postings_duplicate_group", "postings", ["duplicate_group"], schema="core")


def downgrade() -> None:
    op.drop_index("ix_postings_duplicate_group", table_name="postings", schema="core")
    op.drop_index("ix_postings_repost_key", table_name="postings", schema="core")
    op.drop_index("ix_postings_source_status", table_name="postings", schema="core")
    for column in (
        "grouped_content_hash",
        "opening_key",
        "check_count",
        "check_outcome",
        "last_checked_at",
    ):
        op.drop_column("postings", column, schema="core")
    for column in ("pending_absences", "suspect_since", "empty_streak"):
        op.drop_column("boards", column, schema="crawl")
