-- The query without the stem operands no posting has (not in serving.lexicon): a stem
-- of a language no published posting is written in, or of a word none has. They match
-- nothing, but the planner cannot know it: each unknown lexeme is estimated at half the
-- rarest common element's frequency, so a rare word with its three stems was estimated
-- at four times its share, and at 1M rows that tipped a rare word's first page from the
-- text index to walking the list index newest first, checking every posting's text
-- (16 s instead of a few ms). A stem operand always follows another operand with OR
-- (serving.word_tsquery writes the word first), so dropping " | '~xx:stem'" leaves a
-- valid query.
CREATE OR REPLACE FUNCTION serving.known_stems(tsq tsquery) RETURNS tsquery
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    written text := tsq::text;
    stem text;
BEGIN
    IF tsq IS NULL OR position('''~' IN written) = 0 THEN
        RETURN tsq;
    END IF;
    FOR stem IN
        SELECT DISTINCT m[1] FROM regexp_matches(written, ' \| ''(~[a-z]{2}:[^'']+)''', 'g') AS m
    LOOP
        IF NOT EXISTS (SELECT 1 FROM serving.lexicon l WHERE l.lexeme = stem COLLATE "C") THEN
            written := replace(written, ' | ''' || stem || '''', '');
        END IF;
    END LOOP;
    RETURN written::tsquery;
END
$$;
