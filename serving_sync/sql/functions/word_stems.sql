-- A query word's stems, one per language with a stemmer, as serving.stem_lexemes writes
-- a posting's: "engineers" -> '~de:engine', '~en:engin', '~fr:engineer'. A posting
-- matches through the one of its own language. Empty for a stop word of every language.
-- `folded`: the word as serving.fold gives it.
CREATE OR REPLACE FUNCTION serving.word_stems(folded text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN ARRAY(
    SELECT DISTINCT '~' || c.code || ':' || s.lexeme
    FROM (VALUES ('en'), ('de'), ('fr')) AS c(code)
    CROSS JOIN LATERAL unnest(tsvector_to_array(
        to_tsvector(serving.stem_config(c.code), folded))) AS s(lexeme)
    ORDER BY 1);
