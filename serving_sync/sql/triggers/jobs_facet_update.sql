-- Counts the statement (see jobs_facet_insert).
CREATE OR REPLACE TRIGGER jobs_facet_update AFTER UPDATE ON serving.jobs
    REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.facet_jobs_written();
