-- Records the postings deleted (see jobs_facet_insert).
CREATE OR REPLACE TRIGGER jobs_facet_delete AFTER DELETE ON serving.jobs
    REFERENCING OLD TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.facet_jobs_written();
