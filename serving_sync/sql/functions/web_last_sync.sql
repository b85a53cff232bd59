-- The last applied sync, for /healthz.
CREATE OR REPLACE FUNCTION serving.web_last_sync() RETURNS TABLE (
    finished_at timestamptz, age_s double precision, source_rows integer
)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT r.finished_at, extract(epoch FROM now() - r.finished_at)::double precision,
           r.source_rows
    FROM serving.sync_runs r
    WHERE r.status = 'applied' AND NOT r.dry_run AND r.finished_at IS NOT NULL
    ORDER BY r.finished_at DESC LIMIT 1
$$;
