"""The listing format a board is read in (`crawl.boards.format`): one of its platform's
formats (pipeline.crawl.platforms, `Platform.listing_formats`), recorded by the catalog
sync, by `jobharbor boards import` (the best format the board answered in) and by
discover when a format the board no longer serves falls back to the next one
(pipeline.phases.fallback). NULL on a platform that has one listing format.

Revision ID: board_format
Revises: backfill_approvals
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "board_format"
down_revision = "backfill_approvals"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("boards", sa.Column("format", sa.Text(), nullable=True), schema="crawl")


def downgrade() -> None:
    op.drop_column("boards", "format", schema="crawl")
