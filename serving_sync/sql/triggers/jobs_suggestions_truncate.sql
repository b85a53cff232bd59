-- A TRUNCATE has no transition table: the suggestions go with the postings.
CREATE OR REPLACE TRIGGER jobs_suggestions_truncate AFTER TRUNCATE ON serving.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION serving.suggestions_apply();
