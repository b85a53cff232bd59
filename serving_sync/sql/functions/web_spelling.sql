-- What typo correction needs (serving_sync.spelling decides, this only looks up): a row
-- (word, NULL, NULL) for each of `words` no posting has (not in serving.lexicon, nor any
-- of its stems (serving.word_stems); nor, for one of `prefix_words`, as the prefix of
-- one), and rows (NULL, candidate, share) for
-- words it could be corrected to, with their share of postings from the text column's
-- element statistics (0 for a word too rare to be in them): every lexeme among `edits`
-- (the caller's one-edit variants of the unknown short words, NULL on the first call),
-- and for each unknown word of 9 letters or more, the words within two letters
-- of its length that share its first three or its last three letters (at most 500
-- each). Words are folded letters a-z (the caller checks), so the letter after the
-- last one bounds each range.
CREATE OR REPLACE FUNCTION serving.web_spelling(
    words text[], prefix_words text[], edits text[]
) RETURNS TABLE (word text, candidate text, share real)
-- PL/pgSQL for its cached plan: planned on every call, the SQL function took ~1 ms.
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = serving, pg_catalog
AS $$
#variable_conflict use_column
BEGIN
    -- Bounded as serving_sync.spelling bounds them (MAX_WORDS, MAX_EDITS): the web role
    -- cannot list the lexicon in bulk.
    IF cardinality(words) > 5 OR cardinality(edits) > 2500 THEN
        RAISE EXCEPTION 'web_spelling: at most 5 words and 2500 edits' USING ERRCODE = '22023';
    END IF;
    -- The common case, a query of words postings have: nothing to answer, and this
    -- lookup costs a tenth of the whole query below (~0.06 ms against ~0.83 ms, psql at
    -- 200,000 rows).
    IF edits IS NULL AND NOT EXISTS (
        SELECT 1 FROM unnest(words) AS w(word)
        WHERE NOT EXISTS (SELECT 1 FROM serving.lexicon l WHERE l.lexeme = w.word COLLATE "C")
    ) THEN
        RETURN;
    END IF;
    RETURN QUERY
    WITH unknown AS (
        SELECT w.word COLLATE "C" AS word
        FROM unnest(words) AS w(word)
        WHERE NOT EXISTS (SELECT 1 FROM serving.lexicon l WHERE l.lexeme = w.word COLLATE "C")
          -- nor through its stems: "engineers" finds postings that say "engineer"
          AND NOT EXISTS (SELECT 1 FROM serving.lexicon l
                          WHERE l.lexeme = ANY (serving.word_stems(w.word)::text[] COLLATE "C"))
          AND NOT (w.word = ANY (prefix_words) AND EXISTS (
                SELECT 1 FROM serving.lexicon l
                WHERE l.lexeme >= w.word COLLATE "C"
                  AND l.lexeme < (left(w.word, -1) || chr(ascii(right(w.word, 1)) + 1)) COLLATE "C"))
    ), ends AS (  -- a long word's first three letters, and its last three read backwards
        SELECT u.word, left(u.word, 3) AS head, reverse(right(u.word, 3)) AS tail
        FROM unknown u WHERE length(u.word) >= 9  -- spelling.ONE_EDIT_UP_TO + 1
    ), found AS (
        SELECT l.lexeme FROM serving.lexicon l
        WHERE l.lexeme = ANY (edits::text[] COLLATE "C")
        UNION
        SELECT h.lexeme FROM ends e CROSS JOIN LATERAL (
            SELECT l.lexeme FROM serving.lexicon l
            WHERE l.lexeme >= e.head COLLATE "C"
              AND l.lexeme < (left(e.head, 2) || chr(ascii(right(e.head, 1)) + 1)) COLLATE "C"
              AND length(l.lexeme) BETWEEN length(e.word) - 2 AND length(e.word) + 2
            ORDER BY l.lexeme LIMIT 500) AS h
        UNION
        SELECT t.lexeme FROM ends e CROSS JOIN LATERAL (
            SELECT l.lexeme FROM serving.lexicon l
            WHERE reverse(l.lexeme) >= e.tail COLLATE "C"
              AND reverse(l.lexeme) < (left(e.tail, 2) || chr(ascii(right(e.tail, 1)) + 1)) COLLATE "C"
              AND length(l.lexeme) BETWEEN length(e.word) - 2 AND length(e.word) + 2
            ORDER BY reverse(l.lexeme) LIMIT 500) AS t
    ), stats AS (
        SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs
        FROM pg_catalog.pg_stats s
        WHERE s.schemaname = 'serving' AND s.tablename = 'jobs' AND s.attname = 'search_tsv'
    )
    SELECT u.word::text, NULL::text, NULL::real FROM unknown u
    UNION ALL
    SELECT NULL::text, f.lexeme::text,
           coalesce((SELECT s.freqs[array_position(s.elems, f.lexeme::text)] FROM stats s), 0)::real
    FROM found f
    ;
END
$$;
