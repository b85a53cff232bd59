"""A parse result keeps the posting's legal entity (`legal_entity`: Workday's
"631 Example Corp_United States", a JSON-LD employer that is an entity code), apart
from its company, which is only the posting's own stated brand.

The legal entity is published, so `core.published_result_md5` hashes it too and a
change republishes the posting. The hash's text form changes for every posting (one
more column), so the stored hashes are refreshed here without moving any stamp: the
content each posting publishes is the same. Results parsed before this revision have
no legal entity until their next re-parse (`jobharbor backfill reparse`).

Revision ID: parse_legal_entity
Revises: board_company
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "parse_legal_entity"
down_revision = "board_company"
branch_labels = None
depends_on = None

_PARSE_ROW = """r.title, r.company, r.department, r.url, r.apply_url, r.location_text,
                   r.location, r.remote, r.employment_type, r.job_type, r.posted_at,
                   r.posted_precision, r.salary_min, r.salary_max, r.salary_currency,
                   r.salary_period, r.description_text, r.quality"""


def _hash_function(with_legal_entity: bool) -> str:
    legal = ", r.legal_entity" if with_legal_entity else ""
    return f"""
CREATE OR REPLACE FUNCTION core.published_result_md5(posting bigint) RETURNS text
LANGUAGE sql STABLE
SET TimeZone TO 'UTC' SET DateStyle TO 'ISO'
AS $$
    SELECT md5(row({_PARSE_ROW}, e.fields, e.skills_required, e.skills_preferred{legal})::text)
    FROM core.parse_results AS r
    LEFT JOIN enrich.results AS e ON e.posting_id = r.posting_id AND e.is_current
    WHERE r.posting_id = posting AND r.is_current
$$;
"""


# publish_md5 is not a column the posting trigger watches: refreshing it moves no stamp.
_REFRESH = """UPDATE core.postings SET publish_md5 = core.published_result_md5(id)
              WHERE publish_md5 IS NOT NULL"""


def upgrade() -> None:
    op.add_column("parse_results", sa.Column("legal_entity", sa.Text()), schema="core")
    op.execute(_hash_function(with_legal_entity=True))
    op.execute(_REFRESH)


def downgrade() -> None:
    op.execute(_hash_function(with_legal_entity=False))
    op.drop_column("parse_results", "legal_entity", schema="core")
    op.execute(_REFRESH)
