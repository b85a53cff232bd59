-- A query word's stems, one per language with a stemmer, as serving.stem_lexemes writes
-- a posting's: "engineers" -> '~de:engine', '~en:engin', '~fr:engineer'. A posting
-- matches through the one of its own language. A stop word of a language has no stem
-- there ("the": none in English). `lexeme`: one word as the simple configuration gives
-- it (folded, lowercase). The stemmers' dictionaries are asked directly (ts_lexize: the
-- word needs no parsing), in an expression the planner inlines: a query pays
-- microseconds for its words' stems, not a subquery per word.
CREATE OR REPLACE FUNCTION serving.word_stems(lexeme text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN array_remove(ARRAY[
    '~de:' || (ts_lexize('pg_catalog.german_stem', lexeme))[1],
    '~en:' || (ts_lexize('pg_catalog.english_stem', lexeme))[1],
    '~fr:' || (ts_lexize('pg_catalog.french_stem', lexeme))[1]], NULL);
