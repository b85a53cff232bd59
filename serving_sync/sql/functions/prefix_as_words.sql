-- The query that matches, from the typed one (typed_tsquery), in one pass over its text
-- form, reading serving.lexicon:
-- * each prefix written as its words when the lexicon allows (see prefix_words); a
--   prefix it does not allow stays a partial match. A prefix is an operand of the text
--   form written as a quoted lexeme (a quote inside doubled, a backslash escaping the
--   next character) and ':*'; the query has one per OR alternative at most (see
--   typed_tsquery);
-- * the stem operands no posting has dropped ('~xx:stem' not in the lexicon: a stem of a
--   language no published posting is written in, or of a word none has). They match
--   nothing, but the planner cannot know it: each unknown lexeme is estimated at half
--   the rarest common element's frequency, so a rare word with its three stems was
--   estimated at four times its share, and at 1M rows that tipped a rare word's first
--   page from the text index to walking the list index newest first, checking every
--   posting's text (16 s instead of a few ms). A stem always follows another operand
--   with OR (word_tsquery writes the word first), so dropping it with the " | " before
--   it leaves a valid query.
CREATE OR REPLACE FUNCTION serving.prefix_as_words(typed tsquery) RETURNS tsquery
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = serving, pg_catalog
AS $$
DECLARE
    plain text := typed::text;
    written text := '';
    part text;
    words text;
BEGIN
    IF typed IS NULL OR (position(':*' IN plain) = 0 AND position('''~' IN plain) = 0) THEN
        RETURN typed;
    END IF;
    -- The text form as its quoted lexemes (with a prefix mark or not) and what lies between.
    FOR part IN
        SELECT m[1] FROM regexp_matches(plain, '(''(?:[^''\\]|''''|\\.)*''(?::\*)?|[^'']+)', 'g') AS m
    LOOP
        words := NULL;
        IF right(part, 2) = ':*' THEN
            words := serving.prefix_words(
                regexp_replace(substr(part, 2, length(part) - 4), '[''\\](.)', '\1', 'g'));
        ELSIF left(part, 2) = '''~' AND right(written, 3) = ' | ' AND NOT EXISTS (
            SELECT 1 FROM serving.lexicon l
            WHERE l.lexeme = regexp_replace(substr(part, 2, length(part) - 2), '[''\\](.)', '\1', 'g')
                             COLLATE "C"
        ) THEN
            written := left(written, -3);  -- the stem and the " | " before it
            CONTINUE;
        END IF;
        written := written || CASE WHEN words IS NULL THEN part ELSE '( ' || words || ' )' END;
    END LOOP;
    RETURN written::tsquery;
END
$$;
