-- Drops the build (see jobs_facet_insert); a TRUNCATE has no transition table.
CREATE OR REPLACE TRIGGER jobs_facet_truncate AFTER TRUNCATE ON serving.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION serving.facet_jobs_written();
