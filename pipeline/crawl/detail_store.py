"""What the fetch phase stores in core.postings: the posting-detail queue.

Discover marks a posting's detail `needed`; the fetch phase takes the due ones from
here and records each page's outcome (and the posting's content pointer). The parse
phase puts a posting back in the queue when its stored page is lost.
"""

from __future__ import annotations

# Postings whose own page is needed, or worth another try after a failure or a block.
DUE_DETAILS = """
SELECT id, external_id, board_id, detail_url, detail_attempts, row_hash
FROM core.postings
WHERE source_id = %(source)s AND status IN ('active', 'missing') AND detail_url IS NOT NULL
  AND NOT (id = ANY(%(done)s))
  AND (detail_state = 'needed'
       OR (detail_state IN ('failed', 'blocked') AND detail_attempts < %(max_attempts)s
           AND updated_at < now() - interval '10 minutes'))
ORDER BY id
LIMIT %(limit)s
"""

# Only if the posting is still the one we fetched for: if discover saw its row change
# meanwhile (a new detail URL, `needed` again), this older page must not overwrite that.
RECORD_DETAIL = """
UPDATE core.postings SET detail_state = %(state)s, detail_attempts = detail_attempts + 1,
    content_raw_sha256 = COALESCE(%(raw)s, content_raw_sha256), updated_at = now()
WHERE id = %(id)s AND row_hash IS NOT DISTINCT FROM %(row_hash)s AND detail_url = %(url)s
"""

# A posting's stored page is gone or corrupt: fetch it again rather than guess.
REQUEUE_DETAIL = """
UPDATE core.postings SET detail_state = 'needed', content_raw_sha256 = NULL WHERE id = %s
"""
