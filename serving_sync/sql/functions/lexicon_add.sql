-- serving.lexicon holds every lexeme of every search_tsv ever written (for prefix_words):
-- a statement trigger adds the new ones after each INSERT or UPDATE (one set-based
-- insert per statement, not one per row). It only grows, so it is a superset of the
-- lexemes in serving.jobs; a lexeme no posting has any more adds a term that matches
-- nothing, and the expansion is still exactly the prefix. serving.rebuild_lexicon()
-- trims it.
CREATE OR REPLACE FUNCTION serving.lexicon_add() RETURNS trigger
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
BEGIN
    -- In order: two writers adding the same new words take their locks in the same order,
    -- so one waits for the other instead of deadlocking.
    INSERT INTO serving.lexicon (lexeme)
    SELECT DISTINCT w.lexeme COLLATE "C"
    FROM written_rows r CROSS JOIN LATERAL unnest(tsvector_to_array(r.search_tsv)) AS w(lexeme)
    ORDER BY 1
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
