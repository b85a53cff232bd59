-- Typeahead counts follow every statement (see jobs_suggestions_insert).
CREATE OR REPLACE TRIGGER jobs_suggestions_delete AFTER DELETE ON serving.jobs
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.suggestions_apply();
