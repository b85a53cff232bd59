-- Typeahead counts follow every statement (see serving.suggestions_apply); one trigger
-- per event, as a trigger with transition tables takes one.
CREATE OR REPLACE TRIGGER jobs_suggestions_insert AFTER INSERT ON serving.jobs
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.suggestions_apply();
