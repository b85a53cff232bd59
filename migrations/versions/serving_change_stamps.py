"""Change stamps for the serving sync: a posting records which transaction last changed
what it publishes (`publish_xid`) and the day it was last seen (`liveness_xid`), so a
sync stages only postings changed since the snapshot of the last applied sync.

- `publish_md5`: a hash of the posting's current parse result (its published fields),
  refreshed when a transaction commits; `publish_xid` moves only when that hash, or a
  published column of the posting itself, really changes. A re-parse that yields the
  same fields moves nothing.
- `liveness_xid`: moves when `last_seen_at` reaches a new UTC day; a re-poll the same
  day does not (liveness is published per day, apart from the content).
- A source enabled or disabled, or a repost group gaining or losing a posting (its
  `openings_12m`), stamps every posting it publishes differently.

Revision ID: serving_change_stamps
Revises: board_change_rate
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "serving_change_stamps"
down_revision = "board_change_rate"
branch_labels = None
depends_on = None

_XID = "(pg_current_xact_id()::text)::bigint"

# The published fields of a parse result, hashed in one fixed text form (UTC, ISO).
_RESULT_HASH = """
CREATE FUNCTION core.published_result_md5(posting bigint) RETURNS text
LANGUAGE sql STABLE
SET TimeZone TO 'UTC' SET DateStyle TO 'ISO'
AS $$
    SELECT md5(row(r.title, r.company, r.department, r.url, r.apply_url, r.location_text,
                   r.location, r.remote, r.employment_type, r.job_type, r.posted_at,
                   r.posted_precision, r.salary_min, r.salary_max, r.salary_currency,
                   r.salary_period, r.description_text, r.quality)::text)
    FROM core.parse_results AS r
    WHERE r.posting_id = posting AND r.is_current
$$;
"""

# Deferred to commit: the parse phase unsets the old current result before setting the
# new one; only what is current when the transaction ends counts.
_RESULT_TRIGGER = f"""
CREATE FUNCTION core.stamp_from_parse_result() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    digest text := core.published_result_md5(NEW.posting_id);
BEGIN
    UPDATE core.postings SET publish_md5 = digest, publish_xid = {_XID}
    WHERE id = NEW.posting_id AND publish_md5 IS DISTINCT FROM digest;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER parse_results_stamp_insert
    AFTER INSERT ON core.parse_results DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.is_current) EXECUTE FUNCTION core.stamp_from_parse_result();
CREATE CONSTRAINT TRIGGER parse_results_stamp_update
    AFTER UPDATE ON core.parse_results DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.is_current OR OLD.is_current)
    EXECUTE FUNCTION core.stamp_from_parse_result();
"""

# The posting's own published columns (status, url, closing, duplicate group...).
_POSTING_TRIGGER = f"""
CREATE FUNCTION core.stamp_posting() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF (OLD.status, OLD.url, OLD.first_seen_at, OLD.duplicate_group, OLD.closed_at,
        OLD.close_reason, OLD.source_id, OLD.external_id)
       IS DISTINCT FROM
       (NEW.status, NEW.url, NEW.first_seen_at, NEW.duplicate_group, NEW.closed_at,
        NEW.close_reason, NEW.source_id, NEW.external_id) THEN
        NEW.publish_xid := {_XID};
    END IF;
    IF (OLD.last_seen_at AT TIME ZONE 'UTC')::date
       IS DISTINCT FROM (NEW.last_seen_at AT TIME ZONE 'UTC')::date THEN
        NEW.liveness_xid := {_XID};
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER postings_stamp BEFORE UPDATE ON core.postings
    FOR EACH ROW EXECUTE FUNCTION core.stamp_posting();

-- openings_12m counts the openings of a repost group: every member publishes it.
CREATE FUNCTION core.stamp_repost_group() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE core.postings SET publish_xid = {_XID}
    WHERE repost_key IN (NEW.repost_key, CASE WHEN TG_OP = 'UPDATE' THEN OLD.repost_key END)
      AND id <> NEW.id AND publish_xid IS DISTINCT FROM {_XID};
    RETURN NULL;
END
$$;
CREATE TRIGGER postings_stamp_group_insert AFTER INSERT ON core.postings
    FOR EACH ROW WHEN (NEW.repost_key IS NOT NULL)
    EXECUTE FUNCTION core.stamp_repost_group();
CREATE TRIGGER postings_stamp_group_update AFTER UPDATE ON core.postings
    FOR EACH ROW WHEN ((OLD.repost_key, OLD.opening_key, OLD.first_seen_at)
                       IS DISTINCT FROM (NEW.repost_key, NEW.opening_key, NEW.first_seen_at))
    EXECUTE FUNCTION core.stamp_repost_group();

-- A disabled source is not published; enabling it again publishes its postings.
CREATE FUNCTION core.stamp_source() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE core.postings SET publish_xid = {_XID} WHERE source_id = NEW.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER sources_stamp AFTER UPDATE OF enabled ON ref.sources
    FOR EACH ROW WHEN (OLD.enabled IS DISTINCT FROM NEW.enabled)
    EXECUTE FUNCTION core.stamp_source();
"""


def upgrade() -> None:
    for column in ("publish_xid", "liveness_xid"):
        op.add_column(
            "postings",
            sa.Column(column, sa.BigInteger(), server_default=sa.text(_XID), nullable=False),
            schema="core",
        )
    op.add_column("postings", sa.Column("publish_md5", sa.Text(), nullable=True), schema="core")
    op.create_index("ix_postings_publish_xid", "postings", ["publish_xid"], schema="core")
    op.create_index("ix_postings_liveness_xid", "postings", ["liveness_xid"], schema="core")
    op.execute(_RESULT_HASH)
    op.execute(_RESULT_TRIGGER)
    op.execute(_POSTING_TRIGGER)
    op.execute("UPDATE core.postings SET publish_md5 = core.published_result_md5(id)")


def downgrade() -> None:
    op.execute("DROP TRIGGER sources_stamp ON ref.sources")
    for trigger in ("postings_stamp", "postings_stamp_group_insert", "postings_stamp_group_update"):
        op.execute(f"DROP TRIGGER {trigger} ON core.postings")
    for trigger in ("parse_results_stamp_insert", "parse_results_stamp_update"):
        op.execute(f"DROP TRIGGER {trigger} ON core.parse_results")
    for function in (
        "stamp_source()",
        "stamp_repost_group()",
        "stamp_posting()",
        "stamp_from_parse_result()",
        "published_result_md5(bigint)",
    ):
        op.execute(f"DROP FUNCTION core.{function}")
    op.drop_index("ix_postings_liveness_xid", table_name="postings", schema="core")
    op.drop_index("ix_postings_publish_xid", table_name="postings", schema="core")
    for column in ("publish_md5", "liveness_xid", "publish_xid"):
        op.drop_column("postings", column, schema="core")
