-- serving.lexeme_shares from the text column's statistics as the last ANALYZE left them
-- (the sync calls it in its transaction, as it keeps serving.facet_totals): each most
-- common element with its share of postings, and under the empty lexeme the smallest
-- share listed, the most a lexeme not listed can have (as the sample saw it). No
-- statistics yet (a table never analyzed): the table stays empty, and web_search asks
-- the planner as before. Returns the lexemes kept.
CREATE OR REPLACE FUNCTION serving.refresh_lexeme_shares() RETURNS integer
LANGUAGE plpgsql
SET search_path = serving, pg_catalog
AS $$
DECLARE
    kept integer;
BEGIN
    DELETE FROM serving.lexeme_shares;
    -- The frequencies array ends with three more: the smallest, the largest, and the
    -- share of empty tsvectors (pg_stats); the elements pair with the first ones.
    INSERT INTO serving.lexeme_shares (lexeme, share)
    SELECT e.lexeme, e.share
    FROM pg_catalog.pg_stats s
    CROSS JOIN LATERAL unnest(s.most_common_elems::text::text[] COLLATE "C",
                              s.most_common_elem_freqs) AS e(lexeme, share)
    WHERE s.schemaname = 'serving' AND s.tablename = 'jobs' AND s.attname = 'search_tsv'
      AND e.lexeme IS NOT NULL AND e.lexeme <> ''
    ON CONFLICT (lexeme) DO NOTHING;
    GET DIAGNOSTICS kept = ROW_COUNT;
    IF kept > 0 THEN
        INSERT INTO serving.lexeme_shares (lexeme, share)
        SELECT '', min(l.share) FROM serving.lexeme_shares l;
    END IF;
    RETURN kept;
END
$$;
