"""When a board's listing format was last chosen over the better ones
(`crawl.boards.format_chosen_at`): set when discover switches a board's format (a
fallback or a return) and when a return probe finds the better format still without a
listing; a board read in a fallback asks its platform's best format again a week after
it (pipeline.phases.fallback, `return_probe`). Existing boards take the migration's
time, so their first probes come a week after it, not all on the first run.

Revision ID: format_return
Revises: board_format
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "format_return"
down_revision = "board_format"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "boards",
        sa.Column(
            "format_chosen_at",
            sa.DateTime(timezone=True),
            nullable=False,
            server_default=sa.text("now()"),
        ),
        schema="crawl",
    )


def downgrade() -> None:
    op.drop_column("boards", "format_chosen_at", schema="crawl")
