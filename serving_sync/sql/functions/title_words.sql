-- The words a title is about, for "similar jobs" (serving.web_similar): its folded words
-- of 3 letters or more that are no stop word of a stemmed language, each once, sorted.
CREATE OR REPLACE FUNCTION serving.title_words(title text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN ARRAY(
    SELECT w FROM unnest(tsvector_to_array(to_tsvector('simple', serving.fold(title)))) AS w
    WHERE length(w) >= 3 AND cardinality(serving.word_stems(w)) = 3
    ORDER BY w);
