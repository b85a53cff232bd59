"""What the parse phase stores in core.parse_results: one result per (posting, raw
object, parser name@version), with one `is_current` per posting.

The partial unique index allows one current result per posting at every moment, so
the old current row is unset before the new one is set.
"""

from __future__ import annotations

from datetime import datetime

# One column's value as INSERT_RESULT binds it: text (JSON columns as their text), a
# salary bound, a date, or NULL.
ResultValue = str | float | datetime | None

# Postings whose content raw object has no result yet for this parser name@version.
UNPARSED = """
SELECT p.id, p.external_id, p.board_id, p.content_raw_sha256 AS raw_sha256,
       p.listing_raw_sha256, p.detail_state,
       (SELECT b.board_key FROM crawl.boards AS b WHERE b.id = p.board_id) AS board_key,
       -- The content is the posting's own page when it points at another object than
       -- the listing (whatever the detail state is now: `needed` again, `failed`, ...).
       (p.detail_url IS NOT NULL AND p.content_raw_sha256 IS DISTINCT FROM p.listing_raw_sha256)
           AS is_detail
FROM core.postings AS p
WHERE p.source_id = %(source)s AND p.content_raw_sha256 IS NOT NULL
  AND (%(all)s OR p.status IN ('active', 'missing'))
  AND NOT (p.id = ANY(%(done)s))
  AND NOT EXISTS (
      SELECT 1 FROM core.parse_results AS pr
      WHERE pr.posting_id = p.id AND pr.raw_sha256 = p.content_raw_sha256
        AND pr.parser_name = %(name)s AND pr.parser_version = %(version)s)
ORDER BY p.content_raw_sha256, p.id
LIMIT %(limit)s
"""

INSERT_RESULT = """
INSERT INTO core.parse_results (posting_id, raw_sha256, parser_name, parser_version, quality, issues,
    content_hash, title, company, legal_entity, department, url, apply_url, location_text, offices,
    location, remote, employment_type, job_type, posted_at, posted_precision, salary_raw, salary_min, salary_max,
    salary_currency, salary_period, description_html, description_text, payload)
VALUES (%(posting_id)s, %(raw_sha256)s, %(parser_name)s, %(parser_version)s, %(quality)s,
    %(issues)s::jsonb, %(content_hash)s, %(title)s, %(company)s, %(legal_entity)s,
    %(department)s, %(url)s, %(apply_url)s, %(location_text)s, %(offices)s::jsonb, %(location)s::jsonb, %(remote)s,
    %(employment_type)s, %(job_type)s, %(posted_at)s, %(posted_precision)s, %(salary_raw)s,
    %(salary_min)s, %(salary_max)s, %(salary_currency)s, %(salary_period)s, %(description_html)s,
    %(description_text)s, %(payload)s::jsonb)
ON CONFLICT (posting_id, raw_sha256, parser_name, parser_version) DO NOTHING
RETURNING id
"""

# A posting whose content went back to an object already parsed with this version
# (an edit reverted: A -> B -> A) has that result; it only needs to be current again.
STALE_CURRENT = """
SELECT DISTINCT ON (p.id) p.id AS posting_id, r.id AS result_id
FROM core.postings AS p
JOIN core.parse_results AS r
  ON r.posting_id = p.id AND r.raw_sha256 = p.content_raw_sha256
 AND r.parser_name = %(name)s AND r.parser_version = %(version)s
WHERE p.source_id = %(source)s AND NOT r.is_current AND r.quality <> 'rejected'
ORDER BY p.id, r.id DESC
"""

UNSET_CURRENT = """
UPDATE core.parse_results SET is_current = false WHERE posting_id = %s AND is_current
"""

UNSET_CURRENT_MANY = """
UPDATE core.parse_results SET is_current = false WHERE posting_id = ANY(%s) AND is_current
"""

SET_CURRENT = """
UPDATE core.parse_results SET is_current = true WHERE id = %s
"""

SET_CURRENT_MANY = """
UPDATE core.parse_results SET is_current = true WHERE id = ANY(%s)
"""

CURRENT_LOCATION = """
SELECT location FROM core.parse_results WHERE posting_id = %s AND is_current
"""

# The board's name a listing states beside its items (ParseOutcome.board_company), onto
# the boards whose postings that listing object lists. sources.yaml's name (`config`)
# always stands; the same name again changes nothing (nor stamps the board's postings).
RECORD_BOARD_COMPANY = """
UPDATE crawl.boards AS b SET company = v.company, company_source = 'board', updated_at = now()
FROM (
    SELECT DISTINCT p.board_id, x.company
    FROM unnest(%(shas)s::text[], %(names)s::text[]) AS x(sha256, company)
    JOIN core.postings AS p ON p.source_id = %(source)s AND p.listing_raw_sha256 = x.sha256
) AS v
WHERE b.id = v.board_id AND b.company_source IS DISTINCT FROM 'config'
  AND (b.company, b.company_source) IS DISTINCT FROM (v.company, 'board')
"""
