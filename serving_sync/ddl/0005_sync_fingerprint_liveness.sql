-- serving schema v5: a sync that moves only what changed and proves what it wrote.
--
-- 1. The fingerprint is computed by the database from the row's own columns (a
--    generated column): a hand edit changes it, so verification sees the row no
--    longer matches the snapshot it was written from, and a full reconcile repairs it.
-- 2. Liveness (the day a posting was last seen) lives in a narrow table of its own:
--    the daily refresh of every open posting rewrites 20-byte rows, never the
--    content rows with their description and tsvector.
-- 3. Each applied sync records the source snapshot it published, so the next one
--    stages only postings changed by transactions that snapshot did not see.

-- One fixed text form of the published fields (epoch seconds for times, JSON for the
-- rest), so the fingerprint does not depend on the session's TimeZone or DateStyle.
CREATE FUNCTION serving.job_fingerprint(
    source text, external_id text, status text, title text, company text, department text,
    location_text text, countries text[], regions text[], cities text[],
    location_unresolved boolean, remote text, employment_type text, job_type text,
    posted_at timestamptz, posted_precision text, first_seen_at timestamptz,
    salary_min numeric, salary_max numeric, salary_currency text, salary_period text,
    url text, apply_url text, description text, openings_12m integer, duplicate_group bigint
) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN md5(jsonb_build_array(
    source, external_id, status, title, company, department, location_text,
    countries, regions, cities, location_unresolved, remote, employment_type, job_type,
    extract(epoch FROM posted_at), posted_precision, extract(epoch FROM first_seen_at),
    salary_min, salary_max, salary_currency, salary_period, url, apply_url, description,
    openings_12m, duplicate_group
)::text);

CREATE TABLE serving.job_liveness (
    id           bigint PRIMARY KEY REFERENCES serving.jobs (id) ON DELETE CASCADE,
    last_seen_on date NOT NULL              -- day granularity: a re-poll alone is not a change
);
INSERT INTO serving.job_liveness (id, last_seen_on) SELECT id, last_seen_on FROM serving.jobs;
-- Like every serving table (Supabase): row level security on; the owner (the sync) is
-- exempt, and no other role has a grant or a policy on it.
ALTER TABLE serving.job_liveness ENABLE ROW LEVEL SECURITY;

ALTER TABLE serving.jobs DROP COLUMN last_seen_on;
ALTER TABLE serving.jobs DROP COLUMN fingerprint;
ALTER TABLE serving.jobs ADD COLUMN fingerprint text GENERATED ALWAYS AS (serving.job_fingerprint(
    source, external_id, status, title, company, department, location_text, countries, regions,
    cities, location_unresolved, remote, employment_type, job_type, posted_at, posted_precision,
    first_seen_at, salary_min, salary_max, salary_currency, salary_period, url, apply_url,
    description, openings_12m, duplicate_group
)) STORED;
-- The fingerprint of the snapshot row the sync wrote. A row whose own columns no longer
-- give it was changed outside the sync; the partial index finds those in no time.
ALTER TABLE serving.jobs ADD COLUMN source_fingerprint text;
UPDATE serving.jobs SET source_fingerprint = fingerprint;
CREATE INDEX jobs_edited_outside_sync_idx ON serving.jobs (id)
    WHERE fingerprint IS DISTINCT FROM source_fingerprint;

ALTER TABLE serving.sync_runs
    ADD COLUMN mode            text,     -- full | incremental
    ADD COLUMN mode_reason     text,     -- why a full reconcile ran (asked, periodic, no base...)
    ADD COLUMN source_identity text,     -- which authoritative database the snapshot is of
    ADD COLUMN source_snapshot text,     -- pg_snapshot of that read (applied runs only)
    ADD COLUMN retained        integer NOT NULL DEFAULT 0,  -- kept their last good content
    ADD COLUMN liveness        integer NOT NULL DEFAULT 0,  -- last_seen_on refreshed
    ADD COLUMN closed          integer NOT NULL DEFAULT 0,  -- written to closed_jobs
    ADD COLUMN pruned          integer NOT NULL DEFAULT 0;  -- closed_jobs past retention
CREATE INDEX sync_runs_applied_idx ON serving.sync_runs (id DESC) WHERE status = 'applied';
