-- A recent closure, so the job page can answer 410 "closed on ...".
CREATE OR REPLACE FUNCTION serving.web_closed_job(job_id bigint) RETURNS TABLE (
    id bigint, source text, title text, company text, closed_at timestamptz, reason text
)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
    SELECT c.id, c.source, c.title, c.company, c.closed_at, c.reason
    FROM serving.closed_jobs c WHERE c.id = job_id
$$;
