-- The planner's estimate of the postings dated within the last `days` (the list index's
-- sort key has its own statistics).
CREATE OR REPLACE FUNCTION serving.window_rows(days integer) RETURNS double precision
LANGUAGE sql VOLATILE  -- it calls planned_rows
SET search_path = serving, pg_catalog
RETURN serving.planned_rows(
    'SELECT 1 FROM serving.jobs j
     WHERE j.sort_at >= now() - make_interval(days => $2)',
    NULL, days);
