-- The entries to walk for a page of page_rows matching tsq (the word and the filter
-- lexemes), or 0: not worth a walk of at most `cap` entries.
CREATE OR REPLACE FUNCTION serving.list_walk_size(cap integer, page_rows integer, tsq tsquery)
RETURNS integer
LANGUAGE plpgsql VOLATILE  -- it calls estimated_rows
SET search_path = serving, pg_catalog
AS $$
DECLARE
    found record := serving.estimated_rows(tsq);
    size double precision;
BEGIN
    IF found.total IS NULL THEN  -- never analyzed: no estimate to go by
        RETURN least(cap, 5000);
    END IF;
    size := greatest(1000, 3 * page_rows * found.total / found.matching);
    RETURN CASE WHEN size > cap THEN 0 ELSE size::integer END;
END
$$;
