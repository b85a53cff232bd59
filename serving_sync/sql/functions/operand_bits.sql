-- The postings of one text operand (a lexeme, or a prefix), NULL past `cap` postings
-- read from rows. A prefix is the words of the lexicon under it (a superset of the
-- published words: exact, as in prefix_words), from their bitmaps where they have one.
CREATE OR REPLACE FUNCTION serving.operand_bits(lexeme text, prefix boolean, n integer, cap integer)
RETURNS varbit
LANGUAGE plpgsql STABLE
SET search_path = serving, pg_catalog
SET enable_seqscan = off
AS $$
DECLARE
    words text[] := ARRAY[lexeme];
    found varbit;
    rest text[];
    ids bigint[];
BEGIN
    IF prefix THEN
        words := ARRAY(SELECT l.lexeme FROM serving.lexicon l
                       WHERE l.lexeme >= operand_bits.lexeme COLLATE "C"
                         AND starts_with(l.lexeme, operand_bits.lexeme COLLATE "C")
                       ORDER BY l.lexeme LIMIT 5001);
        IF cardinality(words) > 5000 THEN
            RETURN NULL;  -- 'abc':* over thousands of words: the text index does better
        END IF;
    END IF;
    SELECT bit_or(b.bits) INTO found FROM serving.live_bits(n) b
    WHERE b.facet = 'word' AND b.value = ANY (words);
    rest := ARRAY(SELECT w FROM unnest(words) AS w
                  WHERE NOT EXISTS (SELECT 1 FROM serving.facet_bits b
                                    WHERE b.facet = 'word' AND b.value = w));
    IF cardinality(rest) > 0 THEN
        ids := ARRAY(SELECT j.id FROM serving.jobs j
                     WHERE j.search_tsv @@ (SELECT string_agg(serving.lexeme_query(w)::text, ' | ')
                                            FROM unnest(rest) AS w)::tsquery
                     LIMIT cap + 1);
        IF cardinality(ids) > cap THEN
            RETURN NULL;
        END IF;
        RETURN coalesce(found, serving.bits_of_slots('{}', n)) | serving.bits_of_ids(ids, n);
    END IF;
    RETURN coalesce(found, serving.bits_of_slots('{}', n));
END
$$;
