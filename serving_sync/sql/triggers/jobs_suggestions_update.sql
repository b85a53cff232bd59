-- Typeahead counts follow every statement (see jobs_suggestions_insert).
CREATE OR REPLACE TRIGGER jobs_suggestions_update AFTER UPDATE ON serving.jobs
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.suggestions_apply();
