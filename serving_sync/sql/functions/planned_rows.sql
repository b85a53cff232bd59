-- The planner's row estimate for a constant query over serving.jobs, with $1 a tsquery
-- and $2 a day count (either may go unused): the statistics answer, nothing is read.
CREATE OR REPLACE FUNCTION serving.planned_rows(query text, tsq tsquery, days integer)
RETURNS double precision
LANGUAGE plpgsql VOLATILE  -- EXPLAIN runs only in a volatile function; this one writes nothing
SET search_path = serving, pg_catalog
AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan USING tsq, days;
    RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::double precision;
END
$$;
