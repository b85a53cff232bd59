-- New words into the lexicon after each statement (see serving.lexicon_add). Inserts and
-- updates have a trigger each: a trigger with transition tables takes one event.
CREATE OR REPLACE TRIGGER jobs_lexicon_insert AFTER INSERT ON serving.jobs
    REFERENCING NEW TABLE AS written_rows
    FOR EACH STATEMENT EXECUTE FUNCTION serving.lexicon_add();
