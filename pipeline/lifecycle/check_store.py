"""What the check phase reads from core.postings: the postings due a direct check.

The check's verdict is recorded by pipeline.lifecycle.store.record_check.
"""

from __future__ import annotations

# Postings of the given statuses (`missing` by default; a check backfill may select
# long-`active` ones, or ids) never checked, checked only before their current status
# began (a check made while a posting was active says nothing about it being gone), or
# not within the recheck interval.
DUE_CHECKS = """
SELECT p.id, p.external_id, p.board_id, p.url, p.detail_url, p.title, p.status,
    b.board_key, b.url AS board_url
FROM core.postings AS p JOIN crawl.boards AS b ON b.id = p.board_id
WHERE p.source_id = %(source)s AND p.status = ANY(%(statuses)s) AND NOT (p.id = ANY(%(done)s))
  AND (cardinality(%(ids)s::bigint[]) = 0 OR p.id = ANY(%(ids)s::bigint[]))
  AND (p.last_checked_at IS NULL
       OR p.last_checked_at < p.status_changed_at
       OR p.last_checked_at < now() - make_interval(secs => %(recheck_s)s))
ORDER BY p.last_checked_at NULLS FIRST, p.id
LIMIT %(limit)s
"""
