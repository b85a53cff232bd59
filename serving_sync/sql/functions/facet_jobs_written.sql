-- Counts the statements that change serving.jobs (serving.facet_writes), so the facet
-- bitmaps know whether they are current (see web_facet_bits). A statement that changed
-- no row (the sync's removals when nothing went) changes nothing.
CREATE OR REPLACE FUNCTION serving.facet_jobs_written() RETURNS trigger
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
BEGIN
    IF TG_OP <> 'TRUNCATE' THEN
        IF NOT EXISTS (SELECT 1 FROM changed_rows) THEN
            RETURN NULL;
        END IF;
    END IF;
    UPDATE serving.facet_writes SET writes = writes + 1;
    RETURN NULL;
END
$$;
