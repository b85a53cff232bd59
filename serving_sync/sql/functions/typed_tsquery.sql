-- The query as typed: the query that ranks. Ranking the expansion instead
-- (prefix_as_words) would make a posting's rank depend on how many lexicon words share
-- the prefix (ts_rank divides by the query's operands), so ranks would move whenever a
-- sync adds or trims such a word, and a relevance cursor would skip or repeat rows; and
-- an AND query would score the alternatives' proximity to each other.
--
-- The grammar is websearch_to_tsquery's, read term by term so that a term's place does
-- not change what it means: terms are words, "quoted phrases" and -exclusions, joined by
-- AND; OR splits the query into alternatives ((a AND b) OR c). A plain or excluded word
-- is itself or its inflections (serving.word_tsquery: its stems in English, German and
-- French, each matching postings of that language); a phrase is its words as written. When the caller allows it
-- (`last_is_prefix`: not after a trailing space, see search.prefix_applies) the last plain
-- word of each alternative of at least 3 folded characters also matches as a prefix,
-- wherever exclusions and phrases stand: "engineer -senior" is "-senior engineer", and
-- "engineer OR designer" finds at least what "engineer" finds. Within an alternative the
-- prefix word is written last, so the query's last operand is a prefix that
-- prefix_as_words can expand. Unbalanced quotes: the whole text as websearch reads it, no
-- prefix. NULL: nothing searchable (only punctuation, say), no text condition.
CREATE OR REPLACE FUNCTION serving.typed_tsquery(query text, last_is_prefix boolean) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    q text := coalesce(query, '');
    tok text;
    term tsquery;
    alternatives tsquery;  -- the OR of the alternatives read so far
    current tsquery;       -- the AND of the current alternative's terms, its last plain word aside
    last_plain text;       -- the current alternative's last plain word so far
BEGIN
    IF (length(q) - length(replace(q, '"', ''))) % 2 = 1 THEN
        RETURN nullif(websearch_to_tsquery('simple', serving.fold(q)), ''::tsquery);
    END IF;
    FOR tok IN SELECT m[1] FROM regexp_matches(q || ' or', '(-?"[^"]*"|\S+)', 'g') AS m LOOP
        IF lower(tok) = 'or' THEN
            IF last_plain IS NOT NULL THEN
                current := serving.tsquery_and(
                    current, serving.word_tsquery(last_plain, last_is_prefix));
            END IF;
            IF current IS NOT NULL THEN
                alternatives := CASE WHEN alternatives IS NULL THEN current
                                     ELSE alternatives || current END;
            END IF;
            current := NULL;
            last_plain := NULL;
        ELSIF left(tok, 1) = '-' AND length(tok) > 1 THEN
            -- An excluded word leaves out its inflections too; an excluded "phrase" only itself.
            term := CASE WHEN substr(tok, 2, 1) = '"'
                         THEN websearch_to_tsquery('simple', serving.fold(substr(tok, 2)))
                         ELSE serving.word_tsquery(substr(tok, 2), false) END;
            IF numnode(term) > 0 THEN
                current := serving.tsquery_and(current, !! term);
            END IF;
        ELSIF left(tok, 1) = '"' THEN
            current := serving.tsquery_and(
                current, nullif(websearch_to_tsquery('simple', serving.fold(tok)), ''::tsquery));
        ELSE
            IF last_plain IS NOT NULL THEN
                current := serving.tsquery_and(current, serving.word_tsquery(last_plain, false));
            END IF;
            last_plain := tok;
        END IF;
    END LOOP;
    RETURN alternatives;
END
$$;
