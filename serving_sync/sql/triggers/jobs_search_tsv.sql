-- The tsvector of a row written by anyone but the sync (see serving.jobs_search_tsv).
CREATE OR REPLACE TRIGGER jobs_search_tsv BEFORE INSERT OR UPDATE ON serving.jobs
    FOR EACH ROW EXECUTE FUNCTION serving.jobs_search_tsv();
