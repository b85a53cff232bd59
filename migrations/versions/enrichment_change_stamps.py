"""The enrichment is published content: a posting whose current enrichment result
changes is stamped (`publish_xid`) like one whose parse result changes, so the next
incremental serving sync re-publishes it.

`core.published_result_md5` now hashes the current enrichment result (its checked
fields and skills) together with the current parse result, and a deferred trigger on
`enrich.results` refreshes the hash at commit: the stamp moves only when what the
posting publishes really changes (a result made current again with the same values
moves nothing). Postings that already have a current result are stamped once here, so
the first sync after this migration publishes their enrichment.

Revision ID: enrichment_change_stamps
Revises: serving_change_stamps
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "enrichment_change_stamps"
down_revision = "serving_change_stamps"
branch_labels = None
depends_on = None

_XID = "(pg_current_xact_id()::text)::bigint"

_PARSE_ROW = """r.title, r.company, r.department, r.url, r.apply_url, r.location_text,
                   r.location, r.remote, r.employment_type, r.job_type, r.posted_at,
                   r.posted_precision, r.salary_min, r.salary_max, r.salary_currency,
                   r.salary_period, r.description_text, r.quality"""


def _hash_function(with_enrichment: bool) -> str:
    extra = ", e.fields, e.skills_required, e.skills_preferred" if with_enrichment else ""
    join = (
        "LEFT JOIN enrich.results AS e ON e.posting_id = r.posting_id AND e.is_current"
        if with_enrichment
        else ""
    )
    return f"""
CREATE OR REPLACE FUNCTION core.published_result_md5(posting bigint) RETURNS text
LANGUAGE sql STABLE
SET TimeZone TO 'UTC' SET DateStyle TO 'ISO'
AS $$
    SELECT md5(row({_PARSE_ROW}{extra})::text)
    FROM core.parse_results AS r
    {join}
    WHERE r.posting_id = posting AND r.is_current
$$;
"""


# Deferred to commit, as for parse results: the store unsets the old current result
# before it sets the new one; only what is current when the transaction ends counts.
_TRIGGER = f"""
CREATE FUNCTION core.stamp_from_enrichment() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    posting bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.posting_id ELSE NEW.posting_id END;
    digest text := core.published_result_md5(posting);
BEGIN
    UPDATE core.postings SET publish_md5 = digest, publish_xid = {_XID}
    WHERE id = posting AND publish_md5 IS DISTINCT FROM digest;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER enrich_results_stamp_insert
    AFTER INSERT ON enrich.results DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.is_current) EXECUTE FUNCTION core.stamp_from_enrichment();
CREATE CONSTRAINT TRIGGER enrich_results_stamp_update
    AFTER UPDATE ON enrich.results DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.is_current OR OLD.is_current)
    EXECUTE FUNCTION core.stamp_from_enrichment();
CREATE CONSTRAINT TRIGGER enrich_results_stamp_delete
    AFTER DELETE ON enrich.results DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.is_current) EXECUTE FUNCTION core.stamp_from_enrichment();
"""


def upgrade() -> None:
    op.execute(_hash_function(with_enrichment=True))
    op.execute(_TRIGGER)
    # Every posting with a current result publishes new content now: stamp it.
    op.execute(
        f"""UPDATE core.postings AS p
            SET publish_md5 = core.published_result_md5(p.id), publish_xid = {_XID}
            WHERE EXISTS (SELECT 1 FROM enrich.results AS e
                          WHERE e.posting_id = p.id AND e.is_current)"""
    )


def downgrade() -> None:
    for trigger in ("insert", "update", "delete"):
        op.execute(f"DROP TRIGGER enrich_results_stamp_{trigger} ON enrich.results")
    op.execute("DROP FUNCTION core.stamp_from_enrichment()")
    op.execute(_hash_function(with_enrichment=False))
    op.execute(
        f"""UPDATE core.postings AS p
            SET publish_md5 = core.published_result_md5(p.id), publish_xid = {_XID}
            WHERE EXISTS (SELECT 1 FROM enrich.results AS e
                          WHERE e.posting_id = p.id AND e.is_current)"""
    )
