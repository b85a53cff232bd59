"""Crawl engine: order-free listing hash, count-probe flag on scans, robots.txt cache,
`disallowed` scan outcome and detail state, indexes for source claims and per-board
fetch attempts.

Revision ID: crawl_engine
Revises: authoritative_schema
Create Date: 2026-12-01 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "crawl_engine"
down_revision = "authoritative_schema"
branch_labels = None
depends_on = None

_OUTCOMES_BEFORE = (
    "not_modified",
    "unchanged",
    "changed",
    "failed",
    "rate_limited",
    "deferred",
    "blocked",
    "empty",
    "rejected",
)
_OUTCOMES_AFTER = (*_OUTCOMES_BEFORE, "disallowed")
_DETAIL_BEFORE = ("not_needed", "needed", "fetched", "failed", "blocked")
_DETAIL_AFTER = (*_DETAIL_BEFORE, "disallowed")


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _replace_check(table: str, schema: str, name: str, condition: str) -> None:
    op.drop_constraint(op.f(name), table, schema=schema, type_="check")
    op.create_check_constraint(op.f(name), table, condition, schema=schema)


def upgrade() -> None:
    op.add_column("boards", sa.Column("listing_hash", sa.Text(), nullable=True), schema="crawl")
    # Until now body_hash held the order-free listing hash: move it where it belongs, so
    # the first poll after the upgrade still recognizes an unchanged listing.
    op.execute("UPDATE crawl.boards SET listing_hash = body_hash, body_hash = NULL")
    op.create_index(
        "ix_boards_source_id_due",
        "boards",
        ["source_id", "due_at"],
        schema="crawl",
        postgresql_where=sa.text("state <> 'retired'"),
    )
    op.add_column(
        "scans",
        sa.Column("probe", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        schema="crawl",
    )
    _replace_check("scans", "crawl", "ck_scans_outcome", _in("outcome", _OUTCOMES_AFTER))
    _replace_check(
        "postings", "core", "ck_postings_detail_state", _in("detail_state", _DETAIL_AFTER)
    )
    op.create_index("ix_fetch_attempts_board_id", "fetch_attempts", ["board_id"], schema="crawl")
    op.create_table(
        "robots",
        sa.Column("origin", sa.Text(), nullable=False),
        sa.Column("verdict", sa.Text(), nullable=False),
        sa.Column("http_status", sa.Integer(), nullable=True),
        sa.Column("body", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column(
            "fetched_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "verdict IN ('rules', 'allow_all', 'disallow_all')", name=op.f("ck_robots_verdict")
        ),
        sa.PrimaryKeyConstraint("origin", name=op.f("pk_robots")),
        schema="crawl",
    )


def downgrade() -> None:
    op.drop_table("robots", schema="crawl")
    op.drop_index("ix_fetch_attempts_board_id", table_name="fetch_attempts", schema="crawl")
    op.execute("UPDATE core.postings SET detail_state = 'failed' WHERE detail_state = 'disallowed'")
    _replace_check(
        "postings", "core", "ck_postings_detail_state", _in("detail_state", _DETAIL_BEFORE)
    )
    op.execute("UPDATE crawl.scans SET outcome = 'failed' WHERE outcome = 'disallowed'")
    _replace_check("scans", "crawl", "ck_scans_outcome", _in("outcome", _OUTCOMES_BEFORE))
    op.drop_column("scans", "probe", schema="crawl")
    op.drop_index("ix_boards_source_id_due", table_name="boards", schema="crawl")
    op.execute("UPDATE crawl.boards SET body_hash = listing_hash")
    op.drop_column("boards", "listing_hash", schema="crawl")
