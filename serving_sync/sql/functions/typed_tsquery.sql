-- The query as typed (the last word a prefix when the caller says so: it decides from
-- the raw text, not quoted, not excluded, at least 3 folded characters): the query that
-- ranks. Ranking the expansion instead (prefix_as_words) would make a posting's rank
-- depend on how many lexicon words share the prefix (ts_rank divides by the query's
-- operands), so ranks would move whenever a sync adds or trims such a word, and a
-- relevance cursor would skip or repeat rows; and an AND query would score the
-- alternatives' proximity to each other. A NULL flag means no prefix.
CREATE OR REPLACE FUNCTION serving.typed_tsquery(query text, last_is_prefix boolean) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    parsed tsquery := websearch_to_tsquery('simple', serving.fold(coalesce(query, '')));
    plain text := parsed::text;
BEGIN
    IF plain = '' THEN
        RETURN NULL;  -- nothing searchable (only punctuation, say): no text condition
    END IF;
    IF coalesce(last_is_prefix, false) AND right(plain, 1) = '''' THEN
        RETURN (plain || ':*')::tsquery;
    END IF;
    RETURN parsed;
END
$$;
