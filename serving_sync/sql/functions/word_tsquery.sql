-- A plain word of a query as a tsquery term: the word as written (folded), then, when it
-- is one lexeme, OR its stems (serving.word_stems), so "engineers" finds an English
-- posting that says "engineer" or "engineering", and a German one that says
-- "Ingenieure" for "ingenieur". `prefix`: the word also matches as a prefix from 3
-- folded characters (the caller decides which word, see typed_tsquery); the prefix is
-- the group's first operand ('engin':* | '~de:engin' | ...), which prefix_as_words
-- expands and prefix_rest recognizes. A word the text search splits (front-end, c++)
-- stays as websearch reads it, without stems.
CREATE OR REPLACE FUNCTION serving.word_tsquery(word text, prefix boolean) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    folded text := serving.fold(word);
    plain tsquery := websearch_to_tsquery('simple', folded);
    term tsquery := plain;
    stem text;
BEGIN
    IF numnode(plain) = 0 THEN  -- nothing searchable (punctuation only)
        RETURN NULL;
    END IF;
    IF coalesce(prefix, false) AND right(plain::text, 1) = ''''
       AND length(regexp_replace(folded, '\W', '', 'g')) >= 3 THEN
        term := (plain::text || ':*')::tsquery;
    END IF;
    IF plain::text ~ '^''[^'']+''$' THEN  -- one lexeme: its stems too
        FOREACH stem IN ARRAY serving.word_stems(substr(plain::text, 2, length(plain::text) - 2)) LOOP
            term := term || serving.lexeme_query(stem);
        END LOOP;
    END IF;
    RETURN term;
END
$$;
