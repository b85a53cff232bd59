"""A posting knows whether its first-seen time estimates its age (`age_known`).

A posting that appears on a board already scanned completely before was not there at
that scan: it was posted between the two scans, so its first-seen time is its age
within one poll interval. A posting found on its board's first complete scan may have
been listed for years: its age is unknown, and the web app says "listed since" and
sorts it after every dated or estimated posting (docs/data-model.md, "Dates").

Set when the posting is inserted (pipeline.crawl.posting_store); here, for postings
already stored, from the scans on record: known when a complete scan of the board
finished before the posting was first seen.

Revision ID: posting_age_known
Revises: parse_legal_entity
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "posting_age_known"
down_revision = "parse_legal_entity"
branch_labels = None
depends_on = None

_BACKFILL = """
UPDATE core.postings AS p SET age_known = true
WHERE EXISTS (SELECT 1 FROM crawl.scans AS s
              WHERE s.board_id = p.board_id AND s.complete AND s.finished_at < p.first_seen_at)
"""


def upgrade() -> None:
    op.add_column(
        "postings",
        sa.Column("age_known", sa.Boolean(), nullable=False, server_default=sa.false()),
        schema="core",
    )
    op.execute(_BACKFILL)


def downgrade() -> None:
    op.drop_column("postings", "age_known", schema="core")
