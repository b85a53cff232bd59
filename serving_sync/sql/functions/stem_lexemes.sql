-- The stems of a posting's words in its language, as lexemes of their own: '~en:engin'
-- for "engineer", "engineers" and "engineering" in an English posting. The language is
-- part of the lexeme, so a query word matches a posting through the stem of the
-- posting's language only (serving.word_stems gives a word's stem in each). Kept beside
-- the plain words, not instead of them: prefixes, phrases, typo correction and the
-- lexicon keep reading the words as written. No positions (phrases read the plain
-- words), which keeps them small. `title` and `description` come folded, as to
-- search_tsv_of; the language from serving_sync.language.
CREATE OR REPLACE FUNCTION serving.stem_lexemes(language text, title text, description text)
RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
RETURN CASE WHEN serving.stem_config(language) IS NULL THEN ''::tsvector
    ELSE array_to_tsvector(ARRAY(
        SELECT '~' || language || ':' || s.lexeme
        FROM unnest(tsvector_to_array(to_tsvector(serving.stem_config(language),
            lower(coalesce(title, '') || ' ' || coalesce(left(description, 20000), ''))))) AS s(lexeme)))
END;
