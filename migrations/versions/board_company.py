"""Every board names its employer: `crawl.boards.company` and where the name came from
(`company_source`: `config`, the board's `company:` in sources.yaml; `board`, the
platform's listing envelope; `derived`, read from the board token). A posting that
states no company publishes its board's (pipeline.normalize.company).

A board's company is published content of every posting on it: when it changes, a
trigger stamps the board's postings (`publish_xid`), so the next incremental serving
sync publishes the new name. Boards get their names at the next catalog sync (the
same trigger then stamps their postings); nothing is guessed here.

Revision ID: board_company
Revises: enrichment_change_stamps
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "board_company"
down_revision = "enrichment_change_stamps"
branch_labels = None
depends_on = None

_XID = "(pg_current_xact_id()::text)::bigint"

_TRIGGER = f"""
CREATE FUNCTION core.stamp_board_company() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE core.postings SET publish_xid = {_XID}
    WHERE board_id = NEW.id AND publish_xid IS DISTINCT FROM {_XID};
    RETURN NULL;
END
$$;
CREATE TRIGGER boards_stamp_company AFTER UPDATE OF company, company_source ON crawl.boards
    FOR EACH ROW WHEN ((OLD.company, OLD.company_source)
                       IS DISTINCT FROM (NEW.company, NEW.company_source))
    EXECUTE FUNCTION core.stamp_board_company();
"""


def upgrade() -> None:
    op.add_column("boards", sa.Column("company", sa.Text(), nullable=True), schema="crawl")
    op.add_column("boards", sa.Column("company_source", sa.Text(), nullable=True), schema="crawl")
    op.create_check_constraint(
        op.f("ck_boards_company_source"),
        "boards",
        "company_source IN ('config', 'board', 'derived')",
        schema="crawl",
    )
    # A name always says where it came from, and a source always has a name.
    op.create_check_constraint(
        op.f("ck_boards_company_named"),
        "boards",
        "(company IS NULL) = (company_source IS NULL)",
        schema="crawl",
    )
    op.execute(_TRIGGER)


def downgrade() -> None:
    op.execute("DROP TRIGGER boards_stamp_company ON crawl.boards")
    op.execute("DROP FUNCTION core.stamp_board_company()")
    op.drop_constraint("ck_boards_company_named", "boards", schema="crawl")
    op.drop_constraint("ck_boards_company_source", "boards", schema="crawl")
    op.drop_column("boards", "company_source", schema="crawl")
    op.drop_column("boards", "company", schema="crawl")
