-- serving schema v4: recent closures, so a job page can answer truthfully
-- ("closed on ...", HTTP 410) instead of a bare 404. The sync writes it; rows older
-- than the retention setting (default 90 days) are pruned by the sync.
CREATE TABLE serving.closed_jobs (
    id          bigint PRIMARY KEY,            -- core.postings.id, as in serving.jobs
    source      text        NOT NULL,
    title       text        NOT NULL,
    company     text,
    closed_at   timestamptz NOT NULL,
    reason      text        NOT NULL           -- expired | not_found | filtered | removed
);
CREATE INDEX closed_jobs_closed_at_idx ON serving.closed_jobs (closed_at);
