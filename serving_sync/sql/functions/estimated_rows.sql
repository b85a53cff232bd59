-- The planner's estimate of the postings matching tsq (from the tsvector's statistics,
-- which know every filter lexeme) and of all postings; NULLs before the table was ever
-- analyzed.
CREATE OR REPLACE FUNCTION serving.estimated_rows(tsq tsquery, OUT matching double precision,
                                       OUT total double precision)
LANGUAGE plpgsql VOLATILE  -- it calls planned_rows
SET search_path = serving, pg_catalog
AS $$
BEGIN
    SELECT c.reltuples INTO total FROM pg_class c WHERE c.oid = 'serving.jobs'::regclass;
    IF total IS NULL OR total <= 0 THEN
        total := NULL;
        RETURN;
    END IF;
    matching := least(greatest(serving.planned_rows(
        'SELECT 1 FROM serving.jobs j WHERE j.search_tsv @@ $1', tsq, NULL), 1), total);
END
$$;
