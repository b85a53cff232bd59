-- Records the postings written (see jobs_facet_insert), under their old ids as well.
CREATE OR REPLACE TRIGGER jobs_facet_update AFTER UPDATE ON serving.jobs
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.facet_jobs_written();
