"""What the check phase reads from core.postings: the postings due a direct check.

The check's verdict is recorded by pipeline.lifecycle.store.record_check.
"""

from __future__ import annotations

# Postings of the given statuses (`missing` by default; a check backfill may select
# long-`active` ones, or ids) never checked, checked only before their current status
# began (a check made while a posting was active says nothing about it being gone), or
# not within the recheck interval.
#
# And, unless a selection of ids is given, the `active` postings of a board whose last
# complete listing was empty (`empty_streak` > 0): an empty listing proves no absence
# (it is also what an outage looks like), so each of them is asked directly: at once if
# not checked since a listing last showed it, then again after the recheck interval,
# doubling with each check up to 8 times it (an outage answers "live" or nothing).
DUE_CHECKS = """
SELECT p.id, p.external_id, p.board_id, p.url, p.detail_url, p.title, p.status,
    b.board_key, b.url AS board_url
FROM core.postings AS p JOIN crawl.boards AS b ON b.id = p.board_id
WHERE p.source_id = %(source)s AND NOT (p.id = ANY(%(done)s))
  AND (cardinality(%(ids)s::bigint[]) = 0 OR p.id = ANY(%(ids)s::bigint[]))
  AND ((p.status = ANY(%(statuses)s)
        AND (p.last_checked_at IS NULL
             OR p.last_checked_at < p.status_changed_at
             OR p.last_checked_at < now() - make_interval(secs => %(recheck_s)s)))
    OR (%(emptied)s AND p.status = 'active' AND b.empty_streak > 0
        AND (p.last_checked_at IS NULL
             OR p.last_checked_at < p.last_seen_at
             OR p.last_checked_at < now() - make_interval(
                 secs => %(recheck_s)s * least(power(2, greatest(p.check_count - 1, 0)), 8)))))
ORDER BY p.last_checked_at NULLS FIRST, p.id
LIMIT %(limit)s
"""
