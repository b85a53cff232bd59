-- New words into the lexicon after each statement (see jobs_lexicon_insert).
CREATE OR REPLACE TRIGGER jobs_lexicon_update AFTER UPDATE ON serving.jobs
    REFERENCING NEW TABLE AS written_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.lexicon_add();
